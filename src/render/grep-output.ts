// Printing a grep: the lines of each match and context record (`N:text`, `N-text`, `--`; windows for long
// records; JSON objects with --json), within the output budget, ending with the exact next command when cut.
import { closeSync, constants as fsc, openSync } from 'node:fs';
import { shellQuote } from '../shell-quote.js';
import { runWatched, Stalled } from '../watchdog.js';
import { EXIT } from '../errors.js';
import type { ResultFile } from '../format/reader.js';
import { formatRange } from '../ranges.js';
import { grepResult, type GrepEvent } from '../search/grep.js';
import type { ByteScanner } from '../search/scan.js';
import type { GrepPlan } from '../search/grep-plan.js';
import { stallMessage } from '../search/slow-pattern.js';
import { formatCount } from '../units.js';
import { continuationLine, maxTokensFrom, OutputBudget, truncatedObject } from '../budget.js';

/** Room kept for the line that continues a cut output. */
const CONTINUATION_TOKENS = 80;

/** Records longer than this are shown as windows around their matches. */
export const LONG_RECORD = 1000;
const WINDOW = 100;
const MAX_WINDOWS = 10;

/** The longest window: matches closer together than this go into more windows, never into one without end. */
const MAX_WINDOW = 4 * WINDOW;

/**
 * Windows of a long record around its matches: [start, end) pairs, merged while the merged window stays within
 * MAX_WINDOW (a record holding a match every 30 characters was one window of all of it, larger than any budget).
 */
function windows(length: number, matches: [number, number][]): [number, number][] {
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
function render(
  ev: Extract<GrepEvent, { kind: 'match' | 'context' | 'gap' }>,
  json: boolean,
  re: RegExp | null,
  streamOf?: (n: number) => string,
): string[] {
  if (ev.kind === 'gap') return json ? [] : ['--\n'];
  const { text } = ev;
  const sep = ev.kind === 'match' ? ':' : '-';
  // offsets are needed for JSON and for the windows of a long record only
  const matches = ev.kind === 'match' && re && (json || text.length > LONG_RECORD) ? matchOffsets(re, text) : [];
  if (json) {
    const obj = (t: string, offset: number, ms: [number, number][]) =>
      `${JSON.stringify({ type: ev.kind, record: ev.n, ...(streamOf ? { stream: streamOf(ev.n) } : {}), text: t, offset, record_length: text.length, matches: ms.map(([start, end]) => ({ start, end })) })}\n`;
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

/** The flags that ask a search again as `p` asks it (with -m `maxCount` left), for a next command. */
export function grepFlags(p: GrepPlan, maxCount: number): string[] {
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
  if (maxCount !== Infinity) flags.push(`-m ${maxCount}`);
  if (o.json) flags.push('--json');
  if (o.stream) flags.push(`--stream ${o.stream}`);
  if (o.raw) flags.push('--raw');
  if (o.maxTokens !== undefined) flags.push(`--max-tokens ${o.maxTokens}`);
  if (o.dir) flags.push(`--dir ${shellQuote(o.dir)}`);
  return flags;
}

/**
 * The command that continues a cut output at record `run.cutAt`. When that record may be after-context of a match
 * before it, the next part searches from `run.searchFrom` (so it finds that match again) and prints from the cut
 * on (--from): -m then counts the matches it finds again before the cut as well.
 */
function nextCommand(id: string, p: GrepPlan, run: Required<GrepRun>): string {
  const again = run.searchFrom < run.cutAt ? run.again : 0;
  const left = p.query.maxCount - run.skipped - run.matched + again;
  const flags = [...grepFlags(p, left), `--records ${formatRange(run.searchFrom, p.query.range.to)}`];
  if (run.searchFrom < run.cutAt) flags.push(`--from ${run.cutAt}`);
  return `lro grep ${id} ${shellQuote(p.pattern)} ${flags.join(' ')}`;
}

/** A slice of the search's events: up to this many, or this much time (see watchdog.ts; each watched
 * slice costs about 0.1 ms, more on a busy machine, so slices are long but well within any allowance). */
const SLICE_EVENTS = 1024;
/** ...and at most about this much printed output held (memory stays flat whatever the output). */
const SLICE_BYTES = 2 << 20;
const SLICE_MS = 200;

/** Where a search printed into a budget (searchInto) stopped. */
export interface GrepRun {
  /** Records selected (before the cut, when cut). */
  matched: number;
  /** Cut by the budget: the record the next part starts at. */
  cutAt?: number;
  /**
   * Cut: where the next part's search starts, `after` records before the cut (a match there makes the records
   * from the cut its after-context), and how many records it selected there, before the cut.
   */
  searchFrom?: number;
  again?: number;
  /** Cut: records selected before the records printed (a next part's, printed by the part before). */
  skipped?: number;
}

/** Where a search prints: the budget it shares, the writer, and what `lro grep --all` adds to a result's lines. */
export interface GrepTarget {
  budget: OutputBudget;
  write: (s: string | Uint8Array) => Promise<void> | void;
  /** Lines printed before the result's first line (its heading), taken from the same budget. */
  heading?: string[];
  /** Rewrites each rendered line before it is taken (the result's id in each JSON object). */
  mark?: (line: string) => string;
  /**
   * Records before this one are searched but not printed (nor counted in `matched`): a next part of
   * `lro grep --all` searches its result from record 1, so -m, context and gaps come out as in one whole output.
   */
  skipBefore?: number;
  /** The scan kernel to reuse (one for a whole store), else one is made. */
  scanner?: ByteScanner;
}

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
  skipBefore?: number,
): Promise<number> {
  const q = plan.query;
  if (q.maxCount === 0) return EXIT.noMatch;
  const budget = new OutputBudget(maxTokensFrom(plan.options.maxTokens, env), rf.header.encoding);
  const run = await searchInto(rf, plan, { budget, write, skipBefore }, stallSeconds);
  if (run.cutAt !== undefined) {
    const what = `output cut at --max-tokens ${budget.max} after ${formatCount(run.matched)} matching records`;
    const next = nextCommand(rf.header.id, plan, run as Required<GrepRun>);
    await write(plan.options.json ? truncatedObject(what, next) : continuationLine(what, next));
  } else if (q.countOnly) await write(`${run.matched}\n`);
  return run.matched > 0 ? EXIT.ok : EXIT.noMatch;
}

/** Where a search cut at record `at` stopped, and where its next part searches from (see GrepRun). */
function cut(at: number, rangeFrom: number, after: number, recent: number[], matched: number): GrepRun {
  const searchFrom = Math.max(rangeFrom, at - after);
  return { matched, cutAt: at, searchFrom, again: recent.filter((n) => n >= searchFrom && n < at).length };
}

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

/**
 * Searches one result and prints its lines into `t` until the budget is spent (then says where the next part
 * starts); with -c only counts. A pattern that could run away (`stallSeconds` given) runs in watched slices.
 * A record's lines (windows of a long one) and the gap line (`--`) before it are printed whole or left whole to
 * the next part.
 */
export async function searchInto(rf: ResultFile, plan: GrepPlan, t: GrepTarget, stallSeconds?: number): Promise<GrepRun> {
  const q = plan.query;
  const id = rf.header.id;
  if (q.maxCount === 0) return { matched: 0 };
  const json = !!plan.options.json;
  const skip = t.skipBefore ?? 1;
  const re = q.invert ? null : q.matcher.regex;
  let heading = t.heading?.join('') ?? '';
  let matched = 0; // selected records from record `skip` on
  let skipped = 0; // and before it (the part before printed them; -m counts them)
  const recent: number[] = []; // selected records within `after` of the last one seen (see GrepRun.searchFrom)
  let gap = false;
  let printedAny = false;
  /**
   * Prints a match or context event, all its lines or none; false when the budget is spent. The first record of a
   * part that does not fit whole is printed as far as it fits (its windows, or its first line cut), so that a
   * part always moves on: its next command starts after that record, never at it again.
   */
  const print = async (ev: Extract<GrepEvent, { kind: 'match' | 'context' }>): Promise<boolean> => {
    const lines = render(ev, json, re, plan.streamOf).map((l) => (t.mark ? t.mark(l) : l));
    const before = `${heading}${gap && !json ? '--\n' : ''}`;
    const text = `${before}${lines.join('')}`;
    if (!t.budget.take(text)) {
      if (printedAny) return false; // the whole record goes to the next part
      if (!t.budget.take(before)) return false;
      let shown = 0;
      for (const line of lines) {
        if (!t.budget.take(line)) break;
        await t.write(shown === 0 ? before + line : line);
        shown++;
      }
      if (shown === 0) {
        if (json) return false;
        const first = lines[0].replace(/\n$/, '');
        const room = t.budget.left - Math.min(CONTINUATION_TOKENS, Math.floor(t.budget.left / 2));
        const n = t.budget.fitPrefix(first, Math.max(0, room));
        const piece = `${before}${first.slice(0, n)}…\n`;
        if (n === 0 || !t.budget.take(first.slice(0, n) + '…\n')) return false;
        await t.write(piece);
      }
    } else await t.write(text);
    heading = '';
    gap = false;
    printedAny = true;
    return true;
  };
  const fd = openSync(rf.path, fsc.O_RDONLY | fsc.O_NOFOLLOW);
  const plain = !json && t.budget.unlimited && !t.mark && skip <= 1;
  const search = grepResult(rf, q, fd, { plain, longText: LONG_RECORD, scanner: t.scanner });
  const events = slicer(search, Math.min(SLICE_MS, ((stallSeconds ?? 1) * 1000) / 4));
  const stalled = `the pattern made no progress for ${stallSeconds} s`;
  try {
    while (!events.done) {
      for (const ev of stallSeconds === undefined ? events.next() : runWatched(events.next, stallSeconds, stalled)) {
        if (ev.kind === 'counted' || ev.kind === 'printed') {
          matched += ev.matches;
          if (ev.kind === 'printed') {
            if (heading) await t.write(heading);
            heading = '';
            await t.write(ev.bytes);
          }
        } else if (ev.kind === 'gap') gap = true;
        else if (ev.kind === 'progress') continue;
        else if (ev.n < skip) {
          gap = false; // printed by the part before (a next part's search starts before it)
          if (ev.kind === 'match') skipped++;
        }
        else if (q.countOnly || (await print(ev))) {
          if (ev.kind !== 'match') continue;
          matched++;
          if (q.after > 0 && recent.push(ev.n) > q.after) recent.shift(); // only the last `after` can matter
        } else return { ...cut(ev.n, q.range.from, q.after, recent, matched), skipped };
      }
    }
  } catch (e) {
    // stuck or only slow on a huge record: measured on the record it was stopped on
    if (!(e instanceof Stalled)) throw e;
    throw new Stalled(stallMessage(q.matcher.regex, stallSeconds!, (n) => `lro read ${id} --records ${n} --columns 1:2000`));
  } finally {
    closeSync(fd);
  }
  return { matched };
}
