// What a compaction of a remote store's index keeps (store/remote-index.ts kept): an unlisted result's entry stays
// while its upload may have ended after the listing, judged by its id or by when its addition was written.
import { encodeTime } from 'ulid';
import { describe, expect, it } from 'vitest';
import { kept, type IndexEntry } from '../../src/store/remote-index.js';

const HOUR = 3600_000;
const listedAt = Date.parse('2026-06-01T12:00:00Z');
const idAt = (ms: number, tail: string) => `${encodeTime(ms, 10)}${tail.padEnd(16, '0')}`;
const entry = (id: string): IndexEntry => ({ rel: `lro-offload-${id}.jsonl`, size: 10, etag: '"e"', line: '{}' });

describe('kept', () => {
  const old = entry(idAt(listedAt - 3 * HOUR, 'AAA')); // its upload began three hours before the listing
  const young = entry(idAt(listedAt - HOUR / 2, 'BBB'));
  const listed = new Map<string, { size: number; etag?: string; mtimeMs: number }>();

  it('keeps an unlisted result whose id is recent, and drops an old one whose addition is old too', () => {
    const addedAt = new Map([[old.rel, listedAt - 2 * HOUR]]);
    expect(kept([old, young], listed, () => false, listedAt, addedAt)).toEqual([young]);
  });

  it('keeps an unlisted result with an old id when its addition was written around the listing (a long upload)', () => {
    for (const at of [listedAt - HOUR / 4, listedAt + 5_000]) {
      expect(kept([old], listed, () => false, listedAt, new Map([[old.rel, at]]))).toEqual([old]);
    }
    expect(kept([old], listed, () => false, listedAt)).toEqual([]); // by its id alone: dropped
  });

  it('drops what gc removed, whatever its addition', () => {
    expect(kept([old], listed, () => true, listedAt, new Map([[old.rel, listedAt]]))).toEqual([]);
  });
});
