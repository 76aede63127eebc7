// The store's index of header lines, the objects under `<prefix>/index/`: for each result its path in the store,
// its object's size and ETag (or time), and its header line without the descriptor's statistics and the block
// hashes (what ls and gc read). A machine with an empty cache lists a store of 10,000 results by a few GETs of
// them instead of 10,000 ranged GETs of headers. Several machines write it at once, and none can lock it, so it is
// never one object rewritten (the last writer would drop what the others added): the index is the union of its
// objects, and an object is only ever added, or removed by a compaction that has first written their union anew.
//
//   index/add-<ULID>.jsonl      what one writer added: an offload its result (the ULID is the result's id), a listing
//                               the headers it had to fetch because the index lacked them (a new ULID)
//   index/base-<ULID>.jsonl.gz  a compaction's union of the objects it read (gzip)
//   index/headers.jsonl.gz      the one index an earlier lro rewrote: read as a base, removed by a compaction
//
// Only a cache: an entry is taken for a listed object only when its size and ETag (an older entry: its time) are the
// listing's, so a stale entry (the object replaced, or removed) is never used, and an object without an entry (the
// index lost, or an upload whose entry failed) has its header fetched as before. What a compaction leaves out is
// only what it knows to be gone: an entry whose object is listed but different, one gc removed, or one whose result
// is neither listed nor newer than an hour before its listing (a result being uploaded while it listed is kept).
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { decodeTime, encodeTime } from 'ulid';
import { parseHeaderFields } from '../format/header.js';
import { checkListedMac, lineSeal } from '../format/mac.js';
import { parseResultFileName } from '../format/naming.js';
import { keyOf, type RemoteStore } from './location.js';
import { s3Call } from './s3-sync.js';
import type { DeleteManyAnswer, S3Object } from './s3-worker.js';

export const INDEX_DIR = 'index';
/** node:zlib, loaded by a listing that reads or writes the index only: every local read imports this module. */
const zlib = () => createRequire(import.meta.url)('node:zlib') as typeof import('node:zlib');
/** A request's wait (a reader's, as elsewhere: the index is a shortcut, and a listing goes on without it). */
const WAIT_MS = 12_000;
/** An unlisted result's entry is kept by a compaction while its id is this recent (an upload may be under way). */
const KEEP_UNLISTED_MS = 3600_000;

export interface IndexEntry {
  rel: string;
  size: number;
  /** The object's ETag; absent in entries of an earlier lro, which match by `mtimeMs`. */
  etag?: string;
  mtimeMs?: number;
  line: string;
  /**
   * Line 1's seal (its `blocks` member's `head`, which `line` lacks), so a reader holding the store's secret checks
   * the entry's MAC (format/mac.ts) as it would the object's line 1. Absent in entries of an earlier lro.
   */
  head?: string;
}

/** The index's objects as listed: bases and additions; anything else under index/ is not lro's and never touched. */
export function isIndexObject(name: string): boolean {
  return /^(add-[0-9A-Z]{26}\.jsonl|base-[0-9A-Z]{26}\.jsonl\.gz|headers\.jsonl\.gz)$/.test(name);
}

/** The index's objects in the bucket (one listing of index/). */
export function listIndex(store: RemoteStore): S3Object[] {
  const folder = keyOf(store, `${INDEX_DIR}/`);
  const out: S3Object[] = [];
  let token: string | undefined;
  do {
    const page = s3Call<{ objects: S3Object[]; next?: string }>({ op: 'list', bucket: store.bucket, prefix: folder, token }, store.env, WAIT_MS);
    for (const o of page.objects) if (isIndexObject(o.key.slice(folder.length))) out.push(o);
    token = page.next;
  } while (token);
  return out;
}

/**
 * The index's objects kept by this machine, `<cache>/index/`: an addition or a base is never rewritten once written
 * (its key names a new ULID), so a listing GETs only those it has not read before. A copy is named by its object's
 * name, ETag and size, and used only for the object listed with them (an object rewritten behind lro's back, or the
 * `headers.jsonl.gz` an earlier lro rewrote, is fetched again); copies of objects no longer listed are dropped, and
 * no more than INDEX_CACHE_MAX bytes are kept.
 */
const INDEX_CACHE_DIR = 'index';
const INDEX_CACHE_MAX = 64 << 20;

/** A listed index object's copy in the cache. */
function copyName(store: RemoteStore, o: S3Object): string {
  const name = o.key.slice(keyOf(store, `${INDEX_DIR}/`).length);
  return `${name}~${(o.etag ?? '').replace(/[^0-9A-Za-z-]/g, '')}~${o.size}`;
}

/** The bodies of the listed objects kept in the cache (null: not kept), and drops the copies of objects not listed. */
function keptBodies(store: RemoteStore, objects: S3Object[]): (Buffer | null)[] {
  const dir = join(store.root, INDEX_CACHE_DIR);
  let names: Set<string>;
  try {
    names = new Set(readdirSync(dir));
  } catch {
    return objects.map(() => null);
  }
  const wanted = new Set(objects.map((o) => copyName(store, o)));
  for (const n of names) if (!wanted.has(n)) rmSync(join(dir, n), { force: true });
  return objects.map((o) => {
    const n = copyName(store, o);
    if (!names.has(n)) return null;
    try {
      const body = readFileSync(join(dir, n));
      return body.length === o.size ? body : null;
    } catch {
      return null;
    }
  });
}

/** Keeps the bodies just fetched (up to INDEX_CACHE_MAX bytes with those kept already); best effort. */
function keepBodies(store: RemoteStore, fetched: { o: S3Object; body: Uint8Array }[], keptBytes: number): void {
  if (fetched.length === 0) return;
  const dir = join(store.root, INDEX_CACHE_DIR);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    let bytes = keptBytes;
    for (const { o, body } of fetched) {
      if (body.length !== o.size || (bytes += body.length) > INDEX_CACHE_MAX) continue;
      const path = join(dir, copyName(store, o));
      writeFileSync(`${path}.${process.pid}.part`, body, { mode: 0o600 });
      renameSync(`${path}.${process.pid}.part`, path);
    }
  } catch {
    // not kept: fetched again next time
  }
}

/**
 * The entries of the index's objects (those this machine has not kept: GETs, 16 at a time), and the keys of the
 * objects read: an object removed since it was listed (a compaction folded it into a base this listing did not see)
 * is not read, and its entries are missed this time only. An entry of a later line wins over one of the same result
 * before it (the same object).
 */
export function readIndex(store: RemoteStore, objects: S3Object[]): { entries: Map<string, IndexEntry>; read: string[]; addedAt: Map<string, number> } {
  const entries = new Map<string, IndexEntry>();
  const read: string[] = [];
  const addedAt = new Map<string, number>();
  if (objects.length === 0) return { entries, read, addedAt };
  const keys = objects.map((o) => o.key);
  const bodies: (Uint8Array | null)[] = keptBodies(store, objects);
  const keptBytes = bodies.reduce((n, b) => n + (b?.length ?? 0), 0);
  const missing = objects.filter((_, i) => !bodies[i]);
  if (missing.length > 0) {
    const got = s3Call<(Uint8Array | null)[]>({ op: 'getMany', bucket: store.bucket, keys: missing.map((o) => o.key) }, store.env, WAIT_MS);
    const fetched: { o: S3Object; body: Uint8Array }[] = [];
    for (let i = 0, j = 0; i < objects.length; i++) {
      if (bodies[i]) continue;
      bodies[i] = got[j++];
      if (bodies[i] && !objects[i].key.endsWith('/headers.jsonl.gz')) fetched.push({ o: objects[i], body: bodies[i]! });
    }
    keepBodies(store, fetched, keptBytes);
  }
  keys.forEach((key, i) => {
    const body = bodies[i];
    if (!body) return;
    read.push(key); // one that cannot be read is no index: a compaction removes it with the others
    let text: string;
    try {
      text = (key.endsWith('.gz') ? zlib().gunzipSync(body) : Buffer.from(body)).toString('utf8');
    } catch {
      return;
    }
    const added = /\/add-[0-9A-Z]{26}\.jsonl$/.test(key) ? objects[i].mtimeMs : undefined;
    for (const l of text.split('\n')) {
      const e = indexEntry(l);
      if (!e) continue;
      entries.set(e.rel, e);
      if (added !== undefined) addedAt.set(e.rel, Math.max(added, addedAt.get(e.rel) ?? 0));
    }
  });
  return { entries, read, addedAt };
}

/** An index line as an entry when it is one (a result's path, its counts, and a header line of that result's id). */
function indexEntry(l: string): IndexEntry | null {
  if (!l) return null;
  try {
    const e = JSON.parse(l) as IndexEntry;
    const id = typeof e.rel === 'string' ? parseResultFileName(e.rel.split('/').pop()!)?.id : undefined;
    if (!id || !Number.isSafeInteger(e.size) || typeof e.line !== 'string') return null;
    if (typeof e.etag !== 'string' && !Number.isFinite(e.mtimeMs)) return null;
    return parseHeaderFields(Buffer.from(e.line)).header.id === id ? e : null;
  } catch {
    return null;
  }
}

/**
 * Whether an entry may be used by a reader holding the store's secret (`key`; none: any entry): its line carries a
 * MAC under it over the line and its seal. One that does not is not used: that header is fetched, and checked there.
 */
export function keyedEntry(e: IndexEntry, key: Buffer | null): boolean {
  if (!key) return true;
  try {
    checkListedMac(key, Buffer.from(e.line), e.head);
    return true;
  } catch {
    return false;
  }
}

/** Whether an entry is of this listed object: the same size and ETag (or, for an entry without one, time). */
export function sameObject(e: IndexEntry, o: { size: number; etag?: string; mtimeMs: number }): boolean {
  if (e.size !== o.size) return false;
  if (e.etag !== undefined && o.etag !== undefined) return e.etag === o.etag;
  return e.mtimeMs !== undefined && Math.round(e.mtimeMs) === Math.round(o.mtimeMs);
}

/** A result's entry from its header line (as stored: line 1, with or without the statistics) and its object. */
export function entryOf(rel: string, headerLine: Buffer, o: { size: number; etag?: string; mtimeMs?: number }): IndexEntry {
  const line = parseHeaderFields(headerLine).line.toString('utf8');
  const e: IndexEntry = { rel, size: o.size, line };
  const head = lineSeal(headerLine);
  if (head) e.head = head;
  if (o.etag) e.etag = o.etag;
  else if (o.mtimeMs !== undefined) e.mtimeMs = Math.round(o.mtimeMs);
  return e;
}

/** Crockford's base 32, the ULID's letters. */
const BASE32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A ULID for an index object's name: the time, then 80 random bits. Not ulid's own `ulid()`: that module then
 * requires node:crypto as it loads, in every command whose bundle reaches the S3 store (about 8 ms a start);
 * Web Crypto's global loads only when an index object is named.
 */
function indexUlid(now = Date.now()): string {
  return encodeTime(now, 10) + Array.from(globalThis.crypto.getRandomValues(new Uint8Array(16)), (b) => BASE32[b & 31]).join('');
}

const lines = (entries: Iterable<IndexEntry>) => [...entries].map((e) => `${JSON.stringify(e)}\n`).join('');

/** The PUT of an addition to the index (`id`: its ULID), for a caller that writes it with other small objects. */
export function addition(store: RemoteStore, entries: IndexEntry[], id = indexUlid()): { key: string; body: string } {
  return { key: keyOf(store, `${INDEX_DIR}/add-${id}.jsonl`), body: lines(entries) };
}

/**
 * How a write to the index went: written; refused (the credentials may not write it: denied, or not accepted), which
 * the caller remembers for a while; or failed otherwise (a time-out, a cut connection, a server error), which the next
 * listing simply tries again.
 */
export type IndexWrite = 'written' | 'refused' | 'failed';

const REFUSALS = new Set(['denied', 'credentials']);

/** An index write's failure by its cause's code (s3-worker.ts causeOf). */
const failure = (code: string | undefined): IndexWrite => (code !== undefined && REFUSALS.has(code) ? 'refused' : 'failed');

/** Adds entries to the index (one PUT of a new object); best effort. */
export function addToIndex(store: RemoteStore, entries: IndexEntry[]): IndexWrite {
  if (entries.length === 0) return 'written';
  try {
    const failed = s3Call<({ code: string } | null)[]>({ op: 'putSmalls', bucket: store.bucket, bodies: [addition(store, entries)] }, store.env, WAIT_MS);
    return failed[0] === null ? 'written' : failure(failed[0].code);
  } catch (e) {
    return failure((e as { kind?: string }).kind);
  }
}

/**
 * What a compaction keeps of the index read: none of a result `gone` says was removed; an entry of a listed object
 * when it is of that object; of a result not listed, when its id is newer than an hour before the listing
 * (`listedAt`), or the addition that holds it (`addedAt`: its time, by rel) was written less than an hour before the
 * listing or after it: the result's upload may have ended after the listing. An upload is added to the index when it
 * ends, so one that took over an hour has an old id but a new addition; its id alone dropped it (the index of a store
 * at a bucket's root is listed after its results, so its addition could be read while its result was not listed).
 */
export function kept(
  entries: Iterable<IndexEntry>,
  listed: Map<string, { size: number; etag?: string; mtimeMs: number }>,
  gone: (rel: string) => boolean,
  listedAt: number,
  addedAt: Map<string, number> = new Map(),
): IndexEntry[] {
  const out: IndexEntry[] = [];
  for (const e of entries) {
    if (gone(e.rel)) continue;
    const o = listed.get(e.rel);
    if (o) {
      if (sameObject(e, o)) out.push(e);
      continue;
    }
    const id = parseResultFileName(e.rel.split('/').pop()!)!.id;
    if (Math.max(decodeTime(id), addedAt.get(e.rel) ?? 0) >= listedAt - KEEP_UNLISTED_MS) out.push(e);
  }
  return out;
}

/**
 * Replaces the index objects `read` (and only those: another writer's added since stay) by one base of `entries`:
 * the base is written first, then they are deleted, so an entry is in some object at every moment. With no entries
 * no base is written: a store gc emptied has no index left. Best effort: a failed write deletes nothing.
 */
export function compactIndex(store: RemoteStore, entries: IndexEntry[], read: string[], tmp: string): IndexWrite {
  if (entries.length > 0) {
    try {
      writeFileSync(tmp, zlib().gzipSync(lines(entries)), { mode: 0o600 });
      s3Call({ op: 'put', bucket: store.bucket, key: keyOf(store, `${INDEX_DIR}/base-${indexUlid()}.jsonl.gz`), path: tmp }, store.env, WAIT_MS);
    } catch (e) {
      return failure((e as { kind?: string }).kind); // the index stays as it was
    } finally {
      rmSync(tmp, { force: true });
    }
  }
  deleteKeys(store, read);
  return 'written';
}

/** Deletes keys, 1,000 a request (one at a time on a server without DeleteObjects); one that fails stays. */
function deleteKeys(store: RemoteStore, keys: string[]): void {
  for (let i = 0; i < keys.length; i += 1000) {
    const batch = keys.slice(i, i + 1000);
    try {
      const answer = s3Call<DeleteManyAnswer>({ op: 'deleteMany', bucket: store.bucket, keys: batch }, store.env, WAIT_MS);
      if (!('refused' in answer)) continue;
      for (const key of batch) s3Call({ op: 'delete', bucket: store.bucket, key }, store.env, WAIT_MS);
    } catch {
      return; // left for the next compaction: they are read as the index still
    }
  }
}
