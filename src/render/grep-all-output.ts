// Printing `lro grep --all`: the search of every stored result (newest first, the filters applied), each result
// with matches under a heading line and its lines exactly as `lro grep ID` prints them; -l (ids), -c (ID:count).
// One budget for the whole output; when it is spent, the last line's next: command continues at the result and
// record where this part stopped (--from ID:N). A result lro cannot read is skipped with a warning on stderr.
import { oneLine, EXIT } from '../errors.js';
import type { Header } from '../format/header.js';
import type { ResultFile } from '../format/reader.js';
import type { GrepPlan } from '../search/grep-plan.js';
import { ByteScanner } from '../kernel/scan.js';
import { walkStore, type StoreWalk } from '../search/grep-store.js';
import { commandOf } from '../store/select.js';
import { formatCount } from '../units.js';
import { OutputBudget, truncatedObject, type Next, type NextOf } from '../budget.js';
import { grepInput, partNote, searchInto, type GrepTarget } from './grep-output.js';

/** What `lro grep --all` was asked besides the search itself (and which results, StoreWalk). */
export interface StoreGrep extends StoreWalk {
  plan: GrepPlan;
  /** -l: only the ids of the results with a selected record. */
  listOnly: boolean;
  /** The filters as the next command's input repeats them (--since as an absolute time, so the next part is the same set). */
  filterInput: Record<string, unknown>;
  /** Makes the next command of an input (lro grep's declaration and GREP_ALL_LAYOUT). */
  nextOf: NextOf;
  /** Makes an `lro read` command of an input, in the store searched (all of a record shown in part, grep-output.ts partNote). */
  readOf: NextOf;
  budget: OutputBudget;
  write: (s: string | Uint8Array) => Promise<void> | void;
  stallSeconds?: number;
}

/** Where the search of the store stands. */
interface Tally {
  matched: number;
  results: number;
  /** What is said of the record shown in part (a page's first, when it is larger than the budget), if one was. */
  part?: { what: string; mention: Next };
}

const MAX_COMMAND = 120;

/** The heading of a result: `== ID  TIME  N records  $ COMMAND` (the operation in parentheses without one). */
export function headingLine(h: Header, fromRecord: number): string {
  const time = h.timestamp.replace(/\.\d+Z$/, 'Z');
  const from = fromRecord > 1 ? `, from record ${fromRecord}` : '';
  const records = `${formatCount(h.count)} record${h.count === 1 ? '' : 's'}${from}`;
  const cmd = commandOf(h);
  const cut = cmd !== null && cmd.length > MAX_COMMAND ? `${cmd.slice(0, MAX_COMMAND)}…` : cmd;
  const shown = cut === null ? `(${h.operation})` : `$ ${oneLine(cut)}`;
  return `== ${h.id}  ${time}  ${records}  ${shown}\n`;
}

/** The heading as a JSON object (--json). */
function headingObject(h: Header, fromRecord: number): string {
  const from = fromRecord > 1 ? { from_record: fromRecord } : {};
  const o = {
    type: 'result',
    result: h.id,
    timestamp: h.timestamp,
    records: h.count,
    operation: h.operation,
    command: commandOf(h),
    ...from,
  };
  return `${JSON.stringify(o)}\n`;
}

/** The input of the command that continues the search at result `id`, record `record` (the pattern is the id argument). */
function nextInput(s: StoreGrep, id: string, record: number): Record<string, unknown> {
  const q = s.plan.query;
  return {
    id: s.plan.pattern,
    all: true,
    filesWithMatches: s.listOnly || undefined,
    count: (!s.listOnly && q.countOnly) || undefined,
    ...grepInput(s.plan, q.maxCount),
    ...s.filterInput,
    from: record > 1 ? `${id}:${record}` : id,
  };
}

/**
 * The last line of a cut output. When not even the first line fitted, the next command asks for a budget four
 * times as large (the same one would stop at the same line again).
 */
function cutLine(s: StoreGrep, id: string, record: number, tally: Tally): string {
  const stuck = s.budget.used === 0;
  const max = s.budget.max;
  const what = stuck
    ? `the next line does not fit in --max-tokens ${max}`
    : `output cut at --max-tokens ${max} after ${formatCount(tally.matched)} matching records` +
      ` in ${formatCount(tally.results)} results`;
  const plan = stuck ? { ...s.plan, options: { ...s.plan.options, maxTokens: String(max * 4) } } : s.plan;
  const next = s.nextOf(nextInput({ ...s, plan }, id, record));
  const part = tally.part;
  const said = `${part ? `${part.what}; ` : ''}${what}`;
  return s.plan.options.json ? truncatedObject(said, next) : s.budget.continuation(said, next, part ? [part.mention] : []);
}

/** The search of one result: -l stops at its first selected record, -l and -c only count. */
function planFor(s: StoreGrep): GrepPlan {
  const q = s.plan.query;
  if (!s.listOnly) return s.plan;
  return { ...s.plan, query: { ...q, maxCount: 1, countOnly: true } };
}

/**
 * Searches one result and prints its part. Returns the record to continue at when the budget ran out (a
 * next command is then due), else null.
 */
async function searchOne(
  rf: ResultFile,
  s: StoreGrep,
  from: number,
  tally: Tally,
  scanner: ByteScanner,
): Promise<number | null> {
  const h = rf.header;
  const json = !!s.plan.options.json;
  const summary = s.listOnly || s.plan.query.countOnly;
  const plan = planFor(s);
  const mark = json ? (line: string) => `{"result":${JSON.stringify(h.id)},${line.slice(1)}` : undefined;
  const heading = json ? headingObject(h, from) : headingLine(h, from);
  // a next part searches from record 1 again, printing from `from` on: -m, context and gaps as in one output
  const lines = summary ? {} : { heading: [heading], mark, skipBefore: from };
  const t: GrepTarget = { budget: s.budget, write: s.write, scanner, ...lines };
  const run = await searchInto(rf, plan, t, s.stallSeconds);
  tally.matched += run.matched;
  if (run.matched > 0) tally.results++;
  if (run.partial !== undefined) tally.part = partNote(h.id, run.partial, s.budget, s.readOf, true);
  if (run.cutAt !== undefined) return run.cutAt;
  if (!summary || run.matched === 0) return null;
  let line: string;
  if (s.listOnly) line = json ? heading : `${h.id}\n`;
  else if (json) line = `${JSON.stringify({ type: 'count', result: h.id, count: run.matched })}\n`;
  else line = `${h.id}:${run.matched}\n`;
  if (s.budget.take(line)) {
    await s.write(line);
    return null;
  }
  tally.matched -= run.matched;
  tally.results--;
  return 1; // -l and -c count whole results: the next part starts with this one
}

/** Searches the store; returns the exit code (0 a record selected, 1 none, 2 a result not finished in time). */
export async function printGrepAll(s: StoreGrep): Promise<number> {
  const scanner = new ByteScanner(1 << 20);
  const tally: Tally = { matched: 0, results: 0 };
  const resume = !s.listOnly && !s.plan.query.countOnly;
  let cut = false;
  const { unfinished } = await walkStore(s, resume, async (rf, from) => {
    const cutAt = await searchOne(rf, s, from, tally, scanner);
    if (cutAt === null) return true;
    await s.write(cutLine(s, rf.header.id, cutAt, tally));
    cut = true;
    return false;
  });
  if (tally.part && !cut && !s.plan.options.json) await s.write(s.budget.note(tally.part.what, [tally.part.mention]));
  if (unfinished > 0) return EXIT.error;
  return tally.matched > 0 ? EXIT.ok : EXIT.noMatch;
}
