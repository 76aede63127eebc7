// Printing a grep, the text of a search's values (the events search/grep-values.ts walkGrep gives, taken one by one:
// GrepLines): the lines of each match and context record (`N:text`, `N-text`, `--`; windows for long records; JSON
// objects with --json), within the output budget, ending with the exact next command when cut (GrepText).
import { EXIT } from '../errors.js';
import type { ResultFile } from '../format/reader.js';
import { formatRange } from '../ranges.js';
import type { GrepEvent } from '../search/grep.js';
import { LONG_RECORD, longWindows, MAX_WINDOWS, recordValues, WINDOW, type GrepWalk } from '../search/grep-values.js';
import type { ByteScanner } from '../kernel/scan.js';
import type { GrepPlan } from '../search/grep-plan.js';
import { formatCount } from '../units.js';
import type { IO } from '../io.js';
import { maxTokensFrom, withLargerBudget, OutputBudget, truncatedObject, type Next, type NextOf } from '../budget.js';

/** Room kept for the line that continues a cut output. */
const CONTINUATION_TOKENS = 80;

export { LONG_RECORD };

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
  if (json) return recordValues(ev, re, streamOf).map((v) => `${JSON.stringify(v)}\n`);
  if (text.length <= LONG_RECORD) return [`${ev.n}${sep}${text}\n`];
  // the windows of a long record
  const { shown, total } = ev.kind === 'match' && re ? longWindows(text, re) : { shown: [], total: 0 };
  if (shown.length === 0) return [`${ev.n}${sep}[0-${WINDOW * 2}/${text.length}] ${text.slice(0, WINDOW * 2)}…\n`];
  const lines = shown.map(({ start: s, end: e }) => `${ev.n}${sep}[${s}-${e}/${text.length}] ${s > 0 ? '…' : ''}${text.slice(s, e)}${e < text.length ? '…' : ''}\n`);
  if (total > MAX_WINDOWS) lines.push(`${ev.n}${sep}[… ${total - MAX_WINDOWS} more windows with matches in this record]\n`);
  return lines;
}

/**
 * The options that ask a search again as `p` asks it (with -m `maxCount` left), for a next command's input
 * (GREP_LAYOUT in commands/grep.ts prints them in grep's order: -F -i -w -v, the context, -m, the rest).
 */
export function grepInput(p: GrepPlan, maxCount: number): Record<string, unknown> {
  const o = p.options;
  const q = p.query;
  const same = q.before > 0 && q.before === q.after; // -C
  return {
    fixedStrings: o.fixedStrings || undefined,
    ignoreCase: o.ignoreCase || undefined,
    wordRegexp: o.wordRegexp || undefined,
    invertMatch: o.invertMatch || undefined,
    context: same ? String(q.before) : undefined,
    afterContext: !same && q.after ? String(q.after) : undefined,
    beforeContext: !same && q.before ? String(q.before) : undefined,
    maxCount: maxCount !== Infinity ? String(maxCount) : undefined,
    json: o.json || undefined,
    stream: o.stream || undefined,
    raw: o.raw || undefined,
    maxTokens: o.maxTokens,
    dir: o.dir || undefined,
  };
}

/**
 * The input of the command that continues a cut output at record `run.cutAt`. When that record may be
 * after-context of a match before it, the next part searches from `run.searchFrom` (so it finds that match again)
 * and prints from the cut on (--from): -m then counts the matches it finds again before the cut as well.
 */
function nextInput(id: string, p: GrepPlan, run: Required<GrepRun>): Record<string, unknown> {
  const again = run.searchFrom < run.cutAt ? run.again : 0;
  const left = p.query.maxCount - run.skipped - run.matched + again;
  return {
    id,
    pattern: p.pattern,
    ...grepInput(p, left),
    records: formatRange(run.searchFrom, p.query.range.to),
    from: run.searchFrom < run.cutAt ? String(run.cutAt) : undefined,
  };
}

/** Where a search printed into a budget (GrepLines) stopped. */
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
  /** A record larger than the whole budget, shown in part (the page's first: see GrepLines.print). */
  partial?: number;
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
 * What is said of a record larger than the whole budget, shown in part, so the cut text is never taken for all of
 * it: that it is, and the command that reads all of it (`readOf`: `lro read`'s in the run's store, a value an MCP
 * call names as its tool call). `ofResult` names the result too (`lro grep --all`, whose page holds several).
 */
export function partNote(id: string, n: number, budget: OutputBudget, readOf: NextOf, ofResult = false): { what: string; mention: Next } {
  const mention = readOf({ id, records: String(n) });
  const record = `record ${n}${ofResult ? ` of ${id}` : ''}`;
  return { what: `${record} is larger than --max-tokens ${budget.max} allows and is shown in part; all of it: ${mention.text}`, mention };
}

/**
 * The text of one search (lro grep ID): its lines within the budget (GrepLines), then the last line, the
 * continuation of a cut output, -c's count, or what is said of a record shown in part. The command hands it the
 * search's values (`take`, as search/grep-values.ts walkGrep gives them) and then asks for its `end`.
 */
export class GrepText {
  // (-m 0 asks for nothing: the command prints nothing and exits 1 without making one, as grep does)
  private readonly budget: OutputBudget;
  private readonly lines: GrepLines;

  constructor(
    private readonly rf: ResultFile,
    private readonly plan: GrepPlan,
    io: Pick<IO, 'env' | 'run'>,
    private readonly write: (s: string | Uint8Array) => Promise<void> | void,
    /** The next part's command, and the `lro read` command that reads all of a record shown in part (partNote). */
    private readonly nexts: { nextOf: NextOf; readOf: NextOf },
    skipBefore?: number,
  ) {
    this.budget = new OutputBudget(maxTokensFrom(plan.options.maxTokens, io.env), rf.header.encoding, io.run);
    this.lines = new GrepLines(plan, { budget: this.budget, write, skipBefore });
  }

  /** How the search hands its lines: already printed when nothing is budgeted or marked (GrepLines.walk). */
  walk(stallSeconds?: number): GrepWalk {
    return this.lines.walk(stallSeconds);
  }

  /** Takes one event of the search; false once the budget is spent. */
  readonly take = (ev: GrepEvent): Promise<boolean> => this.lines.take(ev);

  /** Prints the last line, if one is due; returns the exit code. */
  async end(): Promise<number> {
    const { rf, plan, budget, write, nexts } = this;
    const run = this.lines.result();
    const part = run.partial !== undefined ? partNote(rf.header.id, run.partial, budget, nexts.readOf) : null;
    if (run.cutAt !== undefined) {
      // not one line fitted: the next part asks for a larger budget (the same one would stop here again)
      const stuck = budget.used === 0;
      const said = stuck ? `the next line does not fit in --max-tokens ${budget.max}` : `output cut at --max-tokens ${budget.max} after ${formatCount(run.matched)} matching records`;
      const what = `${part ? `${part.what}; ` : ''}${said}`;
      const asked = stuck ? withLargerBudget(plan, budget.max) : plan;
      const next = nexts.nextOf(nextInput(rf.header.id, asked, run as Required<GrepRun>));
      await write(plan.options.json ? truncatedObject(what, next) : budget.continuation(what, next, part ? [part.mention] : []));
    } else if (plan.query.countOnly) await write(`${run.matched}\n`);
    else if (part && !plan.options.json) await write(budget.note(part.what, [part.mention]));
    return run.matched > 0 ? EXIT.ok : EXIT.noMatch;
  }
}

/** Where a search cut at record `at` stopped, and where its next part searches from (see GrepRun). */
function cut(at: number, rangeFrom: number, after: number, recent: number[], matched: number): GrepRun {
  const searchFrom = Math.max(rangeFrom, at - after);
  return { matched, cutAt: at, searchFrom, again: recent.filter((n) => n >= searchFrom && n < at).length };
}

/**
 * The lines of one result's search, printed into `t` until the budget is spent (then it says where the next part
 * starts, `result`); with -c only counted. It takes the search's events one by one (`take`, the values
 * search/grep-values.ts walkGrep gives): a record's lines (windows of a long one) and the gap line (`--`) before
 * it are printed whole or left whole to the next part.
 */
export class GrepLines {
  private readonly q: GrepPlan['query'];
  private readonly json: boolean;
  private readonly skip: number;
  private readonly re: RegExp | null;
  private heading: string;
  private matched = 0; // selected records from record `skip` on
  private skipped = 0; // and before it (the part before printed them; -m counts them)
  private readonly recent: number[] = []; // selected records within `after` of the last one seen (see GrepRun.searchFrom)
  private gap = false;
  private printedAny = false;
  private partial: number | undefined;
  private stopped: GrepRun | undefined;

  constructor(
    private readonly plan: GrepPlan,
    private readonly t: GrepTarget,
  ) {
    this.q = plan.query;
    this.json = !!plan.options.json;
    this.skip = t.skipBefore ?? 1;
    this.re = this.q.invert ? null : this.q.matcher.regex;
    this.heading = t.heading?.join('') ?? '';
  }

  /** Whether the search is to run at all (not with -m 0). */
  get wanted(): boolean {
    return this.q.maxCount !== 0;
  }

  /**
   * How the search hands its lines: already printed (`plain`) when there is no budget, no mark and nothing to
   * skip; a pattern that could run away (`stallSeconds` given) runs in watched slices.
   */
  walk(stallSeconds?: number): GrepWalk {
    const plain = !this.json && this.t.budget.unlimited && !this.t.mark && this.skip <= 1;
    return { plain, scanner: this.t.scanner, stallSeconds };
  }

  /** Where the search stopped: how many records it selected, and where a cut output's next part starts. */
  result(): GrepRun {
    if (this.stopped) return { ...this.stopped, partial: this.partial };
    return { matched: this.matched, partial: this.partial };
  }

  readonly take = async (ev: GrepEvent): Promise<boolean> => {
    const { q, t } = this;
    if (ev.kind === 'counted' || ev.kind === 'printed') {
      this.matched += ev.matches;
      if (ev.kind === 'printed') {
        if (this.heading) await t.write(this.heading);
        this.heading = '';
        await t.write(ev.bytes);
      }
    } else if (ev.kind === 'gap') this.gap = true;
    else if (ev.kind === 'progress') return true;
    else if (ev.n < this.skip) {
      this.gap = false; // printed by the part before (a next part's search starts before it)
      if (ev.kind === 'match') this.skipped++;
    } else if (q.countOnly || (await this.print(ev))) {
      if (ev.kind !== 'match') return true;
      this.matched++;
      if (q.after > 0 && this.recent.push(ev.n) > q.after) this.recent.shift(); // only the last `after` can matter
    } else {
      this.stopped = { ...cut(ev.n, q.range.from, q.after, this.recent, this.matched), skipped: this.skipped };
      return false;
    }
    return true;
  };

  /**
   * Prints a match or context event, all its lines or none; false when the budget is spent. The first record of a
   * part that does not fit whole is printed as far as it fits (its windows, or its first line cut), so that a
   * part always moves on: its next command starts after that record, never at it again. The first of a page
   * only: a result of `lro grep --all` that begins after others on the page goes to the next page whole.
   */
  private async print(ev: Extract<GrepEvent, { kind: 'match' | 'context' }>): Promise<boolean> {
    const { t, json } = this;
    const lines = render(ev, json, this.re, this.plan.streamOf).map((l) => (t.mark ? t.mark(l) : l));
    const before = `${this.heading}${this.gap && !json ? '--\n' : ''}`;
    const text = `${before}${lines.join('')}`;
    if (!t.budget.take(text)) {
      if (this.printedAny || !t.budget.empty) return false; // the whole record goes to the next part
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
      if (shown < lines.length) this.partial = ev.n;
    } else await t.write(text);
    this.heading = '';
    this.gap = false;
    this.printedAny = true;
    return true;
  }
}
