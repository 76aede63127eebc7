// Turns what a user typed (an id, `last`, or the path of a result file) into an opened result, and never
// anything outside the store that is not an lro result: `../`, other files and symlinks are refused. Ids are
// found anywhere in the store tree (the root and every session's folder); `last` is the newest result, of
// $LRO_SESSION when that is set, and `last~N` the one N before it (as git's HEAD~N), so `lro diff last~1 last`
// compares a re-run with the run before.
import { basename, join } from 'node:path';
import { EXIT, LroError } from '../errors.js';
import { FormatError } from '../format/header.js';
import { isUlid, parseResultFileName } from '../format/naming.js';
import { openResultFile, type ResultFile } from '../format/reader.js';
import { checkStore, storePath } from './dir.js';
import { remoteOf, type RemoteStore } from './location.js';
import { fetchResult, fetchStart, fetchTail, findRemote, newestRemote, stillStored } from './remote.js';
import type { RemoteResult, StartNeed } from './remote.js';
import { listStore } from './scan.js';
import { S3Error } from './s3-sync.js';
import { checkSession } from './session.js';
import type { Next } from '../io.js';

/** `lro ls`, which the errors of a result not found send the user to, as a value (an MCP client gets lro_ls). */
export const SEE_LS: Next = { command: 'ls', input: {}, text: 'lro ls' };

export interface ResolveOptions {
  dir?: string;
  env: NodeJS.ProcessEnv;
  /**
   * A reader that reads only the header and records 1..need(header) (null: it reads more) says so: a remote
   * result not in the cache is then opened from its object's start alone (`partial`, store/remote.ts).
   */
  need?: StartNeed;
  /** A reader of the last `tail` records only (read --tail): a remote result not in the cache is opened from its end. */
  tail?: number;
}

/** Opens the result a reference names; throws LroError with what to do when it cannot. */
export function resolveResult(ref: string, opts: ResolveOptions): ResultFile {
  if (ref.includes('\0')) throw new LroError('invalid result id: it contains a NUL byte: ids are 26-character ULIDs (see lro ls)', EXIT.error, [SEE_LS]);
  const looksLikePath = ref.includes('/') || ref.endsWith('.jsonl');
  if (looksLikePath) return openPath(ref);
  const dir = storePath(opts.dir, opts.env);
  const remote = remoteOf(dir)?.store;
  const store = checkStore(dir);
  const shown = ref.length > 60 ? `${ref.slice(0, 60)}…` : ref;
  const back = /^last(?:~(\d{1,9}))?$/.exec(ref);
  if (back) {
    const n = back[1] === undefined ? 0 : Number(back[1]);
    if (remote) {
      // in a session ($LRO_SESSION), of that session only, as in a local store
      const session = opts.env.LRO_SESSION ? checkSession(opts.env.LRO_SESSION, 'LRO_SESSION') : undefined;
      const found = newestRemote(remote, session, n);
      return openRemote(remote, found, { session, back: n, need: opts.need, tail: opts.tail });
    }
    return openNewest(dir, store !== null, n, opts.env);
  }
  const id = ref.toUpperCase();
  if (!isUlid(id)) {
    throw new LroError(`invalid result id '${shown}': ids are 26-character ULIDs, or 'last', 'last~1'… (see lro ls)`, EXIT.error, [SEE_LS]);
  }
  const entry = store ? listStore(dir).results.find((e) => e.id === id) : undefined;
  const cached = entry && openInStore(join(entry.dir, entry.name), id);
  // a remote store's cached copy, unless the bucket no longer has the result (removed by another machine's gc)
  if (cached && (!remote || stillStored(cached.path, cached.header, Date.now()))) return cached;
  if (remote) return openRemote(remote, findRemote(remote, id), { id, need: opts.need, tail: opts.tail });
  throw new LroError(`no result ${id} in ${dir}: it may have expired or live in another store (see lro ls, --dir)`, EXIT.error, [SEE_LS]);
}

/**
 * The result `back` before the newest (0: the newest): in a session ($LRO_SESSION), of that session only, since
 * another agent's output is not "last" here.
 */
function openNewest(dir: string, store: boolean, back: number, env: NodeJS.ProcessEnv): ResultFile {
  const session = env.LRO_SESSION ? checkSession(env.LRO_SESSION, 'LRO_SESSION') : undefined;
  const results = store ? listStore(dir, session).results : [];
  const entry = results[back];
  if (entry) return openInStore(join(entry.dir, entry.name), entry.id);
  const where = session !== undefined ? `session ${JSON.stringify(session)} in ${dir}` : dir;
  if (results.length > 0) {
    const n = results.length;
    const range = n === 1 ? 'only last' : `last~0 to last~${n - 1}`;
    throw new LroError(`no result last~${back}: the store has ${n} result${n === 1 ? '' : 's'} (${range}) in ${where}: see lro ls`, EXIT.error, [SEE_LS]);
  }
  if (session !== undefined) throw new LroError(`no results of ${where}: offload something in it first, or unset LRO_SESSION`);
  throw new LroError(`no results in ${dir}: offload something first (cmd | lro offload)`);
}

/** What openRemote was asked for: an id, or `last~back` (of a session). */
interface RemoteAsk {
  session?: string;
  id?: string;
  back?: number;
  need?: ResolveOptions['need'];
  tail?: number;
}

/** Opens a result of a remote store, fetched into its cache unless it is there (stored results never change). */
function openRemote(remote: RemoteStore, found: RemoteResult | null, ask: RemoteAsk): ResultFile {
  const { session, id, back = 0 } = ask;
  if (!found && id) {
    const fix = 'it may have expired or live in another store (see lro ls, --dir)';
    throw new LroError(`no result ${id} in ${remote.url}: ${fix}`, EXIT.error, [SEE_LS]);
  }
  if (!found && back > 0 && newestRemote(remote, session)) {
    throw new LroError(`no result last~${back} in ${remote.url}: there are fewer results (see lro ls)`, EXIT.error, [SEE_LS]);
  }
  if (!found && session !== undefined) {
    const fix = 'offload something in it first, or unset LRO_SESSION';
    throw new LroError(`no results of session ${JSON.stringify(session)} in ${remote.url}: ${fix}`);
  }
  if (!found) throw new LroError(`no results in ${remote.url}: offload something first (cmd | lro offload)`);
  try {
    const start = ask.tail ? fetchTail(remote, found, ask.tail) : ask.need && fetchStart(remote, found, ask.need);
    if (start?.partial) {
      const { size, held, unchecked } = start;
      return { ...openInStore(start.path, found.id), size, partial: true, held, ...(unchecked ? { unchecked } : {}) };
    }
    return openInStore(start ? start.path : fetchResult(remote, found), found.id);
  } catch (e) {
    // found by its pointer, gone since (gc on another machine): as if there were no pointer
    if (!(e instanceof S3Error && e.kind === 'missing')) throw e;
    return openRemote(remote, null, ask);
  }
}

/**
 * The note for a reader that shows part of a remote result written before block hashes (an older lro): what it shows
 * is not checked (a whole fetch is, by the header's sha256); null for any other result.
 */
export function uncheckedNote(rf: ResultFile): string | null {
  if (!rf.unchecked) return null;
  const id = rf.header.id;
  return `lro: note: result ${id} was stored without block hashes (by an older lro): this part of it is not checked; it is checked when fetched whole (lro cat ${id})\n`;
}

/** The error for a result found damaged while it is read (a FormatError from the reader or a decoder). */
export function damagedError(rf: ResultFile, e: FormatError): LroError {
  return new LroError(`result ${rf.header.id} ${e.message} (${rf.path}): ${e.hint}`);
}

/** Runs a read of a stored file (sync or async), turning a damaged file into a clear error. */
export function damaged<T>(rf: ResultFile, f: () => T): T {
  const fix = (e: unknown): never => {
    if (e instanceof FormatError) throw damagedError(rf, e);
    throw e;
  };
  try {
    const r = f();
    return (r instanceof Promise ? r.catch(fix) : r) as T;
  } catch (e) {
    return fix(e);
  }
}

/** Opens a result of the store whose id its name gives; throws LroError when it is damaged. */
export function openInStore(path: string, id: string): ResultFile {
  try {
    const rf = openResultFile(path);
    if (rf.header.id !== id) throw new FormatError(`has id ${rf.header.id} in its header, not ${id}`);
    return rf;
  } catch (e) {
    if (e instanceof FormatError) throw new LroError(`result ${id} (${path}) ${e.message}: ${e.hint}`);
    throw e;
  }
}

function openPath(path: string): ResultFile {
  const parsed = parseResultFileName(basename(path));
  if (!parsed) throw new LroError(`${path} is not an lro result file (lro-<operation>-<id>.jsonl): pass an id from lro ls`, EXIT.error, [SEE_LS]);
  try {
    const rf = openResultFile(path);
    if (rf.header.id !== parsed.id) throw new FormatError(`has id ${rf.header.id} in its header, not ${parsed.id}`);
    return rf;
  } catch (e) {
    if (e instanceof FormatError) throw new LroError(`${path} ${e.message}: ${e.hint}`, EXIT.error, [SEE_LS]); // (a hint may send to lro ls)
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new LroError(`${path} does not exist: pass an id from lro ls`, EXIT.error, [SEE_LS]);
    throw new LroError(`cannot read ${path}: ${code ?? (e as Error).message}`);
  }
}
