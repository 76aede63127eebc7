// Whether the process writing a temporary file may still be running. A temporary name carries its writer's pid
// (`.lro-<id>-<purpose>-<pid>-<n>.tmp`, see format/naming.ts). An old mtime alone does not prove a writer dead:
// a small result is buffered in memory and its file is not touched until the commit, however long the input
// takes to arrive (`tail -f log | lro offload`). Nor does a live pid prove it alive: the pid may have been
// reused. What does is the lock the writer holds all along: its file stays open in it from creation to rename,
// which Linux shows in /proc/<pid>/fd. Where that cannot be read, a live pid counts for MAX_UNTOUCHED_MS.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { decodeTime } from 'ulid';
import { parseTempFileName } from '../format/naming.js';

/** Linux reports process start times in USER_HZ ticks, 100 per second on every common architecture. */
const USER_HZ = 100;
/** Clock slack when comparing a process's start with the time in a result id. */
const SLACK_MS = 60_000;

let bootMs: number | null | undefined;

function bootTimeMs(): number | null {
  if (bootMs === undefined) {
    try {
      const m = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'latin1'));
      bootMs = m ? Number(m[1]) * 1000 : null;
    } catch {
      bootMs = null;
    }
  }
  return bootMs;
}

/** When a process started (ms since the epoch), on Linux; null when it cannot be told. */
function processStartMs(pid: number): number | null {
  const boot = bootTimeMs();
  if (boot === null) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // fields after "pid (comm) ": state is field 3, starttime field 22
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    return Number.isFinite(ticks) ? boot + (ticks * 1000) / USER_HZ : null;
  } catch {
    return null;
  }
}

/** Where the open-file lock cannot be read, a temporary file untouched this long is stale even if its pid lives. */
export const MAX_UNTOUCHED_MS = 7 * 24 * 3600_000;

/** The identity of a file, and when it was last written. */
export interface TempFacts {
  dev: number;
  ino: number;
  mtimeMs: number;
}

/**
 * Whether process `pid` has the file `facts` names open (its writer's lock); null when that cannot be told (no
 * /proc, or another user's process).
 */
export function holdsOpen(pid: number, facts: TempFacts): boolean | null {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' && existsProc() ? false : null;
  }
  for (const fd of fds) {
    try {
      const st = statSync(`/proc/${pid}/fd/${fd}`);
      if (st.ino === facts.ino && st.dev === facts.dev) return true;
    } catch {
      // closed meanwhile, or not a file
    }
  }
  return false;
}

let procMounted: boolean | undefined;

function existsProc(): boolean {
  if (procMounted === undefined) {
    try {
      procMounted = readdirSync('/proc/self/fd').length > 0;
    } catch {
      procMounted = false;
    }
  }
  return procMounted;
}

/**
 * Whether the temporary file may still be written. False when its writer is certainly gone: its name has no
 * pid, no process has that pid or the one that has it started after the file's id was made, or (on Linux) that
 * process does not hold the file open. Where the lock cannot be read, false once it is untouched for
 * MAX_UNTOUCHED_MS. True otherwise.
 */
export function writerMayBeAlive(tempName: string, facts: TempFacts, nowMs: number): boolean {
  if (!writerProcessMayBeAlive(tempName)) return false;
  const pid = parseTempFileName(tempName)!.pid;
  return holdsOpen(pid, facts) ?? nowMs - facts.mtimeMs <= MAX_UNTOUCHED_MS;
}

/** Whether the process named in a temporary file's name may still run (false: certainly gone, or its pid reused). */
export function writerProcessMayBeAlive(tempName: string): boolean {
  const m = parseTempFileName(tempName);
  if (!m) return false;
  let idMs: number | null;
  try {
    idMs = decodeTime(m.id);
  } catch {
    idMs = null;
  }
  return processMayBeAlive(m.pid, idMs);
}

/**
 * False when process `pid` is certainly gone, or started after `sinceMs` (when the file it wrote was made: the
 * pid was reused); true otherwise, including for another user's process (it is not ours to judge).
 */
export function processMayBeAlive(pid: number, sinceMs: number | null): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0); // signal 0: only asks whether the process exists
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EPERM') return false;
    // EPERM: it exists but belongs to someone else; keep the file rather than guess
  }
  if (sinceMs === null) return true;
  const started = processStartMs(pid);
  return started === null || started <= sinceMs + SLACK_MS;
}
