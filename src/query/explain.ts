// `--explain`: the lro jq command that answers what `lro count` or `lro where` asks (where's filter is made in
// where.ts), as a value (explainCommand), printed so an agent sees the question as jq and a test can check both give
// the same answer.
import { shellQuote } from '../shell-quote.js';
import { LroError } from '../errors.js';
import { LEVEL_RE } from '../describe/text-stats.js';
import type { CountPlan } from './count.js';
import { conditionToJq } from './condition.js';
import { pathToJq } from './path.js';
import type { MapRecords, RecordDecoder } from './records.js';
import { tableRowRange } from './table.js';
import type { Next } from '../budget.js';
import type { Range } from '../ranges.js';

/** lro jq reads every record: a question asked of one stream has no jq equivalent. */
export const EXPLAIN_STREAM = '--explain does not go with --stream: lro jq reads the records of both streams; drop one of them';

/** The log level regex of lro count --by level (text-stats.ts), as jq's match takes it. */
const LEVELS = LEVEL_RE.source;

/**
 * The jq filter (run with -s) that counts as the plan does: [{value, count}], most frequent first. On a table,
 * each line is first made the row object (`row`, table.ts), and lines that are not rows drop out; a map's entries
 * are taken from its one document.
 */
export function countFilter(plan: CountPlan, view: Pick<RecordDecoder, 'table' | 'map'> = { table: null, map: null }): string {
  const q = plan.query;
  const { table, map } = view;
  // the conditions as lro where's --explain writes them, applied first
  const cond = q.conditions.length ? `select(${q.conditions.map(conditionToJq).join(q.any ? ' or ' : ' and ')})` : '';
  const sel = table ? ['row', cond].filter(Boolean).join(' | ') : cond; // lro jq's own row (table.ts)
  if (map) return countMapFilter(plan, map, cond);
  if (q.total) return sel ? `map(${sel}) | length` : 'length';
  const tail = groupsTail(plan);
  if (q.text) {
    if (q.text.kind === 'template') throw new LroError('--explain: log templates have no jq equivalent (they are found by lro itself): run lro count --by template');
    const key =
      q.text.kind === 'level'
        ? `first(match(${JSON.stringify(LEVELS)}) | .captures | map(.string // empty) | .[0] | ascii_upcase) // null`
        : `first(match(${JSON.stringify(q.text.pattern)}) | ${q.text.matcher.regex.source.includes('(') ? '.captures[0].string' : '.string'}) // null`;
    const line = table ? `. as $line | ${sel} | $line | ` : sel ? `${sel} | ` : '';
    return `map(${line}${key}) | ${tail}`;
  }
  return `[.[] | ${sel ? `${sel} | ` : ''}${groupValue(plan)}] | ${tail}`;
}

/** The groups, most frequent first (--distinct: only their values). */
function groupsTail(plan: CountPlan): string {
  const groups = 'group_by(.) | map({value: .[0], count: length}) | sort_by(-.count)';
  return plan.query.distinct ? `${groups} | map(.value)` : groups;
}

/** What a record is grouped by: the --by path, or the array of several. */
function groupValue(plan: CountPlan): string {
  const p = plan.query.paths;
  return p.length === 1 ? pathToJq(p[0]) : `[${p.map(pathToJq).join(', ')}]`;
}

/** countFilter on a map's entries (JSON values, so no text grouping). */
function countMapFilter(plan: CountPlan, map: MapRecords, cond: string): string {
  const q = plan.query;
  const each = `.[] | ${mapEntriesJq(map, q.range)}${cond ? ` | ${cond}` : ''}`;
  if (q.total) return `[${each}] | length`;
  return `[${each} | ${groupValue(plan)}] | ${groupsTail(plan)}`;
}

/** jq giving the entries of a map in the range one by one: the records where and count see in a map result. */
export function mapEntriesJq(map: MapRecords, range: Range): string {
  if (map.inputs) return '.'; // lro jq reads them as they are (the range is its --records)
  if (range.from <= 1 && range.to === Infinity) return `${map.at} | to_entries[]`;
  return `${map.at} | to_entries | .[${range.from - 1}:${range.to === Infinity ? '' : range.to}][]`;
}

/** The whole command, runnable as printed, as a value (explainCommand). */
export function countExplain(id: string, plan: CountPlan, view: Pick<RecordDecoder, 'table' | 'map'>): Next {
  let records = plan.options.records;
  if (view.table) records = tableRowRange(view.table, plan.query.range);
  if (view.map && !view.map.inputs) records = undefined; // the range is of entries, in the filter
  return explainCommand({ id, slurp: true, compact: true, filter: countFilter(plan, view), records, dir: plan.options.dir });
}

/** What an --explain command is: lro jq over the result, slurped (-s), compact (-c), over its records A:B. */
export interface ExplainInput {
  id: string;
  filter: string;
  slurp: boolean;
  compact: boolean;
  records?: string;
  dir?: string;
}

/**
 * The lro jq command an --explain answers with, as a value: its input as lro jq's declaration takes it, and its
 * line, `lro jq ID -s -c FILTER --records A:B --dir DIR` (the order --explain has always printed; lro jq's declaration
 * is not loaded by where and count, so the line is written here, and test/query/explain-command.test.ts checks it
 * is the one commands/argv.ts makes from the declaration).
 */
export function explainCommand(e: ExplainInput): Next {
  const input = {
    id: e.id,
    filter: e.filter,
    ...(e.compact ? { compactOutput: true } : {}),
    ...(e.slurp ? { slurp: true } : {}),
    ...(e.records !== undefined ? { records: e.records } : {}),
    ...(e.dir ? { dir: e.dir } : {}),
  };
  const options = `${e.records !== undefined ? ` --records ${shellQuote(e.records)}` : ''}${e.dir ? ` --dir ${shellQuote(e.dir)}` : ''}`;
  const flags = `${e.slurp ? ' -s' : ''}${e.compact ? ' -c' : ''}`;
  return { command: 'jq', input, text: `lro jq ${shellQuote(e.id)}${flags} ${shellQuote(e.filter)}${options}` };
}
