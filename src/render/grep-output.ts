// Printing a grep: the lines of each match and context record (`N:text`, `N-text`, `--`; windows for long
// records; JSON objects with --json), within the output budget, ending with the exact next command when cut.
import { closeSync, constants as fsc, openSync } from 'node:fs';
import { shellQuote } from '../describe/shell.js';
import { runWatched, Stalled } from '../engines/watchdog.js';
import { EXIT } from '../errors.js';
import type { ResultFile } from '../format/reader.js';
import { formatRange } from '../ranges.js';
import { grepResult, type GrepEvent } from '../search/grep.js';
import type { GrepPlan } from '../search/grep-plan.js';
import { stallMessage } from '../search/slow-pattern.js';
import { formatCount } from '../units.js';
import { continuationLine, maxTokensFrom, OutputBudget } from './budget.js';

/** Records longer than this are shown as windows around their matches. */
export const LONG_RECORD = 1000;
const WINDOW = 100;
const MAX_WINDOWS = 10;

/** Windows of a long record around its matches: [start, end) pairs, merged. */
function windows(length: number, matches: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  for (const [s, e] of matches) {
    const ws = Math.max(0, s - WINDOW);
    const we = Math.min(length, e + WINDOW);
    const last = out[out.length - 1];
    if (last && ws <= last[1]) last[1] = Math.max(last[1], we);
    else out.push([ws, we]);
  }
  return out;
}

/** Where a regex matches in a text: [start, end) pairs. */
function matchOffsets(re: RegExp, text: string): [number, number][] {
  const out: [number, number][] = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out.push([m.index, m.index + m[0].length]);
    if (m[0].length === 0) re.lastIndex++;
  }
  return out;
}

/** The output lines of a match, context or gap (several for a long record); `re` finds the match offsets. */
function render(ev: Extract<GrepEvent, { kind: 'match' | 'context' | 'gap' }>, json: boolean, re: RegExp | null): string[] {
  if (ev.kind === 'gap') return json ? [] : ['--\n'];
  const { text } = ev;
  const sep = ev.kind === 'match' ? ':' : '-';
  // offsets are needed for JSON and for the windows of a long record only
  const matches = ev.kind === 'match' && re && (json || text.length > LONG_RECORD) ? matchOffsets(re, text) : [];
  if (json) {
    const obj = (t: string, offset: number, ms: [number, number][]) =>
      `${JSON.stringify({ type: ev.kind, record: ev.n, text: t, offset, record_length: text.length, matches: ms.map(([start, end]) => ({ start, end })) })}\n`;
    if (text.length <= LONG_RECORD) return [obj(text, 0, matches)];
    const ws = matches.length ? windows(text.length, matches).slice(0, MAX_WINDOWS) : [[0, Math.min(text.length, WINDOW * 2)] as [number, number]];
    return ws.map(([s, e]) => obj(text.slice(s, e), s, matches.filter(([ms]) => ms >= s && ms < e)));
  }
  if (text.length <= LONG_RECORD) return [`${ev.n}${sep}${text}\n`];
  if (matches.length === 0) return [`${ev.n}${sep}[0-${WINDOW * 2}/${text.length}] ${text.slice(0, WINDOW * 2)}…\n`];
  const ws = windows(text.length, matches);
  const lines = ws.slice(0, MAX_WINDOWS).map(([s, e]) => `${ev.n}${sep}[${s}-${e}/${text.length}] ${s > 0 ? '…' : ''}${text.slice(s, e)}${e < text.length ? '…' : ''}\n`);
  if (ws.length > MAX_WINDOWS) lines.push(`${ev.n}${sep}[… ${ws.length - MAX_WINDOWS} more windows with matches in this record]\n`);
  return lines;
}

/** The command that continues a cut output from record `from`. */
function nextCommand(id: string, p: GrepPlan, from: number, matchedSoFar: number): string {
  const o = p.options;
  const q = p.query;
  const flags: string[] = [];
  if (o.fixedStrings) flags.push('-F');
  if (o.ignoreCase) flags.push('-i');
  if (o.wordRegexp) flags.push('-w');
  if (o.invertMatch) flags.push('-v');
  if (q.before && q.before === q.after) flags.push(`-C ${q.before}`);
  else {
    if (q.after) flags.push(`-A ${q.after}`);
    if (q.before) flags.push(`-B ${q.before}`);
  }
  if (q.maxCount !== Infinity) flags.push(`-m ${q.maxCount - matchedSoFar}`);
  if (o.json) flags.push('--json');
  if (o.raw) flags.push('--raw');
  if (o.maxTokens !== undefined) flags.push(`--max-tokens ${o.maxTokens}`);
  if (o.dir) flags.push(`--dir ${shellQuote(o.dir)}`);
  flags.push(`--records ${formatRange(from, q.range.to)}`);
  return `lro grep ${id} ${shellQuote(p.pattern)} ${flags.join(' ')}`;
}

/** A slice of the search's events: up to this many, or this much time (see engines/watchdog.ts; each watched
 * slice costs about 0.1 ms, more on a busy machine, so slices are long but well within any allowance). */
const SLICE_EVENTS = 1024;
/** ...and at most about this much printed output held (memory stays flat whatever the output). */
const SLICE_BYTES = 2 << 20;
const SLICE_MS = 200;

/**
 * The search and its printing, with the budget. A pattern that could run away (`stallSeconds` given) runs in
 * watched slices and is stopped after a slice of that many seconds. Returns the exit code.
 */
export async function printGrep(
  rf: ResultFile,
  plan: GrepPlan,
  env: NodeJS.ProcessEnv,
  write: (s: string | Uint8Array) => Promise<void> | void,
  stallSeconds?: number,
): Promise<number> {
  const q = plan.query;
  const id = rf.header.id;
  if (q.maxCount === 0) return EXIT.noMatch;
  const budget = new OutputBudget(maxTokensFrom(plan.options.maxTokens, env), rf.header.encoding);
  const json = !!plan.options.json;
  const re = q.invert ? null : q.matcher.regex;
  let matched = 0;
  let lastShown = 0;
  const fd = openSync(rf.path, fsc.O_RDONLY | fsc.O_NOFOLLOW);
  const search = grepResult(rf, q, fd, { plain: !json && budget.unlimited, longText: LONG_RECORD });
  let done = false;
  const sliceMs = Math.min(SLICE_MS, ((stallSeconds ?? 1) * 1000) / 4);
  /** The next events, as many as come in a short while; printed bytes copied (the search reuses its memory). */
  const slice = (): GrepEvent[] => {
    const out: GrepEvent[] = [];
    const started = performance.now();
    let bytes = 0;
    while (out.length < SLICE_EVENTS && bytes < SLICE_BYTES && performance.now() - started < sliceMs) {
      const r = search.next();
      if (r.done) {
        done = true;
        break;
      }
      const ev = r.value;
      if (ev.kind === 'printed') {
        out.push({ ...ev, bytes: Buffer.from(ev.bytes) });
        bytes += ev.bytes.length;
      } else if (ev.kind !== 'progress') out.push(ev);
    }
    return out;
  };
  const stalled = `the pattern made no progress for ${stallSeconds} s`;
  try {
    while (!done) {
      for (const ev of stallSeconds === undefined ? slice() : runWatched(slice, stallSeconds, stalled)) {
        if (ev.kind === 'counted' || ev.kind === 'printed') {
          matched += ev.matches;
          if (ev.kind === 'printed') await write(ev.bytes);
          continue;
        }
        if (ev.kind === 'progress') continue;
        if (ev.kind === 'match') matched++;
        if (q.countOnly) continue;
        for (const line of render(ev, json, re)) {
          if (!budget.take(line)) {
            const from = ev.kind === 'gap' ? lastShown + 1 : ev.n;
            const countThis = ev.kind === 'match' ? 1 : 0;
            const what = `output cut at --max-tokens ${budget.max} after ${formatCount(matched - countThis)} matching records`;
            const next = nextCommand(id, plan, from, matched - countThis);
            await write(plan.options.json ? `${JSON.stringify({ type: 'truncated', message: what, next })}\n` : continuationLine(what, next));
            return matched - countThis > 0 ? EXIT.ok : EXIT.noMatch;
          }
          await write(line);
        }
        if (ev.kind !== 'gap') lastShown = ev.n;
      }
    }
  } catch (e) {
    // stuck or only slow on a huge record: measured on the record it was stopped on
    if (!(e instanceof Stalled)) throw e;
    throw new Stalled(stallMessage(q.matcher.regex, stallSeconds!, (n) => `lro read ${id} --records ${n} --columns 1:2000`));
  } finally {
    closeSync(fd);
  }
  if (q.countOnly) await write(`${matched}\n`);
  return matched > 0 ? EXIT.ok : EXIT.noMatch;
}
