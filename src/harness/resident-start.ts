// Starting the shell prefix's resident helper (`lro __resident`, commands/resident.ts) and other lro processes that
// outlive the call that starts them. The helper's file is `resident` in the prefix's own folder,
// $TMPDIR/lro-prefix-$UID (bin/lro-shell-prefix makes it, 0700).
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync } from 'node:fs';
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

/** `lro ARGS` started apart (its own session, nothing printed, not waited for): it outlives this call. */
export function startApart(args: string[], env: NodeJS.ProcessEnv): void {
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
 * (an older version, another installation) is stopped and replaced. LRO_RESIDENT=0: never.
 */
export function ensureResident(spool: string, env: NodeJS.ProcessEnv): void {
  if (env.LRO_RESIDENT === '0') return;
  try {
    const [, , pidText, version] = readFileSync(join(spool, RESIDENT_FILE), 'utf8').trim().split(' ');
    const pid = Number(pidText);
    if (Number.isSafeInteger(pid) && pid > 0) {
      process.kill(pid, 0);
      if (version === residentVersion()) return;
      process.kill(pid, 'SIGTERM');
    }
  } catch {
    // none, or it died: start one
  }
  startApart(['__resident', '--spool', spool], env);
}
