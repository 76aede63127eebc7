// Gathering a diff's items: groups by hash, the smallest first (ties: the group seen first), members in order;
// and the pattern of a key that gathers records added or removed.
import { describe, expect, it } from 'vitest';
import { groupByHash, groupFirst, groupSize, keyPattern } from '../../src/compare/groups.js';

const members = (hashes: number[]) => {
  const g = groupByHash(Float64Array.from(hashes));
  return Array.from({ length: g.size }, (_, i) => groupFirst(g, i, Infinity));
};

describe('groupByHash', () => {
  it('orders groups by size, the smallest first, then by their first item; members keep their order', () => {
    expect(members([5, 9, 5, 7, 5, 9, 3])).toEqual([[3], [6], [1, 5], [0, 2, 4]]);
    const g = groupByHash(Float64Array.from([2, 2, 2]));
    expect([g.size, groupSize(g, 0), groupFirst(g, 0, 2)]).toEqual([1, 3, [0, 1]]);
  });

  it('no items, no groups; distinct hashes stay in their order', () => {
    expect(members([])).toEqual([]);
    expect(members([-1, -2, -3, 2 ** 52])).toEqual([[0], [1], [2], [3]]);
  });
});

describe('keyPattern', () => {
  it('masks the parts of a name that hold a digit and a random suffix after one', () => {
    expect(keyPattern('web-7d4b9c-x2k9p')).toBe('web-*-*');
    expect(keyPattern('web-7d4b9c-kqzbw')).toBe('web-*-*');
    expect(keyPattern('db-0')).toBe('db-*');
    expect(keyPattern('cron-fxj0n-2lr9')).toBe('cron-*-*');
    expect(keyPattern('redis-master')).toBe('redis-master');
    expect(keyPattern('api.v2/users')).toBe('api.*/users');
    expect(keyPattern('12345')).toBe('*');
  });
});
