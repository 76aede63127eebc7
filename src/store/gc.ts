// What `lro gc` removes, decided apart from the scanning and the printing so the policy is one pure function,
// and the one place that unlinks. Safety rests on three rules:
//   1. Only lro's own files are candidates: results whose header parsed (or, past --max-age, files whose line 1
//      starts the way lro writes it), and `.lro-*.tmp` files that are stale. Never symlinks, never other names.
//   2. Right before unlinking, the name is lstat'ed again and must still be the same regular file (device,
//      inode, size, mtime) that was judged; otherwise it is left alone.
//   3. A file that is already gone (another gc got there first) is not an error: two gc runs both succeed.
import { unlinkSync } from 'node:fs';
import { removeRemote } from './remote.js';
import { lstatFacts, type FileFacts } from './scan.js';

/** Why a file is removed: the machine-readable reason in `gc --json`. */
export type GcReason = 'expired' | 'max_age' | 'max_total_size' | 'stale_temp' | 'damaged_max_age' | 'session' | 'stale_claim' | 'dangling_ref';

/** A file gc may remove, with what it knew when it judged it. */
export interface GcCandidate extends FileFacts {
  name: string;
  kind: 'result' | 'damaged' | 'temp' | 'ref' | 'claim';
  /** Result id (results and damaged results). */
  id?: string;
  /** When the result was written (header timestamp; mtime for damaged and temporary files). */
  createdMs: number;
  /** Results only. */
  expiresMs?: number;
  /** Damaged only: line 1 begins as lro writes it. */
  lroContent?: boolean;
  /** Temporary files and claims: the writing process may still be running. */
  writerAlive?: boolean;
  /** Refs only: the result file the ref names, and whether it was gone when judged. */
  target?: string | null;
  targetGone?: boolean;
}

/** What to remove, and what stays. */
export interface GcPolicy {
  now: number;
  /** Results (and lro's damaged files) older than this are removed. */
  maxAgeMs?: number;
  /** Results are removed oldest first until the results kept total at most this many bytes. */
  maxTotalSize?: number;
  /** Temporary files untouched for this long, whose writer is gone, are stale. */
  tempGraceMs: number;
  /** Every result is removed (gc --session: the candidates are that session's). */
  everyResult?: boolean;
}

export interface GcVictim extends GcCandidate {
  reason: GcReason;
}

export interface GcPlan {
  victims: GcVictim[];
  keptCount: number;
  keptBytes: number;
  /** Temporary files and claims kept: their writer may still be at work. */
  keptTemps: GcCandidate[];
}

/**
 * Ten minutes: a temporary file untouched that long whose writer's pid is gone was left by a killed writer (a live
 * writer touches its file as its input comes; one in another pid namespace has a pid this process does not see).
 */
export const DEAD_WRITER_GRACE_MS = 10 * 60_000;

/** An hour: a temporary file untouched that long, whose writer is gone, was left by a killed writer. */
export const TEMP_GRACE_MS = 3600_000;

/** Decides what gc removes. Pure: the same candidates and policy always give the same plan. */
export function planGc(candidates: GcCandidate[], policy: GcPolicy): GcPlan {
  const victims: GcVictim[] = [];
  const keep: GcCandidate[] = [];
  const cutoff = policy.maxAgeMs === undefined ? null : policy.now - policy.maxAgeMs;
  const refs: GcCandidate[] = [];
  const keptTemps: GcCandidate[] = [];
  for (const c of candidates) {
    if (c.kind === 'temp' || c.kind === 'claim') {
      // a temporary file whose writer is gone goes at once (its writer is judged by pid while young); a claim after
      // the grace
      const due = c.kind === 'temp' || policy.now - c.mtimeMs > policy.tempGraceMs;
      if (due && c.writerAlive === false) victims.push({ ...c, reason: c.kind === 'temp' ? 'stale_temp' : 'stale_claim' });
      else keptTemps.push(c);
    } else if (c.kind === 'ref') {
      refs.push(c);
    } else if (policy.everyResult && c.kind === 'result') {
      victims.push({ ...c, reason: 'session' });
    } else if (c.kind === 'damaged') {
      // A damaged file is reported and kept; only --max-age removes it, and only if it is evidently lro's.
      if (cutoff !== null && c.lroContent && c.mtimeMs < cutoff) victims.push({ ...c, reason: 'damaged_max_age' });
    } else if ((c.expiresMs ?? Infinity) <= policy.now) {
      victims.push({ ...c, reason: 'expired' });
    } else if (cutoff !== null && c.createdMs < cutoff) {
      victims.push({ ...c, reason: 'max_age' });
    } else {
      keep.push(c);
    }
  }
  let keptBytes = keep.reduce((n, c) => n + c.size, 0);
  let keptCount = keep.length;
  if (policy.maxTotalSize !== undefined && keptBytes > policy.maxTotalSize) {
    const oldestFirst = [...keep].sort((a, b) => a.createdMs - b.createdMs || ((a.id ?? '') < (b.id ?? '') ? -1 : 1));
    for (const c of oldestFirst) {
      if (keptBytes <= policy.maxTotalSize) break;
      victims.push({ ...c, reason: 'max_total_size' });
      keptBytes -= c.size;
      keptCount--;
    }
  }
  // refs last: one goes when its result is gone, or goes now
  const removed = new Set(victims.filter((v) => v.kind === 'result').map((v) => v.path));
  for (const r of refs) if (r.targetGone || (r.target && removed.has(r.target))) victims.push({ ...r, reason: 'dangling_ref' });
  return { victims, keptCount, keptBytes, keptTemps };
}

/** What happened to one file gc meant to remove. */
export type RemoveOutcome = 'removed' | 'gone' | 'changed';

/**
 * Unlinks path only if it is still the regular file that was judged (same device, inode, size and mtime).
 * 'gone' when someone else removed it first; 'changed' when the name now holds something else. Other errors
 * (permissions, read-only file system) are thrown.
 */
export function removeUnchanged(judged: FileFacts): RemoveOutcome {
  const now = lstatFacts(judged.path);
  if (!now) return 'gone';
  if (!now.isFile || now.dev !== judged.dev || now.ino !== judged.ino || now.size !== judged.size || now.mtimeMs !== judged.mtimeMs) {
    return 'changed';
  }
  try {
    removeRemote(judged.path); // in a remote store's listing: the object goes first (store/remote.ts)
    unlinkSync(judged.path);
    return 'removed';
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw e;
  }
}
