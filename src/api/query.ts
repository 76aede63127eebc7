// lro where and lro count for programs (an MCP server, an agent loop): the same planning, engines and guards
// as the commands, with no output budget, and the printed lines parsed back into values.
import { DEFAULT_STALL_SECONDS } from '../watchdog.js';
import { printCount } from '../render/count-output.js';
import { printWhere } from '../render/where-output.js';
import { planCount, type CountOptions } from '../query/count.js';
import { queryContentType, recordView } from '../query/view.js';
import { planWhere, type WhereOptions } from '../query/where.js';
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

/** Runs a printer, a pattern that could run away (not `linear`) watched; collects what it prints. */
async function collect(linear: boolean, timeout: number | undefined, print: (w: (s: string) => void, stallSeconds?: number) => Promise<number>): Promise<string> {
  let out = '';
  await print((s) => void (out += s), linear ? undefined : (timeout ?? DEFAULT_STALL_SECONDS));
  return out;
}

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
  const out = await collect(linear, opts.timeoutSeconds, (w, stall) => damaged(rf, () => printWhere(rf, plan, {}, w, () => undefined, stall)));
  return out
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const sep = l.indexOf(': ');
      const text = l.slice(sep + 2);
      let value: unknown = text;
      // JSON records, or --fields objects (of a table's rows: a text result)
      if (queryContentType(rf) !== 'text' || o.fields !== undefined) value = JSON.parse(text);
      return { n: Number(l.slice(0, sep)), text, value };
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
  const out = await collect(linear, opts.timeoutSeconds, (w, stall) => damaged(rf, () => printCount(rf, plan, {}, w, () => undefined, stall)));
  const result: CountOutput = { groups: [], other: 0 };
  for (const l of out.split('\n')) {
    if (!l) continue;
    const g = JSON.parse(l) as { type?: string; count: number; first: number; value: unknown };
    if (g.type === 'other') result.other = g.count;
    else result.groups.push({ value: g.value, count: g.count, first: g.first });
  }
  return result;
}
