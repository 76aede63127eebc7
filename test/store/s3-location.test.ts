// Unit: what `s3://bucket/prefix` names (store/location.ts): the bucket and prefix checked, one cache folder per
// store under ${XDG_CACHE_HOME:-~/.cache}/lro/s3, and a cache path mapped back to its store and object.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { isRemoteSpec, keyOf, parseS3Url, remoteOf, remoteStore } from '../../src/store/location.js';
import { storePath } from '../../src/store/dir.js';

describe('s3:// store locations', () => {
  it('parses the bucket and a normalized prefix', () => {
    expect(parseS3Url('s3://team-logs/ci/runs/')).toEqual({ bucket: 'team-logs', prefix: 'ci/runs' });
    expect(parseS3Url('s3://team-logs')).toEqual({ bucket: 'team-logs', prefix: '' });
    expect(isRemoteSpec('S3://x/y')).toBe(true);
    expect(isRemoteSpec('/tmp/s3:/x')).toBe(false);
  });

  it('refuses a bad bucket name or a prefix part that could leave the cache, with what is allowed', () => {
    expect(() => parseS3Url('s3://Bad_Bucket/x')).toThrow(UsageError);
    expect(() => parseS3Url('s3://ok-bucket/a/../b')).toThrow(/each part of the prefix must be letters, digits/);
    expect(() => parseS3Url('s3://ok-bucket/a b')).toThrow(/invalid S3 store "s3:\/\/ok-bucket\/a b"/);
  });

  it('keeps each store in a cache folder of its own, and maps cache paths back to objects', () => {
    const env = { XDG_CACHE_HOME: '/c', HOME: '/h' };
    const a = remoteStore('s3://bk1/x/y', env);
    const b = remoteStore('s3://bk1/x', env);
    expect(a.root).toBe(join('/c', 'lro', 's3', 'bk1', 'x%2Fy'));
    expect(b.root).toBe(join('/c', 'lro', 's3', 'bk1', 'x'));
    expect(remoteStore('s3://bk1', { HOME: '/h' }).root).toBe(join('/h', '.cache', 'lro', 's3', 'bk1', '%'));
    expect(storePath(undefined, { ...env, LRO_DIR: 's3://bk1/x/y' })).toBe(a.files);
    expect(storePath('s3://bk1/x', { ...env, LRO_DIR: '/local' })).toBe(b.files); // --dir first
    const where = remoteOf(join(a.heads, 'sessions', 's1', 'lro-x-01ARZ3NDEKTSV4RRFFQ69G5FAV.jsonl'))!;
    expect(where.half).toBe('heads');
    expect(keyOf(where.store, where.rel)).toBe('x/y/sessions/s1/lro-x-01ARZ3NDEKTSV4RRFFQ69G5FAV.jsonl');
    expect(remoteOf('/elsewhere/lro-x-01ARZ3NDEKTSV4RRFFQ69G5FAV.jsonl')).toBeNull();
  });
});
