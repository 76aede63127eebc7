// Printing a grep: the lines of each match and context record (`N:text`, `N-text`, `--`; windows for long
// records; JSON objects with --json), within the output budget, ending with the exact next command when cut.
import { shellQuote } from '../describe/shell.js';
import { EXIT } from '../errors.js';
import type { ResultFile } from '../format/reader.js';
import { formatRange } from '../ranges.js';
import { grepResult, type GrepEvent } from '../search/grep.js';
import type { GrepPlan } from '../search/grep-plan.js';
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

/** The output lines of one event (several for a long record). */
function render(ev: GrepEvent, json: boolean): string[] {
  if (ev.kind === 'gap') return json ? [] : ['--\n'];
  const { text } = ev;
  const sep = ev.kind === 'match' ? ':' : '-';
  const matches = ev.kind === 'match' ? ev.matches : [];
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

/**
 * The search and its printing, with the budget: used on the main thread, and in a worker for patterns that
 * could run away. `tick` reports progress to a watchdog. Returns the exit code.
 */
export async function printGrep(
  rf: ResultFile,
  plan: GrepPlan,
  env: NodeJS.ProcessEnv,
  write: (s: string) => Promise<void> | void,
  tick?: (record: number) => void,
): Promise<number> {
  const q = plan.query;
  const id = rf.header.id;
  if (q.maxCount === 0) return EXIT.noMatch;
  const budget = new OutputBudget(maxTokensFrom(plan.options.maxTokens, env), rf.header.encoding);
  let matched = 0;
  let lastShown = 0;
  for (const ev of grepResult(rf, q, tick)) {
    if (ev.kind === 'match') matched++;
    if (q.countOnly) continue;
    for (const line of render(ev, !!plan.options.json)) {
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
  if (q.countOnly) await write(`${matched}\n`);
  return matched > 0 ? EXIT.ok : EXIT.noMatch;
}
