// The store directory: where it is (`--dir`, `$LRO_DIR`, `${TMPDIR:-/tmp}/lro-<uid>`), creating it 0700, and
// refusing one that another user could tamper with: a symlink, owned by someone else, or writable by others.
import { chmodSync, closeSync, existsSync, fstatSync, lstatSync, mkdirSync, openSync, constants as fsc } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { LroError } from '../errors.js';
import { isRemoteSpec, remoteStore } from './location.js';
import { SESSIONS_DIR, sessionDir } from './session.js';

/** A checked store directory. `identity` lets a writer notice if the directory is swapped before its rename. */
export interface StoreDir {
  dir: string;
  identity: { dev: number; ino: number };
}

function uid(): number {
  return typeof process.getuid === 'function' ? process.getuid() : 0;
}

/**
 * Where the store is, by precedence: the --dir option, $LRO_DIR, then ${TMPDIR:-/tmp}/lro-<uid>. For an
 * `s3://…` store, the directory of its cache that holds whole results (store/location.ts).
 */
export function storePath(dirOption: string | undefined, env: NodeJS.ProcessEnv): string {
  const spec = dirOption || env.LRO_DIR;
  if (isRemoteSpec(spec)) return remoteStore(spec, env).files; // s3://bucket/prefix: its local cache (location.ts)
  if (dirOption) return resolve(dirOption);
  if (env.LRO_DIR) return resolve(env.LRO_DIR);
  const tmp = env.TMPDIR || '/tmp';
  return resolve(tmp, `lro-${uid()}`);
}

/** What makes an existing entry unfit to hold results (and what to do), or null when it is fit. */
export function dirProblem(dir: string, st: import('node:fs').Stats): { what: string; fix: string } | null {
  if (st.isSymbolicLink()) return { what: 'is a symlink; lro refuses it', fix: 'point --dir or LRO_DIR at a real directory' };
  if (!st.isDirectory()) return { what: 'is not a directory', fix: 'point --dir or LRO_DIR at a directory' };
  if (st.uid !== uid()) {
    return { what: `is owned by uid ${st.uid}, not by you (uid ${uid()})`, fix: 'use a directory of your own with --dir or LRO_DIR' };
  }
  if ((st.mode & 0o022) !== 0) return { what: `is writable by others (mode ${(st.mode & 0o777).toString(8)})`, fix: `run chmod 700 ${dir}` };
  return null;
}

/** Checks the directory found at dir (lstat), without creating it. Returns null when it does not exist. */
export function checkStore(dir: string): StoreDir | null {
  let st;
  try {
    st = lstatSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new LroError(`cannot use the store ${dir}: ${(e as Error).message}`);
  }
  const problem = dirProblem(dir, st);
  if (problem) throw new LroError(`the store ${dir} ${problem.what}: ${problem.fix}`);
  return { dir, identity: { dev: st.dev, ino: st.ino } };
}

/**
 * A store held open for writing. `ioDir` names the directory itself rather than its path: on Linux
 * `/proc/self/fd/N` of a descriptor opened on it, so files created, renamed or removed through `ioDir` stay in
 * that directory even if its path is swapped for a symlink meanwhile (elsewhere `ioDir` is the path). Close it
 * when done.
 */
export interface PinnedStore extends StoreDir {
  ioDir: string;
  close(): void;
}

/** Opens a handle on a checked store (refusing it if the directory changed since the check). */
export function pinStore(store: StoreDir): PinnedStore {
  let fd: number;
  try {
    fd = openSync(store.dir, fsc.O_RDONLY | fsc.O_DIRECTORY | fsc.O_NOFOLLOW);
  } catch (e) {
    throw new LroError(`cannot open the store ${store.dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}: point --dir or LRO_DIR at a real directory`);
  }
  const st = fstatSync(fd);
  if (st.dev !== store.identity.dev || st.ino !== store.identity.ino) {
    closeSync(fd);
    throw new LroError(`the store ${store.dir} was replaced while lro opened it: check who else changes it`);
  }
  const proc = `/proc/self/fd/${fd}`;
  let open = true;
  return {
    ...store,
    ioDir: existsSync(proc) ? proc : store.dir,
    close() {
      if (open) closeSync(fd);
      open = false;
    },
  };
}

/**
 * An error from work done through `ioDir`, told with the store's own path: `/proc/self/fd/N` means nothing to
 * whoever reads the message.
 */
export function inStoreTerms(e: Error, store: PinnedStore): Error {
  if (store.ioDir !== store.dir) e.message = e.message.split(`${store.ioDir}/`).join(`${store.dir}/`);
  return e;
}

/**
 * `mkdir -p dir`, each directory it makes mode 0700 (less the umask), one level at a time: Node 20's recursive
 * mkdir loops forever where the system answers ENOENT for a directory whose parent is there (under /proc).
 * A level another process makes meanwhile (lro commands started at once on a new store) is taken as made; whether
 * this call made `dir` itself is returned.
 */
function makeDirs(dir: string): boolean {
  const parent = dirname(dir);
  if (parent !== dir && !existsSync(parent)) makeDirs(parent);
  try {
    mkdirSync(dir, { mode: 0o700 });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

/** The store at dir, created (mode 0700, whatever the umask) if missing, and checked. */
export function openStore(dir: string): StoreDir {
  const existing = checkStore(dir);
  if (existing) return existing;
  try {
    if (makeDirs(dir)) chmodSync(dir, 0o700);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new LroError(`cannot create the store ${dir}: ${err.code ?? err.message}`);
  }
  const created = checkStore(dir);
  if (!created) throw new LroError(`cannot create the store ${dir}`);
  return created;
}

/**
 * The directory results of `session` go to, created and checked at every level: the store, `sessions/` and the
 * session's own folder must each be a real directory of this user that others cannot write.
 */
export function openResultDir(root: string, session: string | null): StoreDir {
  const store = openStore(root);
  if (session === null) return store;
  openStore(join(root, SESSIONS_DIR));
  return openStore(sessionDir(root, session));
}
