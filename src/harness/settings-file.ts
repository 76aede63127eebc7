// Reading and writing a harness's settings file safely: the real file behind a symlink, an atomic replace that
// keeps the file's mode, and a record of what the file was before `lro init` (its bytes) and what init wrote (a
// hash), so `--uninstall` gives the original back byte for byte when nothing else changed since.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * The file a settings path names: the target of a symlink (a dotfiles manager's), else the path itself. A dangling
 * link names the file it points to (written there, the link kept); a loop of links is null.
 */
export function realFile(path: string): string {
  return linkTarget(path) ?? path;
}

/** The end of a chain of symlinks (the path itself when it is none), or null for a loop. */
export function linkTarget(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    // missing, or a dangling link: followed by hand
  }
  let p = path;
  for (let i = 0; i < 40; i++) {
    let link: string;
    try {
      if (!lstatSync(p).isSymbolicLink()) return p;
      link = readlinkSync(p);
    } catch {
      return p; // nothing there: the file to make
    }
    p = resolve(dirname(p), link);
    try {
      p = join(realpathSync(dirname(p)), basename(p)); // the folder of the target, its links resolved
    } catch {
      // a folder that is not there yet
    }
  }
  return null;
}

/** The text of a settings file, or null when there is none. */
export function readSettings(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Replaces `path` with `text` atomically (temporary file beside it, fsync, rename), keeping its mode. */
export function writeAtomic(path: string, text: string): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  // a rename over a symlink would replace the link by a file: the caller writes the link's target
  if (isLink(path)) throw new Error(`${path} is a symlink: lro writes the file it points to`);
  let mode = 0o644;
  try {
    mode = statSync(path).mode & 0o7777;
  } catch {
    // a new file
  }
  const tmp = join(dir, `.${basename(path)}.lro-${process.pid}.tmp`);
  const fd = openSync(tmp, 'wx', mode);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  chmodSync(tmp, mode); // the umask narrowed it
  renameSync(tmp, path);
}

const isLink = (path: string): boolean => {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
};

/** What lro keeps about a settings file it edited. */
export interface InitRecord {
  path: string;
  /** The file's text before the first init; null when there was no file. */
  original: string | null;
  /** Whether init made the folder the file is in. */
  createdDir: boolean;
  /** The highest folder init made for the file (createdDir: from there down to the file's folder). */
  createdFrom?: string;
  /** sha256 of the text init wrote last. */
  written: string;
}

/** Where lro keeps its records of settings files: ${XDG_STATE_HOME:-~/.local/state}/lro/init. */
export function recordDir(env: NodeJS.ProcessEnv): string {
  const state = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state');
  return join(state, 'lro', 'init');
}

/** Where the record of a settings file lives: <recordDir>/<hash of its path>.json. */
export function recordPath(settings: string, env: NodeJS.ProcessEnv): string {
  return join(recordDir(env), `${sha256(settings).slice(0, 24)}.json`);
}

/** Names the folder the first record made (the highest of those mkdir made), so the last removal can take it away. */
const MADE = '.made-by-lro';

export function readRecord(settings: string, env: NodeJS.ProcessEnv): InitRecord | null {
  try {
    const r = JSON.parse(readFileSync(recordPath(settings, env), 'utf8')) as InitRecord;
    return r.path === settings ? r : null;
  } catch {
    return null;
  }
}

export function writeRecord(r: InitRecord, env: NodeJS.ProcessEnv): void {
  const p = recordPath(r.path, env);
  const made = mkdirSync(dirname(p), { recursive: true, mode: 0o700 });
  if (made) writeFileSync(join(dirname(p), MADE), `${made}\n`, { mode: 0o600 });
  writeAtomic(p, `${JSON.stringify(r)}\n`);
}

/** Removes a record; the last one takes the folders the first one made with it (when nothing else is in them). */
export function removeRecord(settings: string, env: NodeJS.ProcessEnv): void {
  rmSync(recordPath(settings, env), { force: true });
  const dir = recordDir(env);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  if (names.some((n) => n !== MADE)) return;
  let top = join(dir, '..'); // ${state}/lro is lro's own
  try {
    const made = readFileSync(join(dir, MADE), 'utf8').trim();
    if (made && (dir === made || dir.startsWith(`${made}/`))) top = made;
  } catch {
    // an older lro made the folder: lro's own folders go
  }
  rmSync(join(dir, MADE), { force: true });
  for (let d = dir; ; d = dirname(d)) {
    try {
      rmdirSync(d);
    } catch {
      return; // not empty: something else lives there
    }
    if (d === top || dirname(d) === d) return;
  }
}

/** Puts back a file that did not exist: removes it, and the folders init made for it when they are empty. */
export function removeCreated(path: string, createdDir: boolean, createdFrom?: string): void {
  if (!isLink(path)) rmSync(path, { force: true }); // a link is the user's: only a file lro made goes
  if (!createdDir) return;
  const dir = dirname(path);
  const top = createdFrom && (dir === createdFrom || dir.startsWith(`${createdFrom}/`)) ? createdFrom : dir;
  for (let d = dir; existsSync(d); d = dirname(d)) {
    try {
      rmdirSync(d);
    } catch {
      return; // not empty: something else lives there now
    }
    if (d === top || dirname(d) === d) return;
  }
}
