// `--explain`: the lro jq command that answers what `lro count` asks (where's is in where.ts), printed so an
// agent sees the question as jq and a test can check both give the same answer.
import { shellQuote } from '../describe/shell.js';
import { LroError } from '../errors.js';
import type { CountPlan } from './count.js';
import { conditionToJq } from './condition.js';
import { pathToJq } from './path.js';
import { tableRecordsOption, type TableRecords } from './table.js';

const LEVELS = '\\b(TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|FATAL|CRITICAL|SEVERE)\\b|\\[(trace|debug|info|notice|warn|warning|error|crit|alert|emerg|fatal)\\]';

/**
 * The jq filter (run with -s) that counts as the plan does: [{value, count}], most frequent first. On a table,
 * each line is first made the row object (table.ts), and lines that are not rows drop out.
 */
export function countFilter(plan: CountPlan, table: TableRecords | null = null): string {
  const q = plan.query;
  // the conditions as lro where's --explain writes them, applied first
  const cond = q.conditions.length ? `select(${q.conditions.map(conditionToJq).join(q.any ? ' or ' : ' and ')})` : '';
  const sel = table ? [table.jq, cond].filter(Boolean).join(' | ') : cond;
  const tail0 = q.distinct ? 'group_by(.) | map({value: .[0], count: length}) | sort_by(-.count) | map(.value)' : '';
  if (q.total) return sel ? `map(${sel}) | length` : 'length';
  const tail = tail0 || 'group_by(.) | map({value: .[0], count: length}) | sort_by(-.count)';
  if (q.text) {
    if (q.text.kind === 'template') throw new LroError('--explain: log templates have no jq equivalent (they are found by lro itself): run lro count --by template');
    const key =
      q.text.kind === 'level'
        ? `first(match(${JSON.stringify(LEVELS)}) | .captures | map(.string // empty) | .[0] | ascii_upcase) // null`
        : `first(match(${JSON.stringify(q.text.pattern)}) | ${q.text.matcher.regex.source.includes('(') ? '.captures[0].string' : '.string'}) // null`;
    const line = table ? `. as $line | ${sel} | $line | ` : sel ? `${sel} | ` : '';
    return `map(${line}${key}) | ${tail}`;
  }
  const value = q.paths.length === 1 ? pathToJq(q.paths[0]) : `[${q.paths.map(pathToJq).join(', ')}]`;
  return `[.[] | ${sel ? `${sel} | ` : ''}${value}] | ${tail}`;
}

/** The whole command, runnable as printed. */
export function countExplain(id: string, plan: CountPlan, table: TableRecords | null = null): string {
  let records = plan.options.records !== undefined ? ` --records ${plan.options.records}` : '';
  if (table) records = tableRecordsOption(table, plan.query.range);
  return `lro jq ${id} -s -c ${shellQuote(countFilter(plan, table))}${records}\n`;
}
