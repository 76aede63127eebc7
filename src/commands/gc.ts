// `lro gc`: removes expired results, stale temporary files and, on request, results past an age or beyond a
// total size, oldest first. Built to run from cron beside agents that are writing: see store/gc.ts for the
// rules that make concurrent runs safe. It refuses a store that fails the checks of store/dir.ts.
import { rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { DIR_OPTION, type CommandDef } from './command.js';
import { LroError } from '../errors.js';
import type { IO } from '../io.js';
import { checkStore } from '../store/dir.js';
import { storeFor } from '../store/open.js';
import type { Store } from '../store/store.js';
import { DEAD_WRITER_GRACE_MS, planGc, removeUnchanged, TEMP_GRACE_MS, type GcCandidate, type GcVictim } from '../store/gc.js';
import { claimHolderMayBeAlive, readRef } from '../store/dedupe.js';
import { listStore, lstatFacts, readResult } from '../store/scan.js';
import { checkSession, sessionDir } from '../store/session.js';
import { writerMayBeAlive, writerProcessMayBeAlive } from '../store/writers.js';
import { formatBytes, formatCount, formatCounted, formatDuration, parseDuration, parseSize } from '../units.js';
import { parseTempFileName } from '../format/naming.js';
import GC_HELP from 'help:gc';

export interface GcOptions {
  dir?: string;
  maxAge?: string;
  maxTotalSize?: string;
  dryRun?: boolean;
  json?: boolean;
  verbose?: boolean;
  session?: string;
}

/** A file gc saw but would not judge, and why (damaged, a symlink named like a result). */
interface Skipped {
  name: string;
  reason: string;
}

/** The `--json` report. */
export interface GcReport {
  dry_run: boolean;
  dir: string;
  removed_count: number;
  freed_bytes: number;
  kept_count: number;
  kept_bytes: number;
  /** Temporary files (and dedupe claims) kept because their writer may still be at work. */
  kept_temp_count: number;
  files: { name: string; path: string; kind: GcCandidate['kind']; id: string | null; reason: GcVictim['reason']; bytes: number }[];
  skipped: Skipped[];
  /** Dedupe refs removed because their result is gone (see store/dedupe.ts); not in `files`. */
  refs_removed?: number;
  /** An S3 store's id pointers (`ids/`) removed because their result is gone; not in `files`. */
  pointers_removed?: number;
  /** --session: whether the session's folder was removed (it is kept while anything live is in it). */
  session_removed?: boolean;
}

/** Removes a session's folder if nothing is left in it (rmdir fails on a folder that is not empty). */
function removeSessionFolder(root: string, session: string): boolean {
  try {
    rmdirSync(sessionDir(root, session));
    return true;
  } catch {
    return false;
  }
}

/** A one-line "scanned N of M" on a terminal's stderr while a large store is read; silent otherwise. */
class Progress {
  private readonly on: boolean;
  private readonly start = Date.now();
  private last = 0;
  private shown = false;

  constructor(private readonly io: IO) {
    const env = io.env;
    this.on = io.stderr.isTTY && !env.NO_COLOR && !env.CI && env.TERM !== 'dumb';
  }

  tick(what: string, done: number, total: number): void {
    if (!this.on || (done & 255) !== 0) return;
    const t = Date.now();
    if (t - this.start < 300 || t - this.last < 100) return; // small stores finish before anything is shown
    this.last = t;
    this.shown = true;
    void this.io.stderr.write(`\r\x1b[2K${what} ${formatCount(done)} of ${formatCount(total)} files`).catch(() => undefined);
  }

  async clear(): Promise<void> {
    if (this.shown) await this.io.stderr.write('\r\x1b[2K').catch(() => undefined);
  }
}

/** The human summary: `removed 12 results, freed 5.0 MB; kept 40 results`. */
export function gcSummary(report: GcReport): string {
  const temps = report.files.filter((f) => f.kind === 'temp' || f.kind === 'claim').length;
  const results = report.files.length - temps;
  const what = `${formatCounted(results, 'result')}${temps ? ` and ${formatCounted(temps, 'temporary file')}` : ''}`;
  const freed = formatBytes(report.freed_bytes);
  const keptTemps = report.kept_temp_count ? ` and ${formatCounted(report.kept_temp_count, 'temporary file')} being written` : '';
  const kept = `${formatCounted(report.kept_count, 'result')}${keptTemps}`;
  return report.dry_run ? `would remove ${what}, would free ${freed}; would keep ${kept}` : `removed ${what}, freed ${freed}; kept ${kept}`;
}

/** The options checked and resolved: an option that does not parse is a usage error (exit 2). */
function gcSettings(opts: GcOptions, io: IO) {
  const maxAgeMs = opts.maxAge !== undefined ? parseDuration(opts.maxAge, '--max-age') * 1000 : undefined;
  const maxTotalSize = opts.maxTotalSize !== undefined ? parseSize(opts.maxTotalSize, '--max-total-size') : undefined;
  const store = storeFor(opts.dir, io.env);
  const dir = store.listingDir('gc');
  const session = opts.session !== undefined ? checkSession(opts.session, '--session') : undefined;
  return { maxAgeMs, maxTotalSize, store, dir, session, dryRun: !!opts.dryRun };
}

/** What gc saw: the files it may remove, the damaged results among them, and the entries it would not judge. */
interface GcScan {
  candidates: GcCandidate[];
  damaged: Skipped[];
  unjudged: Skipped[];
}

/**
 * Reads what gc judges: line 1 of each result (oldest first), the facts of temporary and dedupe files. With
 * --session S, only that session's folder (and results of S written elsewhere by an older lro). `onFile` is told
 * after each file how many of how many were seen.
 */
function scanStore(dir: string, session: string | undefined, now: number, onFile: (done: number, total: number) => void): GcScan {
  const listing = session === undefined ? listStore(dir) : { ...listStore(dir, session), results: listStore(dir).results };
  const total = listing.results.length + listing.temps.length + listing.dedupe.length;
  const candidates: GcCandidate[] = [];
  const damaged: Skipped[] = [];
  let seen = 0;
  for (const entry of [...listing.results].reverse()) {
    onFile(++seen, total);
    const r = readResult(entry);
    if (!r) continue;
    if (r.kind === 'result') {
      const { path, size, mtimeMs, dev, ino, createdMs, expiresMs } = r;
      const inSession = session === undefined || r.folderSession === session || r.header.session === session;
      if (inSession) candidates.push({ kind: 'result', name: r.name, id: r.id, path, size, mtimeMs, dev, ino, createdMs, expiresMs });
      continue;
    }
    if (session !== undefined && r.folderSession !== session) continue;
    damaged.push({ name: r.name, reason: `damaged: ${r.reason}` });
    if (r.facts) candidates.push({ kind: 'damaged', name: r.name, id: r.id, ...r.facts, createdMs: r.facts.mtimeMs, lroContent: r.lroContent });
  }
  for (const t of [...listing.temps, ...listing.dedupe]) {
    onFile(++seen, total);
    const f = lstatFacts(join(t.dir, t.name));
    if (!f || !f.isFile) continue;
    const { path, size, mtimeMs, dev, ino } = f;
    // only an old file needs the (slower) question whether its writer still runs
    const old = now - f.mtimeMs > TEMP_GRACE_MS;
    if ('kind' in t && t.kind === 'ref') {
      // a ref whose result is gone is a dead shortcut; one whose result gc removes now goes with it
      const target = readRef(path);
      const targetPath = target ? join(t.dir, target) : null;
      candidates.push({ kind: 'ref', name: t.name, path, size, mtimeMs, dev, ino, createdMs: mtimeMs, target: targetPath, targetGone: !targetPath || !lstatFacts(targetPath) });
    } else if ('kind' in t) {
      const writerAlive = old ? claimHolderMayBeAlive(path, mtimeMs, now) : true;
      candidates.push({ kind: 'claim', name: t.name, path, size, mtimeMs, dev, ino, createdMs: mtimeMs, writerAlive });
    } else {
      // a young one untouched for DEAD_WRITER_GRACE_MS is judged by its writer's pid alone (cheap): a killed
      // writer's file goes then, not after the hour; an old one also by whether the process holds it open (a
      // reused pid). (Untouched first: a writer in another pid namespace, as in a sandbox, shows a pid not ours.)
      const writerAlive = old
        ? writerMayBeAlive(t.name, f, now)
        : now - mtimeMs < DEAD_WRITER_GRACE_MS || writerProcessMayBeAlive(t.name);
      candidates.push({ kind: 'temp', name: t.name, path, size, mtimeMs, dev, ino, createdMs: mtimeMs, writerAlive });
    }
  }
  const unjudged: Skipped[] = [];
  for (const f of listing.foreign) if (f.why !== 'not an lro name') unjudged.push({ name: f.name, reason: f.why });
  return { candidates, damaged, unjudged };
}

/** A victim that stays after all (its removal failed, or the name holds another file now): counted as kept. */
function countKept(v: GcVictim, report: GcReport): void {
  if (v.kind === 'result') {
    report.kept_count++;
    report.kept_bytes += v.size;
  } else if (v.kind === 'temp' || v.kind === 'claim') report.kept_temp_count++;
}

/** Temporary files kept past the grace: their writer still holds them (a slow input, or a stopped process). */
function oldTempsKept(kept: GcCandidate[], now: number): Skipped[] {
  return kept
    .filter((c) => now - c.mtimeMs > TEMP_GRACE_MS)
    .map((c) => {
      const pid = c.kind === 'temp' ? parseTempFileName(c.name)?.pid : undefined;
      const untouched = formatDuration((now - c.mtimeMs) / 1000);
      return { name: c.name, reason: `untouched for ${untouched} but still being written${pid ? ` by process ${pid}` : ''}` };
    });
}

/**
 * Removes the plan's victims (with --dry-run, only reports them), each only if it is still the file judged, into
 * the report. Returns the removals that failed.
 */
function removeVictims(store: Store, victims: GcVictim[], report: GcReport, dryRun: boolean, progress: Progress): string[] {
  const failures: string[] = [];
  let done = 0;
  if (!dryRun) store.removeJudged(victims); // an S3 store's objects: 1,000 a request
  for (const v of victims) {
    progress.tick('removed', ++done, victims.length);
    if (!dryRun) {
      let outcome;
      try {
        outcome = removeUnchanged(v);
      } catch (e) {
        const err = e as NodeJS.ErrnoException;
        failures.push(`${v.name}: ${err.code ?? err.message}`);
        report.skipped.push({ name: v.name, reason: `could not remove it: ${err.code ?? err.message}` });
        countKept(v, report);
        continue;
      }
      if (outcome === 'gone') continue; // another gc removed it first: not ours to count
      if (outcome === 'changed') {
        report.skipped.push({ name: v.name, reason: 'changed while gc ran; left alone' });
        countKept(v, report);
        continue;
      }
    }
    if (v.kind === 'ref') {
      report.refs_removed = (report.refs_removed ?? 0) + 1; // a shortcut to a result that is gone: not worth a line
      continue;
    }
    report.files.push({ name: v.name, path: v.path, kind: v.kind, id: v.id ?? null, reason: v.reason, bytes: v.size });
    report.freed_bytes += v.size;
  }
  report.removed_count = report.files.length;
  return failures;
}

/** The report: JSON with --json, else the summary (each file with -v) and, on stderr, the files kept unjudged. */
async function printReport(report: GcReport, opts: GcOptions, io: IO): Promise<void> {
  if (opts.json) {
    await io.stdout.write(`${JSON.stringify(report)}\n`);
    return;
  }
  if (opts.verbose) {
    const verb = report.dry_run ? 'would remove' : 'removed';
    for (const f of report.files) await io.stdout.write(`${verb} ${f.name} (${f.reason}, ${formatBytes(f.bytes)})\n`);
  }
  await io.stdout.write(`${gcSummary(report)}\n`);
  for (const s of report.skipped.slice(0, 10)) await io.stderr.write(`lro: kept ${s.name}: ${s.reason}\n`);
  if (report.skipped.length > 10) await io.stderr.write(`lro: kept ${report.skipped.length - 10} more files gc could not judge (see lro gc --json)\n`);
}

/**
 * `lro gc`: settle the options, scan the store, plan what goes (store/gc.ts), remove it, print the report. Throws
 * after printing when a file could not be removed.
 */
export async function runGc(opts: GcOptions, io: IO): Promise<number> {
  const { maxAgeMs, maxTotalSize, store, dir, session, dryRun } = gcSettings(opts, io);
  const report: GcReport = {
    dry_run: dryRun,
    dir: store.name, // an S3 store by its s3:// URL, not its cache
    removed_count: 0,
    freed_bytes: 0,
    kept_count: 0,
    kept_bytes: 0,
    kept_temp_count: 0,
    files: [],
    skipped: [],
  };
  const found = checkStore(dir); // a symlink, another user's or a group/world-writable directory: exit 2
  if (!found) {
    const none = `${dryRun ? 'would remove' : 'removed'} nothing: there is no store at ${report.dir}\n`;
    await io.stdout.write(opts.json ? `${JSON.stringify(report)}\n` : none);
    return 0;
  }

  const progress = new Progress(io);
  const now = io.now().getTime();
  const scan = scanStore(dir, session, now, (done, total) => progress.tick('scanned', done, total));
  const plan = planGc(scan.candidates, { now, maxAgeMs, maxTotalSize, tempGraceMs: TEMP_GRACE_MS, everyResult: session !== undefined });
  const removing = new Set(plan.victims.map((v) => v.name));
  report.skipped = scan.damaged.filter((d) => !removing.has(d.name)).concat(scan.unjudged, oldTempsKept(plan.keptTemps, now));
  report.kept_count = plan.keptCount;
  report.kept_bytes = plan.keptBytes;
  report.kept_temp_count = plan.keptTemps.length;
  const failures = removeVictims(store, plan.victims, report, dryRun, progress);
  const pointers = store.tidyAfterGc(dryRun); // an S3 store's pointers whose result is gone, its cache and index
  if (pointers > 0) report.pointers_removed = pointers;
  await progress.clear();
  if (session !== undefined && !dryRun) report.session_removed = removeSessionFolder(dir, session);

  await printReport(report, opts, io);
  if (failures.length > 0) {
    const what = `could not remove ${formatCounted(failures.length, 'file')} (${failures[0]})`;
    throw new LroError(`${what}: check the permissions of ${report.dir}`);
  }
  return 0;
}

/** `lro gc`. */
export const gcCommand: CommandDef<GcOptions> = {
  name: 'gc',
  description: 'remove expired results and stale temporary files; optionally cap age and total size',
  options: [
    DIR_OPTION,
    { flags: '--max-age <duration>', description: 'also remove results older than this (e.g. 7d, 12h)' },
    { flags: '--max-total-size <size>', description: 'also remove the oldest results until the rest fit in this (e.g. 500MB, 2GB)' },
    { flags: '-n, --dry-run', description: 'remove nothing; report what would be removed' },
    { flags: '--json', description: 'report as JSON: {removed_count, freed_bytes, files, kept_count, ...}', manual: 'files lists each file (name, path, kind, id, reason, bytes); skipped what was kept and why.' },
    { flags: '-v, --verbose', description: 'name each file removed' },
    { flags: '--session <session>', description: "remove that session's results, expired or not, and its folder once empty" },
  ],
  examples: [
    'lro gc                                expired results, and temporary files left by killed writers',
    'lro gc --max-age 7d --dry-run -v      what a 7-day limit would remove',
    'lro gc --max-total-size 2GB --json    keep the store under 2 GB, report as JSON',
    'lro gc --session build-42             the whole session build-42 at once',
  ],
  notes: GC_HELP,
  run: (o, io) => runGc(o, io),
};
