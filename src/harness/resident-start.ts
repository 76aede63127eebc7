// Starting the shell prefix's resident helper (`lro __resident`, commands/resident.ts) and other lro processes that
// outlive the call that starts them. The helper's file is `resident` in the prefix's own folder,
// $TMPDIR/lro-prefix-$UID (bin/lro-shell-prefix makes it, 0700).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { binDir } from './lro-bin.js';
import { VERSION } from '../version.js';

/** The helper's file in the prefix's folder. */
export const RESIDENT_FILE = 'resident';

/**
 * The prefix's folder for this user, as bin/lro-shell-prefix names it; null when it is not there or not ours.
 * `make`: made first when it is not there, as the prefix makes it (0700: only this user reads the helper's token).
 */
export function prefixFolder(env: NodeJS.ProcessEnv, make = false): string | null {
  const dir = join((env.TMPDIR || '/tmp').replace(/\/+$/, '') || '/', `lro-prefix-${process.getuid?.() ?? 0}`);
  try {
    if (make && !existsSync(dir)) mkdirSync(dir, { mode: 0o700 });
  } catch {
    // made by another call meanwhile, or it cannot be: checked below
  }
  try {
    const st = lstatSync(dir);
    return st.isDirectory() && st.uid === process.getuid?.() ? dir : null;
  } catch {
    return null;
  }
}

/**
 * Whether a process started now may outlive this call. Not inside bubblewrap's pid namespace (Claude Code's Linux
 * sandbox runs each Bash call in `bwrap --unshare-pid`): bwrap's first process there waits for every process of the
 * namespace before it exits, so a helper started from inside kept the call (and the harness waiting on its output)
 * open until the helper's idle exit, 15 minutes. Such a call does as without the helper, or knocks at the door of
 * one started outside, where the sandbox shares the folder (commands/resident.ts).
 */
export function canOutliveCall(): boolean {
  try {
    return readFileSync('/proc/1/comm', 'utf8').trim() !== 'bwrap';
  } catch {
    return true; // no /proc (macOS: its sandbox has no pid namespace), or not readable
  }
}

/** `lro ARGS` started apart (its own session, nothing printed, not waited for): it outlives this call. */
export function startApart(args: string[], env: NodeJS.ProcessEnv): void {
  if (!canOutliveCall()) return;
  try {
    spawn(process.execPath, [join(binDir(), 'lro.js'), ...args], { detached: true, stdio: 'ignore', env }).unref();
  } catch {
    // nothing is lost: the next call tries again
  }
}

/** What a helper writes as its version: lro's version and where it is installed (one word). */
export const residentVersion = (): string => `${VERSION}@${binDir()}`.replace(/\s/g, '_');

/**
 * Starts the resident helper for the folder `spool` unless one of this lro is running there; one of another lro
 * (an older version, another installation) is replaced: the new helper writes the file, and the old one exits
 * when it sees its file name another (commands/resident.ts). No signal is sent to the pid the file names: the file
 * may come from another pid namespace (a helper started inside a container or a sandbox), where that pid is not a
 * helper at all. LRO_RESIDENT=0: never.
 */
export function ensureResident(spool: string, env: NodeJS.ProcessEnv): void {
  if (env.LRO_RESIDENT === '0') return;
  try {
    const [port, , pidText, version] = readFileSync(join(spool, RESIDENT_FILE), 'utf8').trim().split(' ');
    const pid = Number(pidText);
    // one with a door alone (started in a sandbox) is replaced by one that can listen too, if this call can:
    // the new one ends at once when it cannot (commands/resident.ts)
    if (port !== '-' && Number.isSafeInteger(pid) && pid > 0 && version === residentVersion() && isResident(pid, spool)) return;
  } catch {
    // none, or it died: start one
  }
  startApart(['__resident', '--spool', spool], env);
}

/**
 * Whether `pid` is a resident helper of `spool` as seen from here: its command line where /proc shows it (a pid
 * the file names from another pid namespace is another process here, or none), else that it is alive.
 */
export function isResident(pid: number, spool: string): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes('__resident') && cmdline.includes(spool);
  } catch {
    if (existsSync('/proc/self')) return false; // /proc is there and shows no such process
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const HOUR_MS = 3_600_000;

/**
 * At most once an hour (per store), a call that stored a result starts `lro gc` apart, so a store used only through
 * the harnesses (the shell prefix, the Gemini CLI and Claude Code hooks, the MCP proxy) removes its expired results
 * without a cron line. The hour is a stamp file in the prefix's folder (`spool`). LRO_AUTO_GC=0: never.
 */
export function gcNowAndThen(dir: string | undefined, env: NodeJS.ProcessEnv, now: Date, spool = prefixFolder(env, true)): void {
  if (env.LRO_AUTO_GC === '0' || !spool) return;
  const store = dir ?? env.LRO_DIR ?? '(the default store)';
  const stamp = join(spool, `gc-${createHash('sha256').update(store).digest('hex').slice(0, 16)}`);
  try {
    if (now.getTime() - statSync(stamp).mtimeMs < HOUR_MS) return;
  } catch {
    // never ran
  }
  try {
    writeFileSync(stamp, '');
  } catch {
    return;
  }
  startApart(dir === undefined ? ['gc'] : ['gc', '--dir', dir], env);
}
