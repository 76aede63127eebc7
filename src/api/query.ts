// lro where and lro count for programs (an MCP server, an agent loop): the same planning, engines and guards
// as the commands, with no output budget, their values returned as they are found (nothing printed).
import { DEFAULT_STALL_SECONDS } from '../watchdog.js';
import { countQuery, planCount, type CountOptions } from '../query/count.js';
import { queryContentType, recordView } from '../query/view.js';
import { matchText, planWhere, requireWhereFields, whereMatches, type WhereOptions } from '../query/where.js';
import { toJson } from '../values/json-value.js';
import { formatRange } from '../ranges.js';
import { damaged } from '../store/resolve.js';
import { openResult, type ResultRef, type StoreOptions } from './results.js';

/** Options of whereResult, as lro where's flags. `from`/`to` limit the records looked at (1-based, inclusive). */
export interface WhereResultOptions extends StoreOptions {
  any?: boolean;
  fields?: string[];
  ignoreCase?: boolean;
  maxCount?: number;
  from?: number;
  to?: number;
  /** Stop a pattern that makes no progress for this long (default 10 s). */
  timeoutSeconds?: number;
}

/** A matching record: its number, its text as stored (or the --fields object), and its parsed value. */
export interface WhereRecord {
  n: number;
  text: string;
  /** JSON.parse of text: numbers beyond 2^53 lose digits here (use text). */
  value: unknown;
}

/** What countResult counted: the groups, most frequent first, and how many records it looked at. */
export interface CountOutput {
  groups: { value: unknown; count: number; first: number }[];
  /** Records (values) first seen after the cap on groups, counted together. */
  other: number;
}

const range = (from?: number, to?: number) => (from === undefined && to === undefined ? undefined : formatRange(from ?? 1, to ?? Infinity));

/** How long a pattern that could run away (not `linear`) may make no progress before it is stopped. */
const stallOf = (linear: boolean, timeout: number | undefined) => (linear ? undefined : (timeout ?? DEFAULT_STALL_SECONDS));

/** The records of a stored result where every condition holds (any, with `any`): `['status=error', 'ms>500']`. */
export async function whereResult(ref: ResultRef, conditions: string[], opts: WhereResultOptions = {}): Promise<WhereRecord[]> {
  const rf = openResult(ref, opts);
  const o: WhereOptions = {
    any: opts.any,
    fields: opts.fields?.join(','),
    ignoreCase: opts.ignoreCase,
    maxCount: opts.maxCount === undefined ? undefined : String(opts.maxCount),
    records: range(opts.from, opts.to),
    maxTokens: '0',
  };
  const view = recordView(rf);
  const plan = planWhere(conditions, o, view.count, view.table?.names);
  const linear = plan.query.conditions.every((c) => !c.matcher || c.matcher.linearTime);
  const q = plan.query;
  // JSON records, or --fields objects (of a table's rows: a text result), as parsed from their text
  const parsed = queryContentType(rf) !== 'text' || o.fields !== undefined;
  return damaged(rf, () => {
    requireWhereFields(rf, q, view);
    const found: WhereRecord[] = [];
    for (const m of whereMatches(rf, q, view, stallOf(linear, opts.timeoutSeconds))) {
      const text = matchText(q, view, m);
      found.push({ n: m.n, text, value: parsed ? (JSON.parse(text) as unknown) : text });
    }
    return found;
  });
}

/** Options of countResult, as lro count's flags. */
export interface CountResultOptions extends StoreOptions {
  from?: number;
  to?: number;
  timeoutSeconds?: number;
}

/** Counts the records of a stored result by fields (`['status']`), or text lines by 'level', 'template' or a regex. */
export async function countResult(ref: ResultRef, by: string[], opts: CountResultOptions = {}): Promise<CountOutput> {
  const rf = openResult(ref, opts);
  const o: CountOptions = { by, records: range(opts.from, opts.to), json: true, maxTokens: '0' };
  const view = recordView(rf);
  const plan = planCount(o, queryContentType(rf), view.count, view.table?.names ?? null);
  const t = plan.query.text;
  const linear = t?.kind !== 'regex' || t.matcher.linearTime;
  const res = damaged(rf, () => countQuery(rf, plan.query, view, stallOf(linear, opts.timeoutSeconds)));
  // no --by: the number of records, as one group with neither a value nor a first record
  if (plan.query.total) return { groups: [{ value: undefined, count: res.records, first: undefined as unknown as number }], other: 0 };
  // a value as JSON reads it (an exact decimal becomes a number)
  const groups = res.groups.map((g) => ({ value: JSON.parse(toJson(g.value)) as unknown, count: g.count, first: g.first }));
  return { groups, other: res.other };
}
