// Scanning the store, shared by `lro ls` and `lro gc`: one readdir that sorts entries by what they are to lro,
// then line 1 of each result (never its records). Nothing here follows a symlink: entries are classified by
// their own type, headers are read with O_NOFOLLOW, and every fact carries the inode it was read from so gc can
// check, just before unlinking, that the name still points at the file it judged.
import { closeSync, lstatSync, openSync, readdirSync, readSync, constants as fsc } from 'node:fs';
import { join } from 'node:path';
import { FormatError, HEADER_TYPE, parseHeader, type Header } from '../format/header.js';
import { isTempFileName, parseResultFileName } from '../format/naming.js';
import { readHeaderLine } from '../format/reader.js';

/** A directory entry named like a result (`lro-<operation>-<id>.jsonl`) that is a regular file. */
export interface ResultName {
  name: string;
  id: string;
  operation: string;
}

/** An entry lro does not own or will not open, and why; reported, never touched. */
export interface ForeignEntry {
  name: string;
  why: string;
}

/** The store's entries by kind, from names and entry types alone (no file is opened). */
export interface StoreListing {
  /** Newest first (ids are ULIDs, so by time). */
  results: ResultName[];
  temps: string[];
  foreign: ForeignEntry[];
}

/** What a file's identity was when it was judged. */
export interface FileFacts {
  path: string;
  size: number;
  mtimeMs: number;
  dev: number;
  ino: number;
}

/** A result whose header parsed: the header, its raw line (for `ls --json`) and the file's facts. */
export interface ScannedResult extends FileFacts {
  kind: 'result';
  name: string;
  id: string;
  header: Header;
  line: Buffer;
  createdMs: number;
  expiresMs: number;
}

/** A file named like a result whose header lro cannot use. */
export interface DamagedResult {
  kind: 'damaged';
  name: string;
  id: string;
  path: string;
  reason: string;
  /** Facts from lstat; null when even that failed. */
  facts: FileFacts | null;
  /** Line 1 starts as lro writes it, so the file is lro's own, only damaged or from another lro version. */
  lroContent: boolean;
}

/** Lists the store's entries by kind; names it does not own land in `foreign`. */
export function listStore(dir: string): StoreListing {
  const results: ResultName[] = [];
  const temps: string[] = [];
  const foreign: ForeignEntry[] = [];
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const parsed = parseResultFileName(d.name);
    if (parsed) {
      if (d.isFile()) results.push({ name: d.name, ...parsed });
      else foreign.push({ name: d.name, why: d.isSymbolicLink() ? 'a symlink named like a result; lro never follows symlinks' : 'named like a result but not a regular file' });
    } else if (isTempFileName(d.name)) {
      if (d.isFile()) temps.push(d.name);
      else foreign.push({ name: d.name, why: 'named like a temporary file but not a regular file' });
    } else {
      foreign.push({ name: d.name, why: 'not an lro name' });
    }
  }
  results.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  return { results, temps, foreign };
}

/** How every header lro writes begins (serializeHeader puts `type` first). */
const LRO_PREFIX = Buffer.from(`{"type":${JSON.stringify(HEADER_TYPE)}`);

/** Facts of a path from lstat (never follows a symlink); null if it is gone. */
export function lstatFacts(path: string): (FileFacts & { isFile: boolean }) | null {
  try {
    const st = lstatSync(path);
    return { path, size: st.size, mtimeMs: st.mtimeMs, dev: st.dev, ino: st.ino, isFile: st.isFile() };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

function startsLikeLro(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    const buf = Buffer.alloc(LRO_PREFIX.length);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return n === buf.length && buf.equals(LRO_PREFIX);
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

function damaged(dir: string, entry: ResultName, reason: string, line?: Buffer): DamagedResult | null {
  const path = join(dir, entry.name);
  let facts: FileFacts | null = null;
  try {
    const st = lstatFacts(path);
    if (!st) return null; // removed since the listing (another gc): nothing to report
    facts = st.isFile ? { path, size: st.size, mtimeMs: st.mtimeMs, dev: st.dev, ino: st.ino } : null;
  } catch {
    facts = null;
  }
  const lroContent = facts !== null && (line ? line.subarray(0, LRO_PREFIX.length).equals(LRO_PREFIX) : startsLikeLro(path));
  return { kind: 'damaged', name: entry.name, id: entry.id, path, reason, facts, lroContent };
}

/**
 * Reads line 1 of one result and checks it. Returns null when the file vanished meanwhile (another gc removed
 * it), a DamagedResult when it cannot be used, never throws for a bad file.
 */
export function readResult(dir: string, entry: ResultName): ScannedResult | DamagedResult | null {
  const path = join(dir, entry.name);
  let got;
  try {
    got = readHeaderLine(path);
  } catch (e) {
    if (e instanceof FormatError) return damaged(dir, entry, e.message);
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    return damaged(dir, entry, `cannot be read (${code ?? (e as Error).message})`);
  }
  let header: Header;
  try {
    header = parseHeader(got.line);
  } catch (e) {
    if (e instanceof FormatError) return damaged(dir, entry, e.message, got.line);
    throw e;
  }
  if (header.id !== entry.id) return damaged(dir, entry, `has id ${header.id} in its header, not ${entry.id}`, got.line);
  const createdMs = Date.parse(header.timestamp);
  const expiresMs = Date.parse(header.expires_at);
  if (!Number.isFinite(createdMs) || !Number.isFinite(expiresMs)) {
    return damaged(dir, entry, 'has a header timestamp or expires_at that is not a date', got.line);
  }
  return {
    kind: 'result',
    name: entry.name,
    id: entry.id,
    path,
    header,
    line: got.line,
    size: got.size,
    mtimeMs: got.mtimeMs,
    dev: got.dev,
    ino: got.ino,
    createdMs,
    expiresMs,
  };
}
