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

/** A window of a long record, [start, end), with the matches that start in it. */
export interface RecordWindow {
  start: number;
  end: number;
  matches: [number, number][];
}

/**
 * The windows of a long record around the matches of `re`: the first MAX_WINDOWS, each with the matches that start
 * in it, and how many there are in all. A window is a match with WINDOW characters each side, merged with the next
 * while the merged window stays within MAX_WINDOW (a record holding a match every 30 characters was one window of
 * all of it, larger than any budget). The matches are taken one at a time and kept only while one of the windows
 * shown can hold them: a record of 200 MB with a match every hundred characters has millions.
 */
export function longWindows(text: string, re: RegExp): { shown: RecordWindow[]; total: number } {
  const length = text.length;
  const shown: [number, number][] = [];
  const kept: [number, number][] = [];
  let last: [number, number] | null = null;
  let total = 0;
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const s = m.index;
    const e = s + m[0].length;
    if (e === s) re.lastIndex++;
    const ws = Math.max(0, s - WINDOW);
    const we = Math.min(length, e + WINDOW);
    if (last && ws <= last[1] && Math.max(last[1], we) - last[0] <= MAX_WINDOW) last[1] = Math.max(last[1], we);
    else {
      last = last && ws < last[1] ? [last[1], Math.max(last[1], we)] : [ws, we]; // (the rest of this match's window)
      total++;
      if (shown.length < MAX_WINDOWS) shown.push(last);
    }
    // (a match is in a window shown only while it starts before the last one's end: it has just grown to hold it)
    if (shown.length < MAX_WINDOWS || s < shown[MAX_WINDOWS - 1][1]) kept.push([s, e]);
  }
  return { shown: shown.map(([start, end]) => ({ start, end, matches: kept.filter(([ms]) => ms >= start && ms < end) })), total };
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
  const found = ev.kind === 'match' && re !== null;
  if (text.length <= LONG_RECORD) return [value(text, 0, found ? matchOffsets(re, text) : [])];
  const { shown } = found ? longWindows(text, re) : { shown: [] };
  if (shown.length === 0) return [value(text.slice(0, WINDOW * 2), 0, [])];
  return shown.map((w) => value(text.slice(w.start, w.end), w.start, w.matches));
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
