// Where a store is: a local directory, or `s3://bucket/prefix` (from --dir or $LRO_DIR). A remote store is worked
// on through a local cache directory of this user, `${XDG_CACHE_HOME:-~/.cache}/lro/s3/<bucket>/<prefix>/`
// (the prefix's `/` written `%2F`):
// `files/` holds whole results (written there by offload before the upload, fetched there by a reader), laid out
// as a local store is, so every reader runs unchanged on it; `heads/` holds, for `ls` and `gc`, one sparse file
// per object of the bucket: its header line, then zeros up to the object's size; `parts/` holds, for the readers
// that need only a result's start (`info`, `read --head`), the object's first bytes fetched by a Range GET, then
// zeros to its size: never a whole result, so never read as one. Nothing here loads the SDK.
import { homedir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { UsageError } from '../errors.js';

export interface RemoteStore {
  /** `s3://bucket/prefix` as the user wrote it, normalized. */
  url: string;
  bucket: string;
  /** Without a leading or trailing `/`; '' for the whole bucket. */
  prefix: string;
  /** The cache of this store, and its two halves. */
  root: string;
  files: string;
  heads: string;
  parts: string;
  env: NodeJS.ProcessEnv;
}

const BUCKET_RE = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const SEGMENT_RE = /^[A-Za-z0-9._=+-]{1,100}$/;

/** Every remote store this process has named, by the directory of its cache. */
const known = new Map<string, RemoteStore>();

export function isRemoteSpec(spec: string | undefined): spec is string {
  return spec !== undefined && /^s3:\/\//i.test(spec);
}

/** Parses `s3://bucket/prefix`; a usage error naming what is wrong otherwise. */
export function parseS3Url(spec: string): { bucket: string; prefix: string } {
  const rest = spec.slice('s3://'.length);
  const [bucket, ...parts] = rest.split('/');
  if (!BUCKET_RE.test(bucket)) {
    const what = "the bucket name must be 3-63 characters of a-z, 0-9, '.' and '-' (s3://bucket/prefix)";
    throw new UsageError(`invalid S3 store ${JSON.stringify(spec)}: ${what}`);
  }
  const segments = parts.filter((p) => p !== '');
  for (const s of segments) {
    if (!SEGMENT_RE.test(s) || s === '.' || s === '..') {
      const what = 'each part of the prefix must be letters, digits and . _ = + - (not . or ..)';
      throw new UsageError(`invalid S3 store ${JSON.stringify(spec)}: ${what}`);
    }
  }
  return { bucket, prefix: segments.join('/') };
}

/** The remote store a spec names, with its cache directories (not created here). */
export function remoteStore(spec: string, env: NodeJS.ProcessEnv): RemoteStore {
  const { bucket, prefix } = parseS3Url(spec);
  const cacheHome = env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache');
  // one folder per prefix ('/' written %2F, '%' for none: no prefix has a '%'), so no store's cache is in another's
  const root = join(cacheHome, 'lro', 's3', bucket, prefix ? prefix.replace(/\//g, '%2F') : '%');
  const url = `s3://${bucket}/${prefix}`;
  const [files, heads, parts] = [join(root, 'files'), join(root, 'heads'), join(root, 'parts')];
  const store: RemoteStore = { url, bucket, prefix, root, files, heads, parts, env };
  for (const half of [files, heads, parts]) known.set(half, store);
  return store;
}

export type CacheHalf = 'files' | 'heads' | 'parts';

/** The remote store whose cache holds a local path (its `files/`, `heads/` or `parts/`), or null. */
export function remoteOf(path: string): { store: RemoteStore; half: CacheHalf; rel: string } | null {
  for (const [dir, store] of known) {
    if (path !== dir && !path.startsWith(dir + sep)) continue;
    const half = dir === store.files ? 'files' : dir === store.heads ? 'heads' : 'parts';
    return { store, half, rel: relative(dir, path).split(sep).join('/') };
  }
  return null;
}

/** The object key of a path relative to a store (`lro-x-ID.jsonl`, `sessions/S/lro-x-ID.jsonl`). */
export function keyOf(store: RemoteStore, rel: string): string {
  return store.prefix ? `${store.prefix}/${rel}` : rel;
}
