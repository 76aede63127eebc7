// `lro grep ID PATTERN`: JavaScript regular expressions over each record's text (the line of a text result,
// the compact JSON of a JSON record), printed as `N:text` (matches) and `N-text` (context) like grep -n, within
// the output budget. Exit 0 if anything matched, 1 if nothing did, 2 on error.
import { Command } from 'commander';
import type { Context } from '../cli.js';
import { shellQuote } from '../describe/shell.js';
import { EXIT, UsageError } from '../errors.js';
import { FormatError } from '../format/header.js';
import type { ResultFile } from '../format/reader.js';
import type { IO } from '../io.js';
import { formatRange, parseRange, type Range } from '../ranges.js';
import { OutputBatch } from '../render/batch.js';
import { continuationLine, maxTokensFrom, OutputBudget } from '../render/budget.js';
import { DEFAULT_STALL_SECONDS, runGuarded } from '../engines/guard.js';
import { grepResult, type GrepEvent, type GrepQuery } from '../search/grep.js';
import { compilePattern } from '../search/pattern.js';
import { damagedError, resolveResult } from '../store/resolve.js';
import { formatCount, parseCount, parseTimeout } from '../units.js';

export interface GrepOptions {
  dir?: string;
  fixedStrings?: boolean;
  ignoreCase?: boolean;
  wordRegexp?: boolean;
  invertMatch?: boolean;
  count?: boolean;
  maxCount?: string;
  afterContext?: string;
  beforeContext?: string;
  context?: string;
  records?: string;
  json?: boolean;
  maxTokens?: string;
  timeout?: string;
}

/** Records longer than this are shown as windows around their matches. */
const LONG_RECORD = 1000;
const WINDOW = 100;
const MAX_WINDOWS = 10;

export interface GrepPlan {
  query: GrepQuery;
  pattern: string;
  options: GrepOptions;
}

/** Parses the options into a search (throws UsageError on bad ones). */
export function planGrep(pattern: string, o: GrepOptions, count: number): GrepPlan {
  const num = (v: string | undefined, name: string) => (v === undefined ? undefined : parseCount(v, name));
  const context = num(o.context, '-C') ?? 0;
  const matcher = compilePattern(pattern, { fixed: !!o.fixedStrings, ignoreCase: !!o.ignoreCase, word: !!o.wordRegexp });
  const range: Range = o.records !== undefined ? parseRange(o.records, '--records') : { from: 1, to: Infinity };
  if (o.records !== undefined && range.from > count && count > 0) {
    throw new UsageError(`--records ${o.records} is past the end: the result has ${formatCount(count)} records`);
  }
  const maxCount = num(o.maxCount, '-m') ?? Infinity;
  return {
    pattern,
    options: o,
    query: {
      matcher,
      invert: !!o.invertMatch,
      range,
      before: num(o.beforeContext, '-B') ?? context,
      after: num(o.afterContext, '-A') ?? context,
      maxCount: maxCount === 0 ? 0 : maxCount,
      countOnly: !!o.count,
    },
  };
}

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
  if (o.maxTokens !== undefined) flags.push(`--max-tokens ${o.maxTokens}`);
  if (o.dir) flags.push(`--dir ${shellQuote(o.dir)}`);
  flags.push(`--records ${formatRange(from, q.range.to)}`);
  return `lro grep ${id} ${shellQuote(p.pattern)} ${flags.join(' ')}`;
}

/** Runs the search and prints it; returns the exit code. Runs in a worker when the pattern could run away. */
export async function runGrep(ref: string, pattern: string, o: GrepOptions, io: IO): Promise<number> {
  const rf = resolveResult(ref, { dir: o.dir, env: io.env });
  const plan = planGrep(pattern, o, rf.header.count);
  const timeout = o.timeout !== undefined ? parseTimeout(o.timeout) : DEFAULT_STALL_SECONDS; // checked even when unused
  const out = new OutputBatch(io.stdout);
  try {
    const inProcess = () => printGrep(rf, plan, io.env, (s) => out.add(s));
    // a pattern that matches in linear time runs here; any other runs where it can be stopped
    if (plan.query.matcher.linearTime) return await inProcess();
    const env = { LRO_MAX_OUTPUT_TOKENS: io.env.LRO_MAX_OUTPUT_TOKENS };
    return await runGuarded({ task: 'grep', path: rf.path, pattern, options: { ...o }, env }, (s) => out.add(s), (s) => io.stderr.write(s), 'grep', inProcess, timeout);
  } catch (e) {
    if (e instanceof FormatError) throw damagedError(rf, e);
    throw e;
  } finally {
    await out.flush();
  }
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

export function grepCommand(ctx: Context): Command {
  return new Command('grep')
    .description('search the records of a stored result with a JavaScript regular expression (N:text, like grep -n)')
    .argument('<id>', "result id, 'last', or the path of a result file")
    .argument('<pattern>', 'JavaScript regular expression (or a fixed string with -F)')
    .option('-F, --fixed-strings', 'the pattern is a fixed string')
    .option('-i, --ignore-case', 'ignore case')
    .option('-w, --word-regexp', 'match whole words only')
    .option('-v, --invert-match', 'select records that do not match')
    .option('-c, --count', 'print only the number of selected records')
    .option('-m, --max-count <n>', 'stop after n selected records')
    .option('-A, --after-context <n>', 'print n records after each match')
    .option('-B, --before-context <n>', 'print n records before each match')
    .option('-C, --context <n>', 'print n records before and after each match')
    .option('--records <A:B>', 'search only records A to B (1-based, inclusive)')
    .option('--json', 'one JSON object per printed record: {type, record, text, offset, record_length, matches}')
    .option('--max-tokens <n>', 'output budget in tokens (default: $LRO_MAX_OUTPUT_TOKENS, else 2000; 0 = no limit)')
    .option('--timeout <seconds>', `stop a pattern that makes no progress for this long (default: ${DEFAULT_STALL_SECONDS}s)`)
    .option('--dir <dir>', 'store directory')
    .addHelpText(
      'after',
      `
Examples:
  lro grep 01JD2X3Y4Z5A6B7C8D9E0F1G2H 'ERROR|FATAL' -C 2
  lro grep last '"status":"error"' -c          JSON records are searched as compact JSON
  lro grep last -F 'Connection refused' -m 5

A record longer than ${LONG_RECORD} characters is shown as windows around its matches: N:[start-end/length] text.
Exit status: 0 if a record was selected, 1 if none, 2 on error (a pattern that runs too long is stopped).`,
    )
    .action(async (id: string, pattern: string, opts: GrepOptions) => {
      ctx.exitCode = await runGrep(id, pattern, opts, ctx.io);
    });
}
