// `last~N` names the result N before the newest (last~0 is last), in the store or in $LRO_SESSION, as git's
// HEAD~N does; past the oldest it is an error that says how many results there are.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { offload } from '../../src/offload.js';
import { resolveResult } from '../../src/store/resolve.js';
import { cleanup, tempDir } from '../helpers/cli.js';

let root: string;
let dir: string;
const ids: string[] = [];

beforeAll(async () => {
  root = tempDir();
  dir = join(root, 'store');
  for (const word of ['first', 'second', 'third']) {
    const r = await offload(Buffer.from(`${word}\n`.repeat(50)), { dir, env: {}, force: true });
    if (!r.offloaded) throw new Error('forced, it is stored');
    ids.push(r.descriptor.id);
    await new Promise((res) => setTimeout(res, 5)); // distinct ULID times: newest first is the order of ids
  }
});
afterAll(() => cleanup(root));

describe('resolveResult', () => {
  it('last~N is the result N before the newest', () => {
    const id = (ref: string) => resolveResult(ref, { dir, env: {} }).header.id;
    expect(id('last')).toBe(ids[2]);
    expect(id('last~0')).toBe(ids[2]);
    expect(id('last~1')).toBe(ids[1]);
    expect(id('last~2')).toBe(ids[0]);
  });

  it('last~N past the oldest, or a bad N, is an error naming the cause', () => {
    expect(() => resolveResult('last~3', { dir, env: {} })).toThrow(/last~3: the store has 3 results \(last~0 to last~2\)/);
    expect(() => resolveResult('last~x', { dir, env: {} })).toThrow(/invalid result id 'last~x'/);
  });
});
