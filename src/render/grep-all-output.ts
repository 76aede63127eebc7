// Printing `lro grep --all`, the text of the search of every stored result (newest first, the filters applied; the
// command walks them and hands this their values): each result with matches under a heading line and its lines
// exactly as `lro grep ID` prints them; -l (ids), -c (ID:count). One budget for the whole output; when it is
// spent, the last line's next: command continues at the result and record where this part stopped (--from ID:N).
// A result lro cannot read is skipped with a warning on stderr (search/grep-store.ts).
import { oneLine, EXIT } from '../errors.js';
import type { Header } from '../format/header.js';
import type { ResultFile } from '../format/reader.js';
import type { GrepPlan } from '../search/grep-plan.js';
import { ByteScanner } from '../kernel/scan.js';
import type { StoreWalk } from '../search/grep-store.js';
import { commandOf } from '../store/select.js';
import { formatCount } from '../units.js';
import { OutputBudget, withLargerBudget, truncatedObject, type Next, type NextOf } from '../budget.js';
import { GrepLines, grepInput, partNote } from './grep-output.js';

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
 * The last line of a cut output. When not even the first line fitted, the next command asks for a larger budget
 * (budget.ts largerBudget: the same one would stop at the same line again).
 */
function cutLine(s: StoreGrep, id: string, record: number, tally: Tally): string {
  const stuck = s.budget.used === 0;
  const max = s.budget.max;
  const what = stuck
    ? `the next line does not fit in --max-tokens ${max}`
    : `output cut at --max-tokens ${max} after ${formatCount(tally.matched)} matching records` +
      ` in ${formatCount(tally.results)} results`;
  const plan = stuck ? withLargerBudget(s.plan, max) : s.plan;
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

/** The search of one result of the store (StoreGrepText.result). */
export interface OneResult {
  plan: GrepPlan;
  lines: GrepLines;
  heading: string;
}

/**
 * The text of `lro grep --all`: each result's lines under its heading, or its -l or -c line, in one budget, and
 * the last line of a page. The command walks the store (search/grep-store.ts walkStore) and each result's search
 * (walkGrep), and hands this what they give: `result` is the sink of one result's search, `done` prints what is
 * due after it, `end` the page's last line.
 */
export class StoreGrepText {
  private readonly scanner = new ByteScanner(1 << 20);
  private readonly tally: Tally = { matched: 0, results: 0 };
  private cut = false;

  constructor(private readonly s: StoreGrep) {}

  /** Whether a --from ID:N part starts inside its result (not with -l and -c, which count whole results). */
  get resume(): boolean {
    return !this.s.listOnly && !this.s.plan.query.countOnly;
  }

  /**
   * The search of one result, from record `from`: its plan (-l stops at the first selected record), its sink, and
   * its heading.
   */
  result(rf: ResultFile, from: number): OneResult {
    const { s } = this;
    const h = rf.header;
    const json = !!s.plan.options.json;
    const summary = s.listOnly || s.plan.query.countOnly;
    const mark = json ? (line: string) => `{"result":${JSON.stringify(h.id)},${line.slice(1)}` : undefined;
    const heading = json ? headingObject(h, from) : headingLine(h, from);
    // a next part searches from record 1 again, printing from `from` on: -m, context and gaps as in one output
    const lines = summary ? {} : { heading: [heading], mark, skipBefore: from };
    const plan = planFor(s);
    return { plan, heading, lines: new GrepLines(plan, { budget: s.budget, write: s.write, scanner: this.scanner, ...lines }) };
  }

  /**
   * After a result's search: its -l or -c line, or, when the budget ran out, the cut line with the next command
   * (the page is over: false).
   */
  async done(rf: ResultFile, one: OneResult): Promise<boolean> {
    const { s, tally } = this;
    const h = rf.header;
    const run = one.lines.result();
    tally.matched += run.matched;
    if (run.matched > 0) tally.results++;
    if (run.partial !== undefined) tally.part = partNote(h.id, run.partial, s.budget, s.readOf, true);
    let cutAt: number | null = run.cutAt ?? null;
    const summary = s.listOnly || s.plan.query.countOnly;
    if (cutAt === null && summary && run.matched > 0) {
      const json = !!s.plan.options.json;
      let line: string;
      if (s.listOnly) line = json ? one.heading : `${h.id}\n`;
      else if (json) line = `${JSON.stringify({ type: 'count', result: h.id, count: run.matched })}\n`;
      else line = `${h.id}:${run.matched}\n`;
      if (s.budget.take(line)) await s.write(line);
      else {
        tally.matched -= run.matched;
        tally.results--;
        cutAt = 1; // -l and -c count whole results: the next part starts with this one
      }
    }
    if (cutAt === null) return true;
    await s.write(cutLine(s, h.id, cutAt, tally));
    this.cut = true;
    return false;
  }

  /** The page's last line when it was not cut (a record shown in part); returns the exit code. */
  async end(unfinished: number): Promise<number> {
    const { s, tally } = this;
    if (tally.part && !this.cut && !s.plan.options.json) await s.write(s.budget.note(tally.part.what, [tally.part.mention]));
    if (unfinished > 0) return EXIT.error;
    return tally.matched > 0 ? EXIT.ok : EXIT.noMatch;
  }
}
