// Scanning the store, shared by `lro ls`, `lro gc`, the readers and completion: one walk of the store tree (the
// root and `sessions/<S>/`, read with readdir, symlinks never followed) that sorts entries by what they are to lro,
// then line 1 of each result (never its records). Nothing here follows a symlink: entries are classified by
// their own type, a session folder is used only if it passes the store's checks (a real directory of this user
// that others cannot write), headers are read with O_NOFOLLOW, and every fact carries the inode it was read from
// so gc can check, just before unlinking, that the name still points at the file it judged.
import { closeSync, lstatSync, openSync, readdirSync, readSync, constants as fsc, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { FormatError, HEADER_TYPE, parseHeaderFields, type Header } from '../format/header.js';
import { isTempFileName, parseDedupeFileName, parseResultFileName } from '../format/naming.js';
import { readHeaderLine, type HeaderLine } from '../format/reader.js';
import { dirProblem } from './dir.js';
import { SESSIONS_DIR, sessionOfFolder, sessionProblem } from './session.js';

/** A file in the store tree: its folder, its name, and the session that folder is for (null: the root). */
export interface TreeFile {
  dir: string;
  name: string;
  session: string | null;
}

/** A directory entry named like a result (`lro-<operation>-<id>.jsonl`) that is a regular file. */
export interface ResultName extends TreeFile {
  id: string;
  operation: string;
}

/** A dedupe file (`.lro-<key>.ref` or `.lro-<key>.claim`, see store/dedupe.ts). */
export interface DedupeName extends TreeFile {
  kind: 'ref' | 'claim';
  key: string;
}

/** An entry lro does not own or will not open, and why; reported, never touched. `name` is relative to the root. */
export interface ForeignEntry {
  name: string;
  why: string;
}

/** A session folder that passed the checks. */
export interface SessionFolder {
  name: string;
  dir: string;
}

/** The store's entries by kind, from names and entry types alone (no file is opened). */
export interface StoreListing {
  /** Newest first (ids are ULIDs, so by time), across the whole tree. */
  results: ResultName[];
  temps: TreeFile[];
  dedupe: DedupeName[];
  foreign: ForeignEntry[];
  sessions: SessionFolder[];
}

/** An empty listing (no store yet). */
export const EMPTY_LISTING: StoreListing = { results: [], temps: [], dedupe: [], foreign: [], sessions: [] };

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
  /** The session whose folder holds it (null: the store's root). */
  folderSession: string | null;
  name: string;
  id: string;
  /** The header, and line 1, without the descriptor's statistics (`stats`: see parseHeaderFields). */
  header: Header;
  line: Buffer;
  createdMs: number;
  expiresMs: number;
}

/** A file named like a result whose header lro cannot use. */
export interface DamagedResult {
  kind: 'damaged';
  folderSession: string | null;
  name: string;
  id: string;
  path: string;
  reason: string;
  /** Facts from lstat; null when even that failed. */
  facts: FileFacts | null;
  /** Line 1 starts as lro writes it, so the file is lro's own, only damaged or from another lro version. */
  lroContent: boolean;
}

/** Why a folder of the tree cannot be used (as checkStore judges a store), or null when it can. */
function folderProblem(path: string): string | null {
  try {
    return dirProblem(path, lstatSync(path))?.what ?? null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'vanished' : `cannot be read (${code ?? (e as Error).message})`;
  }
}

/**
 * The entries of one folder, one level, symlinks reported as such and never followed. readdir, not a glob module:
 * every reader lists the store to find an id, and loading fast-glob was a sixth of a small `lro grep`'s time.
 */
function entriesOf(dir: string): { name: string; dirent: Dirent }[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).map((dirent) => ({ name: dirent.name, dirent }));
  } catch {
    return [];
  }
}

/**
 * Lists the store tree's entries by kind; names it does not own, and folders that fail the checks, land in
 * `foreign`. `only` limits the walk to one session's folder (null: the root's own entries). One folder is read
 * at a time, so the walker's memory is bounded by the largest folder, not by the whole store.
 */
export function listStore(root: string, only?: string | null): StoreListing {
  const out: StoreListing = { results: [], temps: [], dedupe: [], foreign: [], sessions: [] };
  let hasSessions = false;
  if (only === undefined || only === null) {
    for (const e of entriesOf(root)) {
      if (e.name === SESSIONS_DIR) hasSessions = true;
      else classify(out, root, e.name, null, e.dirent, e.name);
    }
  } else hasSessions = true;
  if (hasSessions && only !== null) {
    const sessions = join(root, SESSIONS_DIR);
    const problem = folderProblem(sessions);
    if (problem) {
      if (problem !== 'vanished') out.foreign.push({ name: SESSIONS_DIR, why: `folder of sessions ${problem}` });
    } else {
      for (const e of entriesOf(sessions)) {
        const session = sessionOfFolder(e.name);
        if (only !== undefined && session !== only) continue;
        const dir = join(sessions, e.name);
        const bad = sessionProblem(session) ? 'is not named as lro names sessions' : folderProblem(dir);
        if (bad) out.foreign.push({ name: `${SESSIONS_DIR}/${e.name}`, why: `session folder ${bad}` });
        else {
          out.sessions.push({ name: session, dir });
          for (const f of entriesOf(dir)) classify(out, dir, f.name, session, f.dirent, `${SESSIONS_DIR}/${e.name}/${f.name}`);
        }
      }
    }
  }
  out.results.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  out.sessions.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return out;
}

function classify(out: StoreListing, dir: string, name: string, session: string | null, d: { isFile(): boolean; isSymbolicLink(): boolean }, shown: string): void {
  const parsed = parseResultFileName(name);
  if (parsed) {
    if (d.isFile()) out.results.push({ dir, name, session, ...parsed });
    else out.foreign.push({ name: shown, why: d.isSymbolicLink() ? 'a symlink named like a result; lro never follows symlinks' : 'named like a result but not a regular file' });
  } else if (isTempFileName(name)) {
    if (d.isFile()) out.temps.push({ dir, name, session });
    else out.foreign.push({ name: shown, why: 'named like a temporary file but not a regular file' });
  } else {
    const dd = parseDedupeFileName(name);
    if (dd && d.isFile()) out.dedupe.push({ dir, name, session, ...dd });
    else out.foreign.push({ name: shown, why: dd ? 'named like a dedupe file but not a regular file' : 'not an lro name' });
  }
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

export function damaged(entry: ResultName, reason: string, line?: Buffer): DamagedResult | null {
  const path = join(entry.dir, entry.name);
  let facts: FileFacts | null = null;
  try {
    const st = lstatFacts(path);
    if (!st) return null; // removed since the listing (another gc): nothing to report
    facts = st.isFile ? { path, size: st.size, mtimeMs: st.mtimeMs, dev: st.dev, ino: st.ino } : null;
  } catch {
    facts = null;
  }
  const lroContent = facts !== null && (line ? line.subarray(0, LRO_PREFIX.length).equals(LRO_PREFIX) : startsLikeLro(path));
  return { kind: 'damaged', folderSession: entry.session, name: entry.name, id: entry.id, path, reason, facts, lroContent };
}

/**
 * Reads line 1 of one result and checks it. Returns null when the file vanished meanwhile (another gc removed
 * it), a DamagedResult when it cannot be used, never throws for a bad file.
 */
export function readResult(entry: ResultName): ScannedResult | DamagedResult | null {
  const path = join(entry.dir, entry.name);
  let got;
  try {
    got = readHeaderLine(path);
  } catch (e) {
    if (e instanceof FormatError) return damaged(entry, e.message);
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    return damaged(entry, `cannot be read (${code ?? (e as Error).message})`);
  }
  return resultOfLine(entry, got);
}

/**
 * A result from its line 1 and the facts of its file, read by readResult or given by a remote store's index (a
 * listed object whose header line is known without a file: see store/remote.ts readListed).
 */
export function resultOfLine(entry: ResultName, got: HeaderLine): ScannedResult | DamagedResult | null {
  const path = join(entry.dir, entry.name);
  let header: Header;
  let line: Buffer;
  try {
    ({ header, line } = parseHeaderFields(got.line)); // (without the descriptor's statistics: not listed)
  } catch (e) {
    if (e instanceof FormatError) return damaged(entry, e.message, got.line);
    throw e;
  }
  if (header.id !== entry.id) return damaged(entry, `has id ${header.id} in its header, not ${entry.id}`, got.line);
  const createdMs = Date.parse(header.timestamp);
  const expiresMs = Date.parse(header.expires_at);
  if (!Number.isFinite(createdMs) || !Number.isFinite(expiresMs)) {
    return damaged(entry, 'has a header timestamp or expires_at that is not a date', got.line);
  }
  return {
    kind: 'result',
    folderSession: entry.session,
    name: entry.name,
    id: entry.id,
    path,
    header,
    line,
    size: got.size,
    mtimeMs: got.mtimeMs,
    dev: got.dev,
    ino: got.ino,
    createdMs,
    expiresMs,
  };
}
