// Printing what `lro count` found (its values, query/count.ts CountResult): one row per group, most frequent first
// (`count  first  value`, `first` being the first record with that value), or one JSON object per group with
// --json, within the output budget; a cut output ends with the exact command for the next groups. A last line says
// how many records and groups there were.
import { shellQuote } from '../shell-quote.js';
import type { ResultFile } from '../format/reader.js';
import type { CountPlan, CountResult } from '../query/count.js';
import type { RecordDecoder } from '../query/records.js';
import { valueText as shownValue } from '../values/literal.js';
import { toJson, type JsonValue } from '../values/json-value.js';
import { pathLabel } from '../query/path.js';
import { queryContentType } from '../query/view.js';
import { typeHint } from '../query/condition.js';
import { formatRange } from '../ranges.js';
import { formatCount } from '../units.js';
import type { IO } from '../io.js';
import { maxTokensFrom, withLargerBudget, OutputBudget, truncatedObject, type NextOf } from '../budget.js';

/** The column titles: what each group's value is. */
function labels(plan: CountPlan): string[] {
  const q = plan.query;
  if (q.text) return [q.text.kind === 'regex' ? shellQuote(q.text.pattern) : q.text.kind];
  return q.paths.map(pathLabel);
}

function row(plan: CountPlan, count: string, first: string, value: JsonValue | string, header = false): string {
  const cells = header || plan.query.paths.length <= 1 || !Array.isArray(value) ? [header ? (value as string) : shownValue(value as JsonValue)] : (value as JsonValue[]).map(shownValue);
  return `${count.padStart(7)}  ${first.padStart(6)}  ${cells.join('  ')}\n`;
}

/** The input of the command that continues a cut output from group `from` (COUNT_LAYOUT prints --groups last). */
export function countNextInput(id: string, plan: CountPlan, from: number): Record<string, unknown> {
  const o = plan.options;
  return {
    id,
    by: plan.by,
    condition: plan.args,
    any: o.any || undefined,
    ignoreCase: o.ignoreCase || undefined,
    distinct: o.distinct || undefined,
    records: o.records,
    json: o.json || undefined,
    stream: o.stream,
    maxTokens: o.maxTokens,
    dir: o.dir || undefined,
    groups: formatRange(from, plan.query.groups.to),
  };
}

/**
 * Prints what a count found (`res`, countQuery's over `view`): the groups within the budget, then on stderr what
 * the view passed over and, when nothing matched, why that may be. Returns the exit code (0).
 */
export async function printCount(
  rf: ResultFile,
  plan: CountPlan,
  res: CountResult,
  view: RecordDecoder,
  io: Pick<IO, 'env' | 'run'>,
  write: (s: string) => Promise<void> | void,
  writeErr: (s: string) => Promise<void> | void,
  nexts: { nextOf: NextOf; readOf: NextOf },
): Promise<number> {
  const q = plan.query;
  const { nextOf } = nexts;
  await (q.distinct ? printDistinct(rf, plan, res, io, write, nextOf) : printGroups(rf, plan, res, io, write, nextOf));
  const note = view.skippedNote(q.range, nexts.readOf, io.run);
  if (note) await writeErr(note);
  const hint = res.records === 0 ? typeHint(q.conditions) : '';
  if (hint) await writeErr(`lro: no record matched: ${hint}\n`);
  const word = bareWordRegex(q);
  if (word) {
    // a column's name given to a text result that is no table: say what it was read as, not a silent column of nulls
    await writeErr(
      `lro: result ${rf.header.id} is text, not a table: --by ${shellQuote(word)} is a regular expression with no group, ` +
        `each line counted by the text it matches (null: no match); a group captures a value: --by ${shellQuote(`${word}=(\\S+)`)}\n`,
    );
  }
  return 0;
}

/** The --by of a text result that looks like a column's name (a word, no group): what a table would have. */
function bareWordRegex(q: CountPlan['query']): string | null {
  const t = q.text;
  return t?.kind === 'regex' && /^[A-Za-z_%#][\w%#. -]*$/.test(t.pattern) ? t.pattern : null;
}

/** What both listings of a count start from: the query, JSON or text, the token budget, and what a record is called. */
function printing(rf: ResultFile, plan: CountPlan, io: Pick<IO, 'env' | 'run'>) {
  return {
    q: plan.query,
    json: !!plan.options.json,
    budget: new OutputBudget(maxTokensFrom(plan.options.maxTokens, io.env), rf.header.encoding, io.run),
    unit: queryContentType(rf) === 'text' ? 'lines' : 'records',
  };
}

async function printGroups(
  rf: ResultFile,
  plan: CountPlan,
  res: CountResult,
  io: Pick<IO, 'env' | 'run'>,
  write: (s: string) => Promise<void> | void,
  nextOf: NextOf,
): Promise<void> {
  const { q, json, budget, unit } = printing(rf, plan, io);
  const what = q.text?.kind === 'template' ? 'templates' : q.paths.length > 1 ? 'combinations' : 'values';
  if (q.total) {
    await write(json ? `${JSON.stringify({ count: res.records })}\n` : `${res.records}\n`);
    return;
  }
  const from = q.groups.from;
  const to = Math.min(q.groups.to, res.groups.length);
  if (!json) budget.take(row(plan, 'count', 'first', labels(plan).join('  '), true));
  if (!json) await write(row(plan, 'count', 'first', labels(plan).join('  '), true));
  for (let i = from - 1; i < to; i++) {
    const g = res.groups[i];
    const line = json ? `${JSON.stringify({ count: g.count, first: g.first }).slice(0, -1)},"value":${toJson(g.value)}}\n` : row(plan, formatCount(g.count), String(g.first), g.value);
    if (!budget.take(line)) {
      const stuck = i === from - 1; // not one row fitted: the next part asks for a larger budget
      const message = stuck
        ? `the next row does not fit in --max-tokens ${budget.max}`
        : `showed ${what} ${from}-${i} of ${formatCount(res.groups.length)} (--max-tokens ${budget.max})`;
      const next = nextOf(countNextInput(rf.header.id, stuck ? withLargerBudget(plan, budget.max) : plan, i + 1));
      await write(json ? truncatedObject(message, next) : budget.continuation(message, next));
      return;
    }
    await write(line);
  }
  if (res.other > 0) {
    const message = `${formatCount(res.other)} more ${unit} have values beyond the first ${formatCount(res.groups.length)} distinct ones (first: record ${res.otherFirst}); count within a range with --records`;
    await write(json ? `${JSON.stringify({ type: 'other', count: res.other, first: res.otherFirst, message })}\n` : `${formatCount(res.other).padStart(7)}  ${String(res.otherFirst).padStart(6)}  (other values: ${message})\n`);
  }
  if (!json) await write(`${formatCount(res.records)} ${unit}, ${formatCount(res.groups.length)} ${what}${res.groups.length && q.groups.from > 1 ? ` (from the ${ordinal(from)})` : ''}\n`);
}

/**
 * --distinct: a first line with how many distinct values (of how many records), then the values one a line,
 * most frequent first as the counts are (so a cut list keeps the common ones), within the budget; a cut list ends
 * with the command for the next values. JSON: {distinct, records}, then {value} per value.
 */
async function printDistinct(
  rf: ResultFile,
  plan: CountPlan,
  res: CountResult,
  io: Pick<IO, 'env' | 'run'>,
  write: (s: string) => Promise<void> | void,
  nextOf: NextOf,
): Promise<void> {
  const { q, json, budget, unit } = printing(rf, plan, io);
  const n = res.groups.length;
  const atLeast = res.other > 0 ? 'at least ' : ''; // values past MAX_GROUPS were not kept apart
  const what = `${labels(plan).join(', ')}`;
  const head = json
    ? `${JSON.stringify({ distinct: n, records: res.records, ...(res.other > 0 ? { other: res.other } : {}) })}\n`
    : `${atLeast}${formatCount(n)} distinct values of ${what} in ${formatCount(res.records)} ${unit}\n`;
  budget.take(head);
  await write(head);
  const from = q.groups.from;
  const to = Math.min(q.groups.to, n);
  for (let i = from - 1; i < to; i++) {
    const g = res.groups[i];
    const several = q.paths.length > 1 && Array.isArray(g.value);
    const cells = several ? (g.value as JsonValue[]).map(shownValue).join('  ') : shownValue(g.value);
    const line = json ? `{"value":${toJson(g.value)}}\n` : `${cells}\n`;
    if (!budget.take(line)) {
      const stuck = i === from - 1; // not one value fitted: the next part asks for a larger budget
      const message = stuck ? `the next value does not fit in --max-tokens ${budget.max}` : `showed values ${from}-${i} of ${formatCount(n)} (--max-tokens ${budget.max})`;
      const next = nextOf(countNextInput(rf.header.id, stuck ? withLargerBudget(plan, budget.max) : plan, i + 1));
      await write(json ? truncatedObject(message, next) : budget.continuation(message, next));
      return;
    }
    await write(line);
  }
}

function ordinal(n: number): string {
  return `${n}${n % 10 === 1 && n % 100 !== 11 ? 'st' : n % 10 === 2 && n % 100 !== 12 ? 'nd' : n % 10 === 3 && n % 100 !== 13 ? 'rd' : 'th'}`;
}
