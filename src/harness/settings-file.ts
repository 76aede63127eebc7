// Reading and writing a harness's settings file safely: the real file behind a symlink, an atomic replace that
// keeps the file's mode, and a record of what the file was before `lro init` (its bytes) and what init wrote (a
// hash), so `--uninstall` gives the original back byte for byte when nothing else changed since.
import { createHash } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, realpathSync, renameSync, rmdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** The file a settings path names: the target of a symlink (a dotfiles manager's), else the path itself. */
export function realFile(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
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

/** What lro keeps about a settings file it edited. */
export interface InitRecord {
  path: string;
  /** The file's text before the first init; null when there was no file. */
  original: string | null;
  /** Whether init made the folder the file is in. */
  createdDir: boolean;
  /** sha256 of the text init wrote last. */
  written: string;
}

/** Where the record of a settings file lives: ${XDG_STATE_HOME:-~/.local/state}/lro/init/<hash of its path>.json. */
export function recordPath(settings: string, env: NodeJS.ProcessEnv): string {
  const state = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state');
  return join(state, 'lro', 'init', `${sha256(settings).slice(0, 24)}.json`);
}

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
  mkdirSync(dirname(p), { recursive: true, mode: 0o700 });
  writeAtomic(p, `${JSON.stringify(r)}\n`);
}

export function removeRecord(settings: string, env: NodeJS.ProcessEnv): void {
  rmSync(recordPath(settings, env), { force: true });
}

/** Puts back a file that did not exist: removes it, and its folder when init made it and it is empty. */
export function removeCreated(path: string, createdDir: boolean): void {
  rmSync(path, { force: true });
  if (createdDir && existsSync(dirname(path))) {
    try {
      rmdirSync(dirname(path));
    } catch {
      // not empty: something else lives there now
    }
  }
}
