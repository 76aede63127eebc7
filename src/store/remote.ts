// A store on S3, seen through its local cache (store/location.ts): the upload of a result just committed in the
// cache, a result fetched into the cache for a reader, the bucket's listing mirrored as header files for ls and
// gc, and the removal of an object gc chose. Stored results never change, so a cached file is always right.
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, utimesSync } from 'node:fs';
import { closeSync, ftruncateSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative, sep } from 'node:path';
import { decodeTime } from 'ulid';
import { LroError } from '../errors.js';
import { BlockMismatch, checkedBlocks, checkHeaderSeal } from '../format/blocks.js';
import { checkLineMac, storeKey, UNSIGNED } from '../format/mac.js';
import { FormatError, parseHeader, type Header } from '../format/header.js';
import { isUlid, parseDedupeFileName, parseResultFileName, refFileName, tempFileName } from '../format/naming.js';
import { checkRecordCount, checkSpan, openResultFile, originalPieces, readHeaderLine, type HeaderLine } from '../format/reader.js';
import { countNewlines } from '../kernel/scan.js';
import { openResultDir } from './dir.js';
import { writeHeaderFile } from './header-file.js';
import { keyOf, remoteOf, type RemoteStore } from './location.js';
import { addition, addToIndex, compactIndex, entryOf, INDEX_DIR, isIndexObject, keyedEntry, kept, listIndex, readIndex, sameObject, type IndexEntry } from './remote-index.js';
import { s3Call, S3Error } from './s3-sync.js';
import type { DeleteManyAnswer, ListPage, ObjectPart, S3Object } from './s3-worker.js';
import { damaged, readResult, resultOfLine, type DamagedResult, type ResultName, type ScannedResult, type StoreListing } from './scan.js';
import { SESSIONS_DIR, sessionOfFolder } from './session.js';
import type { ListingFor } from './store.js';

/** A request a reader waits for: the whole fault budget (15 s) less the start of the worker. */
const READ_WAIT_MS = 12_000;
/** A whole object's transfer: bounded by the SDK's idle timeout, not by its size. */
const TRANSFER_WAIT_MS = 24 * 3600_000;
/** Header files fetched per request to the worker (16 at a time there). */
const HEADS_BATCH = 400;
/**
 * The start of an object fetched for a reader that needs only its header and first records (one Range GET): line 1
 * (its slot, with the block hashes, is some 50 KB) and the first block of records (1 MB up to a 1 GB result), so
 * what is shown of it is checked (format/blocks.ts).
 */
const START_BYTES = (1 << 20) + 64 * 1024;
/**
 * A result served from the cache is asked for in the bucket (one HEAD) when it was last seen there longer ago than
 * this, or has expired: another machine's gc may have removed it. Within it, the cache answers alone.
 */
const RECHECK_MS = 60_000;
/** That HEAD's wait: the cache answers anyway when the server cannot say (down, slow). */
const RECHECK_WAIT_MS = 5_000;
/** The cache of whole results is trimmed (oldest first) to this many bytes; LRO_S3_CACHE_MAX changes it. */
const CACHE_MAX_BYTES = 2 * 1024 ** 3;

/**
 * The folder of the per-id pointers: `<prefix>/ids/<ULID>` holds the path (relative to the store) of the result
 * with that id, so a machine resolves an id by one GET instead of listing the bucket (a key holds the operation,
 * which the id does not give). Written after the result is complete; a store written before has none.
 */
const POINTERS_DIR = 'ids';

/** An lro result among the bucket's objects: its path relative to the store, and its session folder. */
export interface RemoteResult extends S3Object {
  rel: string;
  id: string;
  session: string | null;
}

/** The lro results under the store's prefix (other objects are never touched), newest first. */
export function listRemote(store: RemoteStore): RemoteResult[] {
  return listLro(store, false).results;
}

/** Where an object is in the store's tree: at its root or in a session's folder (null: neither). */
function placeOf(rel: string): { name: string; session: string | null } | null {
  const parts = rel.split('/');
  if (parts.length === 1) return { name: parts[0], session: null };
  if (parts.length === 3 && parts[0] === SESSIONS_DIR) return { name: parts[2], session: sessionOfFolder(parts[1]) };
  return null;
}

/** The results (newest first) and dedupe refs under the store's prefix, by their names. */
type RemoteRef = S3Object & { rel: string; session: string | null };

/**
 * The objects under the parts of the store lro lists: the results at its root (`lro-…`) and in sessions' folders,
 * and with `withRefs` (gc) the dedupe refs at the root (`.lro-…`); never the pointers (`ids/`), nor anything else.
 * The results and the sessions' folders are one listing, from `lro-` to the end of `sessions/` (they are next to
 * each other in the keys' order): a second listing of `sessions/` cost s3rver a walk of the whole store again. It
 * starts at `index/`, just before `lro-`, so the objects of the store's index come with it (`index`; a listing of
 * their own took s3rver 160 ms of 10,000 keys). A store at the root of a bucket lists the two apart: between them
 * lie all the bucket's other keys from `lro-` to `sessions` (`media/`, `prod/`, `reports/`, ...); its index is
 * listed when it is read (`index` undefined).
 */
function listLro(store: RemoteStore, withRefs = true): { results: RemoteResult[]; refs: RemoteRef[]; index?: S3Object[] } {
  const base = store.prefix ? `${store.prefix}/` : '';
  const spans: ListRange[] = base
    ? [{ prefix: base, startAfter: `${base}${INDEX_DIR}/`, until: `${base}${SESSIONS_DIR}0` }] // '0' follows '/'
    : [{ prefix: 'lro-' }, { prefix: `${SESSIONS_DIR}/` }];
  if (withRefs) spans.push({ prefix: `${base}.lro-` });
  const objects = spans.flatMap((span) => listKeys(store, span));
  const results: RemoteResult[] = [];
  const refs: RemoteRef[] = [];
  const index: S3Object[] = [];
  for (const o of objects) {
    const rel = o.key.slice(base.length);
    if (rel.startsWith(`${INDEX_DIR}/`)) {
      if (isIndexObject(rel.slice(INDEX_DIR.length + 1))) index.push(o);
      continue;
    }
    const place = placeOf(rel);
    const parsed = place && parseResultFileName(place.name);
    if (place && parsed) results.push({ ...o, rel, id: parsed.id, session: place.session });
    else if (place && parseDedupeFileName(place.name)?.kind === 'ref') refs.push({ ...o, rel, session: place.session });
  }
  results.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  return { results, refs, index: base ? index : undefined };
}

/**
 * The objects of one listing, a page at a time, each bounded as one request is: a listing that goes on is no fault,
 * however long the bucket. Pages stop at the first that reaches `until`.
 */
type ListRange = { prefix: string; startAfter?: string; until?: string };

function listKeys(store: RemoteStore, range: ListRange): S3Object[] {
  const objects: S3Object[] = [];
  let token: string | undefined;
  do {
    const ask = { op: 'list', bucket: store.bucket, ...range, token } as const;
    const page = s3Call<ListPage>(ask, store.env, READ_WAIT_MS);
    for (const o of page.objects) objects.push(o);
    token = page.next;
  } while (token);
  return objects;
}

/** The ids of the pointers in the store (`ids/<ULID>`: any other key there is not lro's, and never deleted). */
function listPointers(store: RemoteStore): Set<string> {
  const folder = keyOf(store, `${POINTERS_DIR}/`);
  const ids = new Set<string>();
  for (const o of listKeys(store, { prefix: folder })) {
    const id = o.key.slice(folder.length);
    if (isUlid(id)) ids.add(id);
  }
  return ids;
}

/** The session a result's relative path puts it in (null: the store's root). */
function sessionOf(rel: string): string | null {
  const parts = rel.split('/');
  return parts.length === 3 ? sessionOfFolder(parts[1]) : null;
}

/**
 * Fetches a result into the cache (unless it is there) and returns its local path. The object is checked against
 * its header before it enters the cache (checkFetched): one that is not what its header says is never cached.
 */
export function fetchResult(store: RemoteStore, r: { rel: string }): string {
  const folder = openResultDir(store.files, sessionOf(r.rel)).dir;
  const path = join(store.files, ...r.rel.split('/'));
  const id = parseResultFileName(r.rel.split('/').pop()!)!.id;
  if (isFile(path)) return keyedCopy(store, { rel: r.rel, id }, path);
  const tmp = join(folder, tempFileName(id, 'fetch'));
  try {
    s3Call({ op: 'get', bucket: store.bucket, key: keyOf(store, r.rel), path: tmp }, store.env, TRANSFER_WAIT_MS);
    checkFetched(store, r.rel, tmp, id);
    renameSync(tmp, path);
  } finally {
    rmSync(tmp, { force: true }); // a fetch cut, timed out or refused leaves nothing
  }
  dropPart(store, r.rel); // its start alone is no longer needed
  trimCache(store, cacheLimit(store.env), path);
  return path;
}

/**
 * A fetched object must be the result its header describes: the original it rebuilds has the header's sha256
 * (a JSON document is rebuilt equal as JSON, not byte for byte: its records are counted instead). Otherwise
 * one LroError naming the cause; the caller caches nothing.
 */
function checkFetched(store: RemoteStore, rel: string, tmp: string, id: string): void {
  try {
    const rf = openResultFile(tmp);
    if (rf.header.id !== id) throw new FormatError(`has id ${rf.header.id} in its header, not ${id}`);
    checkKeyed(store, readHeaderLine(tmp).line, rf.header, rf.size);
    if (rf.header.content_type === 'json') {
      // rebuilt equal as JSON, not byte for byte, so no sha256 checks the records: their block hashes do
      checkRecordCount(rf);
      checkSpan(rf, rf.recordsOffset, rf.size);
    } else {
      // node:crypto only here, for a fetch: loading it costs every local read about 190 page faults (some 4 ms)
      const { createHash } = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
      const hash = createHash('sha256');
      for (const piece of originalPieces(rf, true)) hash.update(piece);
      if (hash.digest('hex') !== rf.header.sha256) throw new FormatError("does not match its header's sha256");
    }
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    const where = `s3://${store.bucket}/${keyOf(store, rel)}`;
    if (e.message === UNSIGNED) throw new LroError(`result ${id} at ${where} ${e.message}; nothing was cached`);
    const fix = 'the object was changed or damaged on the server; nothing was cached (offload the output again)';
    throw new LroError(`result ${id} fetched from ${where} ${e.message}: ${fix}`);
  }
}

/**
 * With the store's secret set (LRO_STORE_KEY), line 1 of an object must carry a MAC under it (format/mac.ts), and
 * be what its seal says (the MAC covers the seal, the seal the rest of line 1 and the block hashes); `size` is the
 * object's. Without the secret, nothing is asked. Throws BlockMismatch (a FormatError) saying what is wrong.
 */
function checkKeyed(store: RemoteStore, line: Buffer, header: Header, size: number): void {
  const key = storeKey(store.env);
  if (!key) return;
  if (!header.blocks) throw new BlockMismatch(UNSIGNED);
  checkHeaderSeal(line, header.blocks, size);
  checkLineMac(key, line);
}

/**
 * An object's bytes from..to (inclusive; to its end when it is shorter) by one Range GET, and its size. An answer of
 * another length than that is refused as a changed object is (tampered): a proxy or server that cuts or pads the
 * bytes it answers must not pass them for the object's.
 */
function rangedGet(store: RemoteStore, r: RemoteResult, from: number, to: number): { bytes: Buffer; size: number } {
  const got = s3Call<ObjectPart>({ op: 'getRange', bucket: store.bucket, key: r.key, from, to }, store.env, READ_WAIT_MS);
  const bytes = Buffer.from(got.bytes);
  const asked = Math.min(to + 1, got.size) - from;
  if (bytes.length !== asked) {
    throw tampered(store, r, new BlockMismatch(`was answered ${bytes.length} bytes for a ranged read of ${Number.isNaN(asked) ? 'some' : asked}`));
  }
  return { bytes, size: got.size };
}

/**
 * A copy in the cache (a whole result, or a part of it: `size` its object's), when the store's secret is set: its
 * line 1 is checked as a fetch's is (checkKeyed), as it may have been fetched before the secret was (one HMAC of the
 * line). Returns the path; throws the one line of `tampered` when the check fails.
 */
function keyedCopy(store: RemoteStore, r: { rel: string; id: string }, path: string, size?: number): string {
  if (!storeKey(store.env)) return path;
  try {
    const got = readHeaderLine(path);
    checkKeyed(store, got.line, parseHeader(got.line), size ?? got.size);
  } catch (e) {
    if (e instanceof FormatError) throw tampered(store, r, e);
    throw e;
  }
  return path;
}

/**
 * A part of an object that does not match its block hashes: one line naming the result and the object, and what
 * to do. Nothing of it has been shown or cached.
 */
function tampered(store: RemoteStore, r: { rel: string; id: string }, e: FormatError): LroError {
  const where = `s3://${store.bucket}/${keyOf(store, r.rel)}`;
  if (e.message === UNSIGNED) return new LroError(`result ${r.id} at ${where} ${e.message}; nothing of it was shown or cached`);
  const fix = `the object was changed on the server after it was stored; nothing of it was shown or cached (lro cat ${r.id} fetches it whole and checks it all; lro gc removes it once expired)`;
  return new LroError(`result ${r.id} at ${where} ${e.message}: ${fix}`);
}

/**
 * An object's start as a ranged read got it (line 1 and what follows), cut to what is checked: line 1 against its
 * seal and the object's size, then the records' whole blocks (one more Range GET for the first when the start does
 * not hold it all: a block larger than START_BYTES); what follows the last whole block is dropped. A result
 * without block hashes comes back as it is, `unchecked`. Throws the one-line error of `tampered` on a mismatch.
 */
function checkedStart(store: RemoteStore, r: RemoteResult, start: Buffer, size: number): { bytes: Buffer; unchecked: boolean } | null {
  const nl = start.indexOf(0x0a);
  const header = headerOf(start);
  if (!header) return null; // the whole object's check says why
  const b = header.blocks;
  try {
    checkKeyed(store, start.subarray(0, nl), header, size);
    if (!b) return { bytes: start, unchecked: true };
    checkHeaderSeal(start.subarray(0, nl), b, size);
    let records = start.subarray(nl + 1);
    if (b.bytes > 0 && records.length < Math.min(b.size, b.bytes)) records = rangedGet(store, r, nl + 1, nl + Math.min(b.size, b.bytes)).bytes;
    const whole = checkedBlocks(b, 0, records);
    return { bytes: Buffer.concat([start.subarray(0, nl + 1), records.subarray(0, whole?.end ?? 0)]), unchecked: false };
  } catch (e) {
    if (e instanceof FormatError) throw tampered(store, r, e);
    throw e;
  }
}

/**
 * Whether a result of the cache's `files/` (`path`, with its header) may be served: its object was seen in the
 * bucket within RECHECK_MS (the file's time: written by its fetch, its upload or the last check) and has not expired
 * since, else the bucket says it is still there (one HEAD; the time is then renewed). An object gone (another
 * machine's gc) drops the cached copy and its parts: false. A server that cannot answer leaves the copy served (it
 * was stored, and nothing says it was removed).
 */
export function stillStored(path: string, header: Header, nowMs: number): boolean {
  const where = remoteOf(path);
  if (!where || where.half !== 'files') return true;
  keyedCopy(where.store, { rel: where.rel, id: header.id }, path); // fetched before the store's secret was set?
  const st = statOrNull(path);
  const expires = Date.parse(header.expires_at);
  // seen lately, and not expired since (a gc anywhere may remove it once it is)
  if (st && nowMs - st.mtimeMs < RECHECK_MS && (nowMs < expires || st.mtimeMs >= expires)) return true;
  const { store, rel } = where;
  let there: boolean;
  try {
    there = s3Call<boolean>({ op: 'exists', bucket: store.bucket, key: keyOf(store, rel) }, store.env, RECHECK_WAIT_MS);
  } catch {
    return true;
  }
  if (there) {
    try {
      if (st) utimesSync(path, st.atime, new Date(nowMs));
    } catch {
      // asked again next time
    }
    return true;
  }
  rmSync(path, { force: true });
  dropPart(store, rel);
  return false;
}

/**
 * What fetchStart or fetchTail found: the whole result (cached), or a file of its start or its end only
 * (`partial`, holding records `held.from` to `held.to` whole), and the object's size.
 */
export interface StartOfResult {
  path: string;
  partial: boolean;
  size: number;
  held?: { from: number; to: number };
  /** A part of a result written before block hashes: not checked (a whole fetch is, by its sha256). */
  unchecked?: boolean;
}

/**
 * What a reader of a result's start needs of it, from its header: records 1..n (a number), or as many as the start
 * holds ('start': the reader stops inside them or asks for the whole), or more (null).
 */
export type StartNeed = (h: Header) => number | 'start' | null;

/**
 * For a reader that needs only a result's header and its first records (`need(header)` of them; null: all): the
 * whole file when it is cached, else the object's start (one Range GET, kept in `parts/`, never in `files/`).
 * A start that is the whole object is checked and cached as a fetch is; null when the start does not hold what is
 * needed, or the reader would reach the result's end (its end is checked there): the caller fetches the whole.
 */
export function fetchStart(
  store: RemoteStore,
  r: RemoteResult,
  need: StartNeed,
): StartOfResult | null {
  const path = join(store.files, ...r.rel.split('/'));
  if (isFile(path)) return { path: keyedCopy(store, r, path), partial: false, size: statOrNull(path)!.size };
  const part = join(store.parts, ...r.rel.split('/'));
  const kept = partOf(part);
  if (kept) keyedCopy(store, r, part, kept.size);
  const keptHeld = kept && startHolds(kept.bytes, need);
  if (keptHeld) return { path: part, partial: true, size: kept!.size, held: { from: 1, to: keptHeld }, unchecked: kept!.unchecked };
  const got = rangedGet(store, r, 0, START_BYTES - 1);
  const fetched = got.bytes;
  if (fetched.length >= got.size) {
    const tmp = join(openResultDir(store.files, r.session).dir, tempFileName(r.id, 'fetch'));
    try {
      writeFileSync(tmp, fetched, { mode: 0o600 });
      checkFetched(store, r.rel, tmp, r.id);
      renameSync(tmp, path);
    } finally {
      rmSync(tmp, { force: true });
    }
    return { path, partial: false, size: got.size };
  }
  const checked = checkedStart(store, r, fetched, got.size);
  const start = checked?.bytes;
  const held = start ? startHolds(start, need) : 0;
  if (!held) return null;
  mkdirSync(dirname(part), { recursive: true, mode: 0o700 });
  const tmp = `${part}.${process.pid}.part`;
  writeFileSync(tmp, start!.subarray(0, start!.lastIndexOf(0x0a) + 1), { mode: 0o600 }); // whole records only
  // the object's size (a result found by its pointer has no listing's), and whether the start was checked
  writeFileSync(`${tmp}.size`, `${got.size}${checked!.unchecked ? '' : ' checked'}\n`, { mode: 0o600 });
  renameSync(`${tmp}.size`, `${part}.size`);
  renameSync(tmp, part);
  return { path: part, partial: true, size: got.size, held: { from: 1, to: held }, unchecked: checked!.unchecked };
}

/**
 * A start kept in `parts/` and the size of its object; null when there is none (or no size beside it), or when it
 * was kept unchecked (by an lro before block hashes) from a result that has them: it is fetched again, checked.
 */
function partOf(part: string): { bytes: Buffer; size: number; unchecked: boolean } | null {
  try {
    const [sizeText, mark] = readFileSync(`${part}.size`, 'utf8').trim().split(' ');
    const size = Number(sizeText);
    if (!Number.isSafeInteger(size)) return null;
    const bytes = readFileSync(part);
    const unchecked = mark !== 'checked';
    return unchecked && headerOf(bytes)?.blocks ? null : { bytes, size, unchecked };
  } catch {
    return null;
  }
}

/**
 * How many records an object's start holds whole when they are what the reader needs, short of the last; else 0.
 */
function startHolds(start: Buffer, need: StartNeed): number {
  const header = headerOf(start);
  const n = header && need(header);
  if (!header || n === null || n === undefined) return 0;
  const held = Math.min(countNewlines(start.subarray(start.indexOf(0x0a) + 1)), header.count - 1);
  return held >= (n === 'start' ? 1 : n) && (n === 'start' || n < header.count) ? held : 0;
}

/** The header of an object's start; null when the start holds none (the whole object's check says why). */
function headerOf(start: Buffer): Header | null {
  const nl = start.indexOf(0x0a);
  if (nl < 0) return null;
  try {
    return parseHeader(start.subarray(0, nl));
  } catch {
    return null;
  }
}

/** The end of an object fetched for `read --tail`: enough for the last records a default budget shows. */
const TAIL_BYTES = 256 * 1024;
/** The start fetched beside it, for the header line alone (its slot, with the block hashes, is some 50 KB). */
const HEADER_BYTES = 64 * 1024;

/**
 * For `read --tail n` of a result not in the cache: its header, then its end from the start of the block that holds
 * its last TAIL_BYTES (two ranged GETs), both checked (format/blocks.ts), in a sparse file of the object's size,
 * `parts/<name>.tail` (the header line, zeros, the end where it is in the object), so the readers that seek from a
 * file's end run unchanged on it; it holds the last records whole (`held`). Null when the end does not hold n
 * records, or the object is small: the caller fetches the whole.
 */
export function fetchTail(store: RemoteStore, r: RemoteResult, n: number): StartOfResult | null {
  const path = join(store.files, ...r.rel.split('/'));
  if (isFile(path)) return { path: keyedCopy(store, r, path), partial: false, size: statOrNull(path)!.size };
  const first = rangedGet(store, r, 0, HEADER_BYTES - 1);
  const { bytes: start, size } = first;
  const header = headerOf(start);
  if (!header) return null;
  const line = start.subarray(0, start.indexOf(0x0a));
  const recordsOffset = line.length + 1;
  const b = header.blocks;
  let from = Math.max(start.length, size - TAIL_BYTES);
  if (b) from = recordsOffset + Math.floor((from - recordsOffset) / b.size) * b.size; // a block's start
  if (from <= start.length) return null;
  let end: Buffer;
  try {
    checkKeyed(store, line, header, size);
    if (b) checkHeaderSeal(line, b, size);
    end = rangedGet(store, r, from, size - 1).bytes;
    if (b && checkedBlocks(b, from - recordsOffset, end)?.end !== b.bytes) throw new BlockMismatch('does not end with its last block');
  } catch (e) {
    if (e instanceof FormatError) throw tampered(store, r, e);
    throw e;
  }
  if (end[end.length - 1] !== 0x0a) return null;
  const held = countNewlines(end.subarray(0, end.length - 1)); // the first record in it is cut by the range
  if (held < n || held >= header.count) return null;
  const file = `${join(store.parts, ...r.rel.split('/'))}.tail`;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.part`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, start, 0, recordsOffset, 0);
    ftruncateSync(fd, size);
    writeSync(fd, end, 0, end.length, size - end.length);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  return { path: file, partial: true, size, held: { from: header.count - held + 1, to: header.count }, unchecked: !b };
}

/**
 * The bucket's results as a listing of the cache's `files/` (newest first), for the questions across the store
 * (grep --all, completion): their files are there only once fetched (fetchListed).
 */
export function remoteListing(store: RemoteStore): ResultName[] {
  return listRemote(store).map((r) => {
    const parts = r.rel.split('/');
    const name = parts.pop()!;
    return { dir: join(store.files, ...parts), name, session: r.session, ...parseResultFileName(name)! };
  });
}

/** Fetches a result of remoteListing into the cache unless it is there; true when it was fetched now. */
export function fetchListed(store: RemoteStore, entry: { dir: string; name: string }): boolean {
  const path = join(entry.dir, entry.name);
  if (isFile(path)) return false;
  fetchResult(store, { rel: relative(store.files, path).split(sep).join('/') });
  return true;
}

/**
 * Finds the result with this id in the bucket: by its pointer (one GET); else, for an id at least as new as the
 * store's pointer mark (every result from then on has a pointer: pointersSince), none, with no listing; else (a
 * store written before pointers, an older id, or a pointer that names no result of this id) by listing the bucket;
 * null when there is none. A result found by its pointer has no size or time (NaN, 0): its object may even be gone
 * (S3Error 'missing' when fetched).
 */
export function findRemote(store: RemoteStore, id: string): RemoteResult | null {
  const ask = { op: 'getSmall', bucket: store.bucket, key: pointerKey(store, id) } as const;
  const rel = s3Call<string | null>(ask, store.env, READ_WAIT_MS)?.trim() ?? '';
  const place = placeOf(rel);
  if (place && parseResultFileName(place.name)?.id === id) {
    return { key: keyOf(store, rel), size: NaN, mtimeMs: 0, rel, id, session: place.session };
  }
  const since = pointersSince(store);
  if (since !== null && isUlid(id) && decodeTime(id) >= since) return null;
  return listRemote(store).find((r) => r.id === id) ?? null;
}

/** The key of the pointer to the result with this id. */
function pointerKey(store: RemoteStore, id: string): string {
  return keyOf(store, `${POINTERS_DIR}/${id}`);
}

/**
 * The store's pointer mark, `<prefix>/ids/.since`: the time (ms, as a ULID's) from which every result in the store
 * has a pointer, written once by the first lro that writes pointers and marks (If-None-Match: a mark is never
 * moved where the server honours it). Results with older ids may have none (a store written before pointers).
 */
const MARK = `${POINTERS_DIR}/.since`;

/** The mark as this machine saw it: kept beside the cache (it never changes), so it is fetched once. */
function markFile(store: RemoteStore): string {
  return join(store.root, 'ids.since');
}

function parseMark(text: string | null | undefined): number | null {
  const ms = Number((text ?? '').trim().split(/\s+/)[0]);
  return text && Number.isSafeInteger(ms) && ms >= 0 ? ms : null;
}

/** The store's pointer mark (ms), from the cache or one GET; null when the store has none (or it cannot say). */
function pointersSince(store: RemoteStore): number | null {
  const kept = parseMark(readOrNull(markFile(store)));
  if (kept !== null) return kept;
  const text = s3Call<string | null>({ op: 'getSmall', bucket: store.bucket, key: keyOf(store, MARK) }, store.env, READ_WAIT_MS);
  const ms = parseMark(text);
  if (ms !== null) keepMark(store, ms);
  return ms;
}

function keepMark(store: RemoteStore, ms: number): void {
  try {
    mkdirSync(store.root, { recursive: true, mode: 0o700 });
    const tmp = `${markFile(store)}.${process.pid}.part`;
    writeFileSync(tmp, `${ms}\n`, { mode: 0o600 });
    renameSync(tmp, markFile(store));
  } catch {
    // not kept: fetched again next time
  }
}

/** Failures that say nothing of what the server allows (s3-worker.ts causeOf): never remembered as a refusal. */
const TRANSIENT = new Set(['timeout', 'cut', 'unreachable', 'throttled']);

/** After the mark was refused (not by a 412), how long this machine leaves it before asking again. */
const MARK_RETRY_MS = 60 * 60_000;

/**
 * Marks the store, once (If-None-Match), as having a pointer for every result from now on: this lro writes one for
 * each, or deletes the result (publishResult). A machine that has seen the mark asks nothing; a failure only leaves
 * readers listing the bucket for an unknown id, as before. A refusal (a server without conditional writes, a
 * denied PUT) is remembered beside the cache for MARK_RETRY_MS, so that not every offload pays a request for it; a
 * time-out, a cut connection or throttling is not.
 */
function markPointers(store: RemoteStore): void {
  if (existsSync(markFile(store))) return;
  const refused = `${markFile(store)}.refused`;
  const last = lstatSync(refused, { throwIfNoEntry: false });
  if (last && Date.now() - last.mtimeMs < MARK_RETRY_MS) return;
  try {
    const now = Date.now();
    const body = `${now} ${new Date(now).toISOString()}\n`;
    const put = { op: 'putSmall', bucket: store.bucket, key: keyOf(store, MARK), body, ifNoneMatch: true } as const;
    if (s3Call<boolean>(put, store.env, READ_WAIT_MS)) keepMark(store, now);
    else pointersSince(store); // another machine marked it first: its mark is the store's
  } catch (e) {
    if (TRANSIENT.has((e as { kind?: string }).kind ?? '')) return; // the next offload asks again
    try {
      mkdirSync(store.root, { recursive: true, mode: 0o700 });
      writeFileSync(refused, `${new Date().toISOString()}\n`, { mode: 0o600 });
    } catch {
      // not remembered: the next offload asks again
    }
  }
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/**
 * Writes the pointer of a result just uploaded (the SDK retries it), with its entry in the store's index when given
 * (the two PUTs at once). A pointer that cannot be written is thrown: the caller deletes the result, as the store's
 * mark promises every new result a pointer. An entry that cannot be written is only missed: a listing fetches that
 * header, and adds it to the index (keepIndex).
 */
function writePointer(store: RemoteStore, rel: string, entry: { key: string; body: string } | null): void {
  const id = parseResultFileName(rel.split('/').pop()!)?.id;
  if (!id) return;
  const bodies = [{ key: pointerKey(store, id), body: `${rel}\n` }, ...(entry ? [entry] : [])];
  const failed = s3Call<({ error: string; code: string } | null)[]>({ op: 'putSmalls', bucket: store.bucket, bodies }, store.env, READ_WAIT_MS);
  if (failed[0] !== null) throw new S3Error(failed[0].error, failed[0].code);
}

/**
 * A result's entry in the store's index, as an addition named by its id: its header line (the file just uploaded)
 * and its object's size and ETag. None when the server gave no ETag (the entry could not tell the object).
 */
function indexAddition(store: RemoteStore, rel: string, path: string, etag: string | null): { key: string; body: string } | null {
  const id = parseResultFileName(rel.split('/').pop()!)?.id;
  if (!etag || !id) return null;
  try {
    const head = readHeaderLine(path);
    return addition(store, [entryOf(rel, head.line, { size: head.size, etag })], id);
  } catch {
    return null;
  }
}

/** The newest result in the bucket (of one session when given). */
export function newestRemote(store: RemoteStore, session?: string, back = 0): RemoteResult | null {
  return listRemote(store).filter((r) => session === undefined || r.session === session)[back] ?? null;
}

/**
 * Uploads a result just committed in a remote store's cache; a local store is left alone. If the upload fails
 * the cached file goes too (a result is in the cache only when it is in the bucket) and the error is thrown.
 */
export function publishResult(path: string): void {
  const where = remoteOf(path);
  if (!where || where.half !== 'files') return;
  const { store, rel } = where;
  let etag: string | null;
  try {
    etag = s3Call<string | null>({ op: 'put', bucket: store.bucket, key: keyOf(store, rel), path }, store.env, TRANSFER_WAIT_MS);
  } catch (e) {
    dropCached(path);
    throw e;
  }
  try {
    // after the result is complete: a pointer never names a result not there, nor does the index
    writePointer(store, rel, indexAddition(store, rel, path, etag));
  } catch (e) {
    // a result without its pointer would be no result by its id: it goes, and the caller gives the output as on
    // any failed write (a result whose delete fails too has no pointer: found by ls, removed by gc when it expires)
    dropCached(path);
    try {
      s3Call({ op: 'delete', bucket: store.bucket, key: keyOf(store, rel) }, store.env, READ_WAIT_MS);
    } catch {
      // the server is down: see above
    }
    throw e;
  }
  markPointers(store);
}

function dropCached(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/** Keys one DeleteObjects request deletes (S3's most). */
const DELETE_BATCH = 1000;
/** A DeleteObjects request's wait: gc is no reader bound to answer in 15 s, and 1,000 deletes take a while. */
const DELETE_WAIT_MS = 300_000;
/** What removeRemoteMany did for a heads file's object: deleted (null), or the error a single delete would throw. */
const deletedAhead = new Map<string, Error | null>();

/**
 * The pointers gc's listing found (listed before the results), per store (by its `heads/`), and the orphans among
 * them: a pointer is written after its result, so one listed before the results whose result is not in the
 * listing after is left by a delete that failed or by an older lro, and names no result. `removed`: the orphans
 * deleted so far.
 */
const pointerScans = new Map<string, { store: RemoteStore; ids: Set<string>; orphans: string[]; removed: number }>();

/** Whether a result's pointer is known to exist (true when gc's listing did not look: delete it to be sure). */
function hasPointer(store: RemoteStore, id: string): boolean {
  return pointerScans.get(store.heads)?.ids.has(id) ?? true;
}

/**
 * gc's victims deleted from the bucket ahead of gc's own removal, 1,000 keys a request (DeleteObjects), so that
 * removeRemote then only tidies the cache; a server that refuses DeleteObjects leaves them to removeRemote's single
 * deletes. Only heads files of lro objects are deleted (as removeRemote would), each still the file gc judged;
 * with each result its pointer when there is one, and the orphan pointers of the stores gc listed.
 */
export function removeRemoteMany(judged: { path: string; size: number; mtimeMs: number }[]): void {
  const byStore = new Map<RemoteStore, { key: string; path: string }[]>();
  const listOf = (store: RemoteStore) => byStore.get(store) ?? byStore.set(store, []).get(store)!;
  for (const j of judged) {
    const where = remoteOf(j.path);
    if (!where || where.half !== 'heads' || !isLroObject(where.rel.split('/').pop()!)) continue;
    const st = statOrNull(j.path);
    if (!st?.isFile() || st.size !== j.size || st.mtimeMs !== j.mtimeMs) continue; // gc leaves it alone
    const list = listOf(where.store);
    list.push({ key: keyOf(where.store, where.rel), path: j.path });
    const id = parseResultFileName(where.rel.split('/').pop()!)?.id;
    if (id && hasPointer(where.store, id)) list.push({ key: pointerKey(where.store, id), path: '' }); // goes with it
  }
  for (const { store, orphans } of pointerScans.values()) {
    for (const id of orphans) listOf(store).push({ key: pointerKey(store, id), path: '' });
  }
  for (const [store, items] of byStore) {
    for (let i = 0; i < items.length; i += DELETE_BATCH) {
      if (deleteBatch(store, items.slice(i, i + DELETE_BATCH))) continue;
      deleteOrphansOneByOne(store); // refused: the results one at a time by removeRemote, the orphans here
      break;
    }
  }
}

/** A server without DeleteObjects: each orphan pointer by one DELETE; one that fails stays for the next gc. */
function deleteOrphansOneByOne(store: RemoteStore): void {
  const scan = pointerScans.get(store.heads);
  for (const id of scan?.orphans ?? []) {
    try {
      s3Call({ op: 'delete', bucket: store.bucket, key: pointerKey(store, id) }, store.env, READ_WAIT_MS);
      scan!.removed++;
    } catch {
      // the next gc finds it again
    }
  }
}

/**
 * The orphan pointers gc removed from the store of `dir` (the heads folder it listed), or with `dryRun` would
 * remove; 0 for a local store.
 */
export function pointersRemoved(dir: string, dryRun: boolean): number {
  const where = remoteOf(dir);
  const scan = where && pointerScans.get(where.store.heads);
  return !scan ? 0 : dryRun ? scan.orphans.length : scan.removed;
}

/** One DeleteObjects request, its outcome per heads file in deletedAhead; false when the server refused it. */
function deleteBatch(store: RemoteStore, items: { key: string; path: string }[]): boolean {
  let answer: DeleteManyAnswer;
  try {
    const ask = { op: 'deleteMany', bucket: store.bucket, keys: items.map((x) => x.key) } as const;
    answer = s3Call<DeleteManyAnswer>(ask, store.env, DELETE_WAIT_MS);
  } catch (e) {
    for (const x of items) if (x.path) deletedAhead.set(x.path, e as Error); // the server down or denying: each says
    return true;
  }
  if ('refused' in answer) return false;
  const failed = new Map(answer.failed.map((f) => [f.key, f.error]));
  const scan = pointerScans.get(store.heads);
  const orphans = new Set((scan?.orphans ?? []).map((id) => pointerKey(store, id)));
  for (const x of items) if (orphans.has(x.key) && !failed.has(x.key)) scan!.removed++;
  for (const x of items.filter((i) => i.path !== '')) {
    const error = failed.get(x.key);
    deletedAhead.set(x.path, error === undefined ? null : new LroError(`S3 could not delete ${x.key} (${error})`));
  }
  return true;
}

/** Removes the object a heads file stands for, and the cached copy; called by gc before it removes the file. */
export function removeRemote(path: string): void {
  const where = remoteOf(path);
  if (!where || where.half !== 'heads' || !isLroObject(where.rel.split('/').pop()!)) return;
  const { store, rel } = where;
  const ahead = deletedAhead.get(path);
  if (ahead) throw ahead;
  if (ahead === undefined) deleteResult(store, rel, (id) => hasPointer(store, id)); // not deleted by removeRemoteMany
  rmSync(join(store.files, ...rel.split('/')), { force: true });
  dropPart(store, rel);
}

/** Removes the start of a result kept in `parts/`, and its size. */
function dropPart(store: RemoteStore, rel: string): void {
  const part = join(store.parts, ...rel.split('/'));
  rmSync(part, { force: true });
  rmSync(`${part}.size`, { force: true });
  rmSync(`${part}.tail`, { force: true });
}

/**
 * Deletes one object (one DELETE) and, for a result, its pointer after it when `pointed` says it has one (a pointer
 * left is an orphan the next gc removes).
 */
function deleteResult(store: RemoteStore, rel: string, pointed: (id: string) => boolean = () => true): void {
  s3Call({ op: 'delete', bucket: store.bucket, key: keyOf(store, rel) }, store.env, READ_WAIT_MS);
  const id = parseResultFileName(rel.split('/').pop()!)?.id;
  if (!id || !pointed(id)) return;
  try {
    s3Call({ op: 'delete', bucket: store.bucket, key: pointerKey(store, id) }, store.env, READ_WAIT_MS);
  } catch {
    // a pointer whose result is gone reads as no result
  }
}

/** A header file to fetch: the object's key, where its file goes, the object's size and time. */
type HeadItem = { key: string; path: string; size: number; mtimeMs: number; etag?: string };

/** Header files `ls` has not fetched yet (lazy syncHeads), newest first, by path; fetched when a row needs one. */
const pending = new Map<string, HeadItem & { store: RemoteStore; entry: ResultName }>();

/**
 * Brings `heads/` in line with the bucket: a sparse file (header line, then zeros to the object's size, the
 * object's time) for each result, fetched by a small Range GET when new; those no longer in the bucket removed.
 * For `ls` it fetches none: the new ones wait in `pending` for fetchPendingHead, as a row needs its header.
 */
export function syncHeads(store: RemoteStore, listing: ListingFor = 'gc'): void {
  const lazy = listing === 'ls';
  const pointers = listing === 'gc' ? listPointers(store) : null; // before the results (see pointerScans)
  const listedAt = Date.now();
  linesFromIndex.clear(); // an earlier listing's (a long-lived process: the MCP server's workers)
  const { results, refs, index: indexObjects } = listLro(store, !lazy); // ls lists results only
  const listed = new Map(results.map((r) => [r.rel, r]));
  runs.set(store, { listed, listedAt, indexObjects, entries: null, read: [], fetched: new Set() });
  if (pointers) {
    const live = new Set(results.map((r) => r.id));
    const orphans = [...pointers].filter((id) => !live.has(id));
    pointerScans.set(store.heads, { store, ids: pointers, orphans, removed: 0 });
  }
  const remote = lazy ? results : [...results, ...refs]; // a ref's whole text is its "header line": gc removes it
  openResultDir(store.heads, null);
  const wanted = new Set<string>();
  const missing: (HeadItem & { result: RemoteResult | RemoteRef })[] = [];
  // per object as little as can be: a folder's names read once, a file looked at only when it is there, a
  // session's folder opened once (10,000 results: 10,000 lstats and folder checks were a second of a cold ls)
  const folders = new Map<string, Set<string>>();
  for (const r of remote) {
    wanted.add(r.rel);
    const path = join(store.heads, ...r.rel.split('/'));
    const folder = dirname(path);
    let names = folders.get(folder);
    if (!names) folders.set(folder, (names = namesIn(folder, () => openResultDir(store.heads, r.session))));
    const st = names.has(basename(path)) ? statOrNull(path) : null;
    if (st && st.size === r.size) continue;
    missing.push({ key: r.key, path, size: r.size, mtimeMs: r.mtimeMs, etag: r.etag, result: r });
  }
  // the headers the store's index holds (once there are enough to fetch for its few GETs to pay): from it
  const index = missing.length >= INDEX_MIN ? loadIndex(store) : null;
  if (index && !lazy) missing.splice(0, missing.length, ...missing.filter((m) => !headFromIndex(store, index, m)));
  if (lazy) for (const [path, item] of pending) if (item.store.heads === store.heads) pending.delete(path); // an earlier listing's
  for (const m of lazy ? missing : []) {
    const name = basename(m.path);
    const entry = { dir: dirname(m.path), name, session: m.result.session, ...parseResultFileName(name)! };
    pending.set(m.path, { key: m.key, path: m.path, size: m.size, mtimeMs: m.mtimeMs, etag: m.etag, store, entry });
  }
  // in batches, each bounded in time as one request is: a first listing of a large bucket takes as long as it takes
  for (let i = 0; i < missing.length && !lazy; i += HEADS_BATCH) {
    const items = missing.slice(i, i + HEADS_BATCH).map(({ key, path, size, mtimeMs }) => ({ key, path, size, mtimeMs }));
    s3Call({ op: 'heads', bucket: store.bucket, items }, store.env, READ_WAIT_MS);
    countFetched(store, items);
  }
  for (const rel of localResults(store.heads)) {
    if (!wanted.has(rel) && !(lazy && isRefName(rel))) rmSync(join(store.heads, ...rel.split('/')), { force: true });
  }
}

/** The names in a folder of `heads/`, opened (created, checked) first by `open`; none when it cannot be read. */
function namesIn(folder: string, open: () => void): Set<string> {
  open();
  try {
    return new Set(readdirSync(folder));
  } catch {
    return new Set();
  }
}

function isRefName(rel: string): boolean {
  return parseDedupeFileName(rel.split('/').pop()!)?.kind === 'ref';
}

/**
 * The results of a listing of store with its header files not fetched yet (lazy syncHeads) among them, newest
 * first; those of another store listed in this process are not its.
 */
export function withPendingHeads(store: RemoteStore, listing: StoreListing): StoreListing {
  const added = [...pending.values()].filter((item) => item.store.heads === store.heads).map((item) => item.entry);
  if (added.length === 0) return listing;
  const results = [...listing.results, ...added].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  return { ...listing, results };
}

/** Whether a listed result's header file is not fetched yet (ls: a row past its page is counted by its name). */
export function isPendingHead(entry: { dir: string; name: string }): boolean {
  return pending.has(join(entry.dir, entry.name));
}

/**
 * Header files fetched together when a row needs one: this one and the next not fetched yet (newest first), 16 at
 * first (one request each, in parallel) and twice as many each time after, up to HEADS_BATCH.
 */
let pendingWindow = 16;

/** Fetches the header file of a listed result (with the next ones not fetched yet), 16 requests at a time. */
export function fetchPendingHead(entry: { dir: string; name: string }): void {
  const first = pending.get(join(entry.dir, entry.name));
  if (!first) return;
  const batch: HeadItem[] = [];
  for (const [path, item] of pending) {
    if (batch.length === 0 && path !== first.path) continue; // pending is in listing order: newest first
    if (item.store !== first.store) continue;
    batch.push({ key: item.key, path: item.path, size: item.size, mtimeMs: item.mtimeMs, etag: item.etag });
    if (batch.length === pendingWindow) break;
  }
  const { store } = first;
  const index = runs.get(store)?.entries;
  const items = index ? batch.filter((b) => !lineFromIndex(store, index, b)) : batch;
  if (items.length > 0) s3Call({ op: 'heads', bucket: store.bucket, items }, store.env, READ_WAIT_MS);
  countFetched(store, items);
  for (const b of batch) pending.delete(b.path);
  pendingWindow = Math.min(pendingWindow * 2, HEADS_BATCH);
}

/**
 * The store's index of header lines (store/remote-index.ts): read once a listing has at least INDEX_MIN headers to
 * fetch (its few GETs then pay), so such a listing takes from it every header whose entry is of the listed object.
 */
const INDEX_MIN = 64;
/** Index objects a listing that read them folds into one (a base), so reading the index stays a few GETs. */
const COMPACT_AT = 32;

/** What this run's listing of a store saw and did, for keepIndex at its end. */
interface IndexRun {
  /** The results as listed, by path in the store; and when (before the listing). */
  listed: Map<string, RemoteResult>;
  listedAt: number;
  /** The index's objects the listing saw (undefined: a store at a bucket's root, whose listing has not them). */
  indexObjects?: S3Object[];
  /** The index as read (null: not read), and the keys of its objects read. */
  entries: Map<string, IndexEntry> | null;
  read: string[];
  /** When the additions holding entries were written (kept: an upload's entry is added when it ends). */
  addedAt?: Map<string, number>;
  /** Results whose header this run fetched by a ranged GET: what the index lacked. */
  fetched: Set<string>;
}
const runs = new Map<RemoteStore, IndexRun>();

function countFetched(store: RemoteStore, items: { path: string }[]): void {
  const run = runs.get(store);
  for (const i of items) run?.fetched.add(relative(store.heads, i.path).split(sep).join('/'));
}

/** The store's index (a listing of index/ and a GET of each object), or an empty one when it cannot be read. */
function loadIndex(store: RemoteStore): Map<string, IndexEntry> {
  const run = runs.get(store)!;
  if (run.entries) return run.entries;
  try {
    const { entries, read, addedAt } = readIndex(store, run.indexObjects ?? listIndex(store));
    Object.assign(run, { entries, read, addedAt });
  } catch {
    run.entries = new Map(); // none, or the server failed: every header is fetched, and nothing is compacted
  }
  return run.entries!;
}

/**
 * Writes the header file of a listed object from the index, when its entry is of that object (size and ETag);
 * false when it has none.
 */
function headFromIndex(store: RemoteStore, index: Map<string, IndexEntry>, item: HeadItem): boolean {
  const e = index.get(relative(store.heads, item.path).split(sep).join('/'));
  if (!e || !sameObject(e, item) || !keyedEntry(e, storeKey(store.env))) return false;
  const line = Buffer.from(`${e.line}\n`);
  if (line.length > item.size) return false;
  writeHeaderFile(item.path, line, item.size, item.mtimeMs);
  return true;
}

/**
 * Header lines `ls` took from the store's index, by the path of their (unwritten) header file: ls reads them from
 * here (readListed), as writing 10,000 header files and reading them back was most of a cold ls's own time. A
 * later listing takes them from the index again.
 */
const linesFromIndex = new Map<string, HeaderLine>();

/** Keeps a pending result's header line from the index when its entry is of the listed object; false when none. */
function lineFromIndex(store: RemoteStore, index: Map<string, IndexEntry>, item: HeadItem): boolean {
  const e = index.get(relative(store.heads, item.path).split(sep).join('/'));
  if (!e || !sameObject(e, item) || Buffer.byteLength(e.line) >= item.size || !keyedEntry(e, storeKey(store.env))) return false;
  linesFromIndex.set(item.path, { line: Buffer.from(e.line), size: item.size, mtimeMs: item.mtimeMs, dev: 0, ino: 0 });
  return true;
}

/** Line 1 of a listed result, for ls: from the store's index when it gave it, else from its file (readResult). */
export function readListed(entry: ResultName): ScannedResult | DamagedResult | null {
  const got = linesFromIndex.get(join(entry.dir, entry.name));
  if (got) return resultOfLine(entry, got); // its MAC checked when taken from the index (keyedEntry)
  const r = readResult(entry);
  const store = r?.kind === 'result' ? remoteOf(r.path)?.store : undefined;
  if (!store || !storeKey(store.env)) return r;
  try {
    // a header file (sparse: the object's size) of a ranged GET: with the secret, checked as a fetch is; one written
    // from the index has no block hashes (its entry's MAC was checked then: keyedEntry), nor has an older lro's
    // result's (refused when it is read)
    const head = readHeaderLine(r!.path);
    if (!head.line.includes(',"blocks":{"size":')) return r;
    checkKeyed(store, head.line, parseHeader(head.line), head.size);
    return r;
  } catch (e) {
    if (e instanceof FormatError) return damaged(entry, e.message);
    throw e;
  }
}

/**
 * Keeps the store's index current after a listing (ls, gc) of a remote store `dir` (its `heads/`): the headers it had
 * to fetch because the index lacked them are added (one object); when they are many, or the index has become many
 * objects, or gc removed results it holds, its objects read are compacted into one base of what is still true
 * (remote-index.ts: kept). A gc that emptied the store leaves no index. Best effort: a store this machine may not
 * write to, or a server that fails, keeps the index it had.
 */
export function keepIndex(dir: string, gc = false): void {
  const where = remoteOf(dir);
  if (!where || where.half !== 'heads') return;
  const { store } = where;
  const run = runs.get(store);
  if (!run) return;
  const headOf = (rel: string) => join(store.heads, ...rel.split('/'));
  // what gc removed: listed, and its header file gone (gc removes it once the object is deleted)
  const removed = new Set(gc ? [...run.listed.keys()].filter((rel) => !isFile(headOf(rel))) : []);
  const added: IndexEntry[] = [];
  for (const rel of run.fetched) {
    try {
      const head = readHeaderLine(headOf(rel));
      const o = run.listed.get(rel);
      if (o && !removed.has(rel)) added.push(entryOf(rel, head.line, { size: head.size, etag: o.etag, mtimeMs: o.mtimeMs }));
    } catch {
      // removed since, or damaged: not in the index
    }
  }
  if (indexRefused(store)) {
    runs.delete(store);
    return; // this machine may not write it (read-only credentials): not asked again for now
  }
  if (removed.size > 0 && !run.entries) loadIndex(store);
  runs.delete(store);
  if (!run.entries) return; // a small listing, the index not read: what it fetched is not worth a write
  const read = run.read;
  const dropped = [...removed].some((rel) => run.entries!.has(rel)); // gc removed results the index holds
  if (!dropped && added.length < INDEX_MIN && read.length < COMPACT_AT) {
    if (addToIndex(store, added) === 'refused') rememberIndexRefused(store);
    return;
  }
  const entries = new Map(kept(run.entries.values(), run.listed, (rel) => removed.has(rel), run.listedAt, run.addedAt).map((e) => [e.rel, e]));
  for (const e of added) entries.set(e.rel, e);
  if (entries.size === 0 && read.length === 0) return;
  if (compactIndex(store, [...entries.values()], read, join(store.root, `.index.${process.pid}.put.gz`)) === 'refused') rememberIndexRefused(store);
}

/**
 * A write to the store's index that was refused (read-only credentials, a denying policy) is remembered beside the
 * cache for MARK_RETRY_MS: a listing then writes none, silently, instead of paying a refused PUT each time (the index
 * is a shortcut; another machine keeps it). One that failed otherwise (a time-out, a server error) is not: the next
 * listing writes it.
 */
function indexRefusedFile(store: RemoteStore): string {
  return join(store.root, 'index.refused');
}

function indexRefused(store: RemoteStore): boolean {
  const last = lstatSync(indexRefusedFile(store), { throwIfNoEntry: false });
  return last !== undefined && Date.now() - last.mtimeMs < MARK_RETRY_MS;
}

function rememberIndexRefused(store: RemoteStore): void {
  try {
    mkdirSync(store.root, { recursive: true, mode: 0o700 });
    writeFileSync(indexRefusedFile(store), `${new Date().toISOString()}\n`, { mode: 0o600 });
  } catch {
    // not remembered: the next listing tries again
  }
}

/** A result or a dedupe ref: the only objects lro lists, mirrors or deletes. */
function isLroObject(name: string): boolean {
  return parseResultFileName(name) !== null || parseDedupeFileName(name)?.kind === 'ref';
}

/** The results and refs under a cache half (or the files `accept` names), as paths relative to it. */
function localResults(root: string, accept = isLroObject): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const n of names) {
      if (accept(n)) out.push(rel + n);
      else if (depth < 2 && (depth === 1 || n === SESSIONS_DIR)) walk(join(dir, n), `${rel}${n}/`, depth + 1);
    }
  };
  walk(root, '', 0);
  return out;
}

function statOrNull(path: string): import('node:fs').Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

function isFile(path: string): boolean {
  return statOrNull(path)?.isFile() ?? false;
}

function cacheLimit(env: NodeJS.ProcessEnv): number {
  const set = env.LRO_S3_CACHE_MAX;
  const v = Number(set);
  return set !== undefined && set !== '' && Number.isFinite(v) && v >= 0 ? v : CACHE_MAX_BYTES;
}

/**
 * Removes the least recently fetched results of the cache until the rest fit in `limit` bytes; `keep` (the one
 * just fetched) stays. Every result is in the bucket, so nothing is lost: it is fetched again when read.
 */
export function trimCache(store: RemoteStore, limit: number, keep?: string): number {
  const within = (half: string) =>
    localResults(half)
      .filter((rel) => rel.endsWith('.jsonl'))
      .map((rel) => join(half, ...rel.split('/')));
  const isTail = (n: string) => n.endsWith('.tail') && isLroObject(n.slice(0, -'.tail'.length));
  const tails = localResults(store.parts, isTail).map((rel) => join(store.parts, ...rel.split('/')));
  const files = [...within(store.files), ...within(store.parts), ...tails].map((path) => {
    const st = statOrNull(path);
    const size = !st ? 0 : path.endsWith('.tail') ? st.blocks * 512 : st.size; // sparse: the blocks it uses
    return { path, size, time: st ? Math.max(st.atimeMs, st.mtimeMs) : 0 };
  });
  let total = files.reduce((n, f) => n + f.size, 0);
  let freed = 0;
  for (const f of files.sort((a, b) => a.time - b.time)) {
    if (total <= limit) break;
    if (f.path === keep) continue;
    rmSync(f.path, { force: true });
    rmSync(`${f.path}.size`, { force: true }); // beside a start kept in parts/
    total -= f.size;
    freed += f.size;
  }
  return freed;
}

/** The cache's own trim for `lro gc`: to LRO_S3_CACHE_MAX. */
export function trimCacheFor(path: string): void {
  const where = remoteOf(path);
  if (where) trimCache(where.store, cacheLimit(where.store.env));
}

/**
 * A path as a user should see it: in a remote store's cache, the s3:// URL of the store or of the object (a header
 * file of `heads/` holds zeros after its first line: its path must not be read as the result's).
 */
export function shownStore(path: string): string {
  const where = remoteOf(path);
  if (!where) return path;
  const { store, rel } = where;
  return rel ? `s3://${store.bucket}/${keyOf(store, rel)}` : store.url;
}

/** A file of a folder of a remote store's cache: the store and the file's path relative to the store. */
function inFolder(dir: string, name: string): { store: RemoteStore; rel: string } | null {
  const where = remoteOf(dir);
  if (!where || where.half !== 'files') return null;
  return { store: where.store, rel: where.rel ? `${where.rel}/${name}` : name };
}

/**
 * Dedupe across machines: the result the bucket's ref for `key` (in the folder `dir`) names, fetched into the
 * cache, so the caller can write the ref beside it and findStored judges it as a local one; null when the bucket
 * has none (or the store is local).
 */
export function pullRemoteRef(dir: string, key: string): { id: string; name: string } | null {
  const ref = inFolder(dir, refFileName(key));
  if (!ref) return null;
  const { store } = ref;
  const ask = { op: 'getSmall', bucket: store.bucket, key: keyOf(store, ref.rel) } as const;
  const text = s3Call<string | null>(ask, store.env, READ_WAIT_MS);
  const name = text?.trim() ?? '';
  const parsed = parseResultFileName(name);
  const result = parsed && inFolder(dir, name);
  if (!parsed || !result) return null;
  const head = { op: 'exists', bucket: store.bucket, key: keyOf(store, result.rel) } as const;
  if (!s3Call<boolean>(head, store.env, READ_WAIT_MS)) return null;
  fetchResult(store, result);
  return { id: parsed.id, name };
}

/**
 * Points the bucket's ref for `key` at the result just uploaded (`path`), unless another machine's ref is there: a
 * conditional write (If-None-Match) where the server honours it; where not (s3rver), pullRemoteRef's look just
 * before the upload is what keeps two identical outputs to one object, and two offloads racing may both store.
 * A 412 (another machine stored the same output first) makes that machine's result the answer: it is fetched,
 * `adopt` judges it (as a local dedupe does) and, when it takes it, this result's object and file go. Returns what
 * `adopt` returned, or null when this result stays.
 */
export function publishRef<T>(
  dir: string,
  key: string,
  path: string,
  adopt: (won: { id: string; name: string }) => T | null,
): T | null {
  const ref = inFolder(dir, refFileName(key));
  const own = inFolder(dir, basename(path));
  if (!ref || !own) return null;
  const { store } = ref;
  const body = `${basename(path)}\n`;
  const put = { op: 'putSmall', bucket: store.bucket, key: keyOf(store, ref.rel), body, ifNoneMatch: true } as const;
  try {
    if (s3Call<boolean>(put, store.env, READ_WAIT_MS)) return null;
    const won = pullRemoteRef(dir, key);
    const kept = won && won.name !== basename(path) ? adopt(won) : null;
    if (kept) dropOwn(store, own.rel, path);
    return kept;
  } catch {
    return null; // a ref is only a shortcut: without it the same output is stored again
  }
}

/**
 * Removes a result this machine just uploaded and another's replaced, with its entry in the index; left in place if
 * the delete fails.
 */
function dropOwn(store: RemoteStore, rel: string, path: string): void {
  try {
    deleteResult(store, rel);
    rmSync(path, { force: true });
    const id = parseResultFileName(rel.split('/').pop()!)!.id;
    s3Call({ op: 'delete', bucket: store.bucket, key: addition(store, [], id).key }, store.env, READ_WAIT_MS);
  } catch {
    // an object no ref names: gc removes it when it expires (an entry left names no listed object: never used)
  }
}
