// `--explain`: the lro jq command that answers what `lro count` asks (where's is in where.ts), printed so an
// agent sees the question as jq and a test can check both give the same answer.
import { shellQuote } from '../shell-quote.js';
import { LroError } from '../errors.js';
import { LEVEL_RE } from '../describe/text-stats.js';
import type { CountPlan } from './count.js';
import { conditionToJq } from './condition.js';
import { pathToJq } from './path.js';
import type { MapRecords, RecordDecoder } from './records.js';
import { tableRecordsOption } from './table.js';
import type { Range } from '../ranges.js';

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

/** The whole command, runnable as printed. */
export function countExplain(id: string, plan: CountPlan, view: Pick<RecordDecoder, 'table' | 'map'>): string {
  let records = plan.options.records !== undefined ? ` --records ${plan.options.records}` : '';
  if (view.table) records = tableRecordsOption(view.table, plan.query.range);
  if (view.map && !view.map.inputs) records = ''; // the range is of entries, in the filter
  return `lro jq ${id} -s -c ${shellQuote(countFilter(plan, view))}${records}\n`;
}
