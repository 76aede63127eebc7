// Unit: which backend a store is (store/open.ts): by its location for the commands, by a result's file for the
// library; and what each says of itself without a request (store/store.ts, store/s3-store.ts).
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { storeFor, storeHolding } from '../../src/store/open.js';

const ID = '01ARZ3NDEKTSV4RRFFQ69G5FAV';

describe('the store a location names', () => {
  const env = { XDG_CACHE_HOME: '/c', HOME: '/h' };

  it('is a folder by its path, shown as it is, whose headers are read in place', () => {
    const store = storeFor('rel/store', env);
    expect(store.name).toBe(resolve('rel/store'));
    expect(store.dir).toBe(resolve('rel/store'));
    expect(store.fetchesHeaders).toBe(false);
    expect(store.shown(join(store.dir, `lro-x-${ID}.jsonl`))).toBe(join(store.dir, `lro-x-${ID}.jsonl`));
    expect(store.listingDir('gc')).toBe(store.dir);
    expect(store.fetchListed({ dir: store.dir, name: `lro-x-${ID}.jsonl`, session: null, id: ID, operation: 'x' })).toBe(false);
  });

  it('is an S3 bucket by its s3:// URL, $LRO_DIR or --dir (first), worked on in its cache', () => {
    const store = storeFor(undefined, { ...env, LRO_DIR: 's3://bk1/x/y/' });
    expect(store.name).toBe('s3://bk1/x/y');
    expect(store.dir).toBe(join('/c', 'lro', 's3', 'bk1', 'x%2Fy', 'files'));
    expect(store.fetchesHeaders).toBe(true);
    expect(store.shown(join(store.dir, 'sessions', 's1', `lro-x-${ID}.jsonl`))).toBe(`s3://bk1/x/y/sessions/s1/lro-x-${ID}.jsonl`);
    expect(storeFor('s3://bk1/x', { ...env, LRO_DIR: '/local' }).name).toBe('s3://bk1/x');
  });

  it("is, for a result's file, the S3 store whose cache holds it, else the file's folder", () => {
    const s3 = storeFor('s3://bk2/p', env);
    const file = join(s3.dir, `lro-x-${ID}.jsonl`);
    expect(storeHolding(file).shown(file)).toBe(`s3://bk2/p/lro-x-${ID}.jsonl`);
    expect(storeHolding(`/elsewhere/lro-x-${ID}.jsonl`).shown(`/elsewhere/lro-x-${ID}.jsonl`)).toBe(`/elsewhere/lro-x-${ID}.jsonl`);
  });
});
