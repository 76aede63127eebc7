// A search's lines as values: each selected or context record with where the pattern matches in it (windows
// around the matches for a long record), and the walk of a search's events in watched slices. The printers of
// render/ (`lro grep`, `lro grep --all`, text or --json) and the library (api/search.ts) take the same values; a
// search that runs away is stopped here, for both.
import { closeSync, constants as fsc, openSync } from 'node:fs';
import type { ResultFile } from '../format/reader.js';
import { runWatched, Stalled } from '../watchdog.js';
import { grepResult, type GrepEvent } from './grep.js';
import type { GrepPlan } from './grep-plan.js';
import type { ByteScanner } from '../kernel/scan.js';
import { stallMessage } from './slow-pattern.js';

/** Records longer than this are shown as windows around their matches. */
export const LONG_RECORD = 1000;
export const WINDOW = 100;
export const MAX_WINDOWS = 10;

/** The longest window: matches closer together than this go into more windows, never into one without end. */
const MAX_WINDOW = 4 * WINDOW;

/**
 * Windows of a long record around its matches: [start, end) pairs, merged while the merged window stays within
 * MAX_WINDOW (a record holding a match every 30 characters was one window of all of it, larger than any budget).
 */
export function windows(length: number, matches: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  for (const [s, e] of matches) {
    const ws = Math.max(0, s - WINDOW);
    const we = Math.min(length, e + WINDOW);
    const last = out[out.length - 1];
    if (last && ws <= last[1] && Math.max(last[1], we) - last[0] <= MAX_WINDOW) last[1] = Math.max(last[1], we);
    else if (last && ws < last[1]) out.push([last[1], Math.max(last[1], we)]); // the rest of this match's window
    else out.push([ws, we]);
  }
  return out;
}

/** Where a regex matches in a text: [start, end) pairs. */
export function matchOffsets(re: RegExp, text: string): [number, number][] {
  const out: [number, number][] = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out.push([m.index, m.index + m[0].length]);
    if (m[0].length === 0) re.lastIndex++;
  }
  return out;
}

/** A selected (`match`) or context record, or a window of a long one: the library's GrepLine, --json's object. */
export interface GrepLineValue {
  type: 'match' | 'context';
  record: number;
  /** The record's stream (grep --stream's results only). */
  stream?: string;
  text: string;
  offset: number;
  record_length: number;
  matches: { start: number; end: number }[];
}

/** A record event of a search. */
export type RecordEvent = Extract<GrepEvent, { kind: 'match' | 'context' }>;

/**
 * The values of a record event: one, or the windows around its matches (at most MAX_WINDOWS; a long record
 * without a match, as context, its start). `re` finds the matches (null: an inverted search's have none).
 */
export function recordValues(ev: RecordEvent, re: RegExp | null, streamOf?: (n: number) => string): GrepLineValue[] {
  const { text } = ev;
  const matches = ev.kind === 'match' && re ? matchOffsets(re, text) : [];
  // the key order is --json's
  const value = (t: string, offset: number, ms: [number, number][]): GrepLineValue => ({
    type: ev.kind,
    record: ev.n,
    ...(streamOf ? { stream: streamOf(ev.n) } : {}),
    text: t,
    offset,
    record_length: text.length,
    matches: ms.map(([start, end]) => ({ start, end })),
  });
  if (text.length <= LONG_RECORD) return [value(text, 0, matches)];
  const ws = matches.length ? windows(text.length, matches).slice(0, MAX_WINDOWS) : [[0, Math.min(text.length, WINDOW * 2)] as [number, number]];
  return ws.map(([s, e]) => value(text.slice(s, e), s, matches.filter(([ms]) => ms >= s && ms < e)));
}

/** A slice of the search's events: up to this many, or this much time (see watchdog.ts; each watched
 * slice costs about 0.1 ms, more on a busy machine, so slices are long but well within any allowance). */
const SLICE_EVENTS = 1024;
/** ...and at most about this much printed output held (memory stays flat whatever the output). */
const SLICE_BYTES = 2 << 20;
const SLICE_MS = 200;

/** The next events of a search, as many as come in a short while; printed bytes copied (the search reuses its memory). */
function slicer(search: Generator<GrepEvent>, sliceMs: number): { next: () => GrepEvent[]; done: boolean } {
  const s = {
    done: false,
    next: (): GrepEvent[] => {
      const out: GrepEvent[] = [];
      const started = performance.now();
      let bytes = 0;
      while (out.length < SLICE_EVENTS && bytes < SLICE_BYTES && performance.now() - started < sliceMs) {
        const r = search.next();
        if (r.done) {
          s.done = true;
          break;
        }
        const ev = r.value;
        if (ev.kind === 'printed') {
          out.push({ ...ev, bytes: Buffer.from(ev.bytes) });
          bytes += ev.bytes.length;
        } else if (ev.kind !== 'progress') out.push(ev);
      }
      return out;
    },
  };
  return s;
}

/** How a walk takes the search's events. */
export interface GrepWalk {
  /** Plain `N:text` lines without a budget may come as `printed` bytes. */
  plain?: boolean;
  /** The scan kernel to reuse (one for a whole store), else one is made. */
  scanner?: ByteScanner;
  /** Stop a pattern that makes no progress for this many seconds (a pattern that could run away), else none. */
  stallSeconds?: number;
}

/**
 * Runs the search of `rf` and hands each event (never `progress`) to `take`, until the search ends or `take`
 * answers false. A pattern that could run away runs in watched slices and is stopped (Stalled, with how to see
 * the record it was stopped on) after a slice of `stallSeconds`.
 */
export async function walkGrep(
  rf: ResultFile,
  plan: GrepPlan,
  walk: GrepWalk,
  take: (ev: GrepEvent) => boolean | Promise<boolean>,
): Promise<void> {
  const q = plan.query;
  const { stallSeconds } = walk;
  const fd = openSync(rf.path, fsc.O_RDONLY | fsc.O_NOFOLLOW);
  const search = grepResult(rf, q, fd, { plain: walk.plain, longText: LONG_RECORD, scanner: walk.scanner });
  const events = slicer(search, Math.min(SLICE_MS, ((stallSeconds ?? 1) * 1000) / 4));
  const stalled = `the pattern made no progress for ${stallSeconds} s`;
  try {
    while (!events.done) {
      for (const ev of stallSeconds === undefined ? events.next() : runWatched(events.next, stallSeconds, stalled)) {
        if (!(await take(ev))) return;
      }
    }
  } catch (e) {
    // stuck or only slow on a huge record: measured on the record it was stopped on
    if (!(e instanceof Stalled)) throw e;
    const id = rf.header.id;
    throw new Stalled(stallMessage(q.matcher.regex, stallSeconds!, (n) => `lro read ${id} --records ${n} --columns 1:2000`));
  } finally {
    closeSync(fd);
  }
}

/** The values of a search of `rf` (no budget: every line), in order; gaps are the reader's to show. */
export async function grepValues(rf: ResultFile, plan: GrepPlan, walk: GrepWalk, take: (v: GrepLineValue) => void): Promise<void> {
  if (plan.query.maxCount === 0) return;
  const re = plan.query.invert ? null : plan.query.matcher.regex;
  await walkGrep(rf, plan, walk, (ev) => {
    if (ev.kind === 'match' || ev.kind === 'context') for (const v of recordValues(ev, re, plan.streamOf)) take(v);
    return true;
  });
}
