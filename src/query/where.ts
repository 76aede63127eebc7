// What `lro where` was asked, as a query (parsed and checked before anything runs), and the search itself:
// candidate records from the prefilter, decoded and tested against every condition (or any, with --any).
import { watchedMap } from '../watchdog.js';
import { UsageError } from '../errors.js';
import type { ContentType } from '../format/header.js';
import type { ResultFile } from '../format/reader.js';
import { parseRange, type Range } from '../ranges.js';
import { formatCount, parseCount } from '../units.js';
import { conditionToJq, joinConditionArgs, matchesAll, parseCondition, type Condition } from './condition.js';
import { toJson, type JsonValue } from '../values/json-value.js';
import { requireFields } from './fields.js';
import { follow, isMulti, parseColumnOrPath, pathLabel, pathToJq, type FieldPath } from './path.js';
import { planNeedles } from './prefilter.js';
import type { RecordDecoder } from './records.js';
import type { StoredRecord } from './scan.js';

/** The options of `lro where`, as on the command line (also sent to a worker). */
export interface WhereOptions {
  dir?: string;
  any?: boolean;
  fields?: string;
  count?: boolean;
  maxCount?: string;
  records?: string;
  ignoreCase?: boolean;
  explain?: boolean;
  maxTokens?: string;
  /** --stream: only the records of one stream of an lro run result. */
  stream?: string;
  timeout?: string;
}

/** What to select, parsed and checked. */
export interface WhereQuery {
  conditions: Condition[];
  any: boolean;
  range: Range;
  /** --fields: print only these. */
  fields: FieldPath[] | null;
  countOnly: boolean;
  maxCount: number;
}

/** The query with what it was parsed from (for continuation commands and the worker). */
export interface WherePlan {
  query: WhereQuery;
  /** The conditions as given (after joining words a shell split). */
  args: string[];
  options: WhereOptions;
}

/**
 * Parses the conditions and options (throws UsageError on bad ones); `columns`: a table's column names, which
 * conditions and --fields may name as its header writes them (spaces and all).
 */
export function planWhere(args: string[], o: WhereOptions, count: number, columns: readonly string[] = []): WherePlan {
  const { args: joined, conditions } = parseConditions(args, !!o.ignoreCase, columns);
  if (joined.length === 0) throw new UsageError("no condition: give at least one, e.g. status=error or 'latency>500'");
  const range: Range = o.records !== undefined ? parseRange(o.records, '--records') : { from: 1, to: Infinity };
  if (o.records !== undefined && range.from > count && count > 0) {
    throw new UsageError(`--records ${o.records} is past the end: the result has ${formatCount(count)} records`);
  }
  const fields = o.fields !== undefined ? splitFields(o.fields).map((f) => parseColumnOrPath(f, '--fields field', columns)) : null;
  if (fields && fields.length === 0) throw new UsageError('--fields needs at least one field, e.g. --fields id,status');
  const max = o.maxCount !== undefined ? parseCount(o.maxCount, '--max-count') : Infinity;
  return { args: joined, options: o, query: { conditions, any: !!o.any, range, fields, countOnly: !!o.count, maxCount: max } };
}

/** The conditions of the command line (words a shell split joined back), parsed: where's, and count's. */
export function parseConditions(args: string[], ignoreCase: boolean, columns: readonly string[] = []): { args: string[]; conditions: Condition[] } {
  const joined = joinConditionArgs(args);
  return { args: joined, conditions: joined.map((a) => parseCondition(a, ignoreCase, columns)) };
}

/** `a,b,."c,d"` split at commas outside quotes and brackets. */
export function splitFields(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inStr = false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inStr) {
      if (c === '\\') cur += c + (text[++i] ?? '');
      else {
        if (c === '"') inStr = false;
        cur += c;
      }
      continue;
    }
    if (c === '"') inStr = true;
    else if (c === '[') depth++;
    else if (c === ']') depth--;
    if (c === ',' && depth === 0) {
      if (cur.trim()) out.push(cur.trim());
      cur = '';
    } else cur += c;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/** Whether a record satisfies the query's conditions. */
export function matches(q: WhereQuery, v: JsonValue): boolean {
  return matchesAll(q.conditions, q.any, v);
}

/** A matching record: its number, stored bytes (valid until the next) and value. */
export interface WhereMatch {
  n: number;
  line: Buffer;
  value: JsonValue;
}

/** Checks that the fields the query names (its conditions', --fields) are in the records of its range. */
export function requireWhereFields(rf: ResultFile, q: WhereQuery, decoder: RecordDecoder): void {
  requireFields(rf, [...q.conditions.map((c) => c.path), ...(q.fields ?? [])], q.range, decoder, 'a condition or --fields names it');
}

/** The text of a match: the record as stored (JSON) or the line (text), or the --fields object. */
export function matchText(q: WhereQuery, decoder: RecordDecoder, m: WhereMatch): string {
  if (!q.fields) return decoder.text(m.n, m.line);
  const out: Record<string, JsonValue> = {};
  for (const p of q.fields) {
    const { values } = follow(m.value, p);
    out[fieldKey(p)] = isMulti(p) ? values : (values[0] ?? null);
  }
  return toJson(out);
}

/** The records of the range that satisfy the query, in order (at most maxCount). */
export function* whereMatches(rf: ResultFile, q: WhereQuery, decoder: RecordDecoder, stallSeconds?: number): Generator<WhereMatch> {
  const needles = planNeedles(q.conditions, rf.header.content_type as ContentType, q.any);
  let found = 0;
  if (q.maxCount === 0) return;
  const watched = stallSeconds !== undefined; // matches then wait for the end of a slice: their bytes are copied
  const step = (r: StoredRecord): WhereMatch | undefined => {
    const v = decoder.value(r.n, r.line);
    if (v === undefined || !matches(q, v)) return undefined;
    return { n: r.n, line: watched ? Buffer.from(r.line) : r.line, value: v };
  };
  for (const m of watchedMap(decoder.records(rf, q.range, needles), step, stallSeconds, patternStalled(stallSeconds))) {
    yield m;
    if (++found >= q.maxCount) return;
  }
}

/** What a query whose regular expression was stopped says. */
export const patternStalled = (seconds?: number) => `the pattern made no progress for ${seconds} s (catastrophic backtracking?): simplify the pattern`;

/** The key a --fields path gets in the printed object: the path without its leading dot. */
export function fieldKey(p: FieldPath): string {
  const label = pathLabel(p);
  return label.startsWith('.') && label.length > 1 ? label.slice(1).replace(/^"(.*)"$/, '$1') : label;
}

/** The jq filter that selects what the query selects (and projects --fields). */
export function whereFilter(q: WhereQuery): string {
  const parts = q.conditions.map(conditionToJq);
  let f = `select(${parts.join(q.any ? ' or ' : ' and ')})`;
  if (q.fields) {
    const members = q.fields.map((p) => `${JSON.stringify(fieldKey(p))}: ${isMulti(p) ? `[${pathToJq(p)}]` : pathToJq(p)}`);
    f += ` | {${members.join(', ')}}`;
  }
  return f;
}
