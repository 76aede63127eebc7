// What `lro count` was asked, and the counting: every record of the range is decoded and its group found — the
// values of one or more field paths (JSON records), or for text lines their log level, their template, or what a
// regular expression captures. Most frequent first; ties in jq's order of values (as group_by sorts them), so
// the answer equals `jq -s 'group_by(F) | … | sort_by(-.count)'`. At most MAX_GROUPS groups are kept; values
// first seen after that are counted together, and the output says so.
import { watchedMap } from '../watchdog.js';
import { UsageError } from '../errors.js';
import { checkRecordCount, type ResultFile } from '../format/reader.js';
import { parseRange, type Range } from '../ranges.js';
import { compilePattern, type Matcher } from '../search/pattern.js';
import { formatCount } from '../units.js';
import { LEVEL_RE } from '../describe/text-stats.js';
import { compareValues, groupKey, type JsonValue } from '../values/json-value.js';
import { follow, parseColumnOrPath, type FieldPath } from './path.js';
import type { RecordDecoder } from './records.js';
import type { StoredRecord } from './scan.js';
import { parseConditions, patternStalled } from './where.js';
import { matchesAll, type Condition } from './condition.js';
import { planNeedles } from './prefilter.js';
import type { ContentType } from '../format/header.js';
import { TemplateMiner } from '../describe/templates.js';
import { requireFields } from './fields.js';

/** Distinct values kept per count (memory bound), and the bytes their keys may take (values may be objects). */
export const MAX_GROUPS = 100_000;
const MAX_KEY_BYTES = 64 << 20;
/** Templates kept by --by template (each holds its words). */
const MAX_TEMPLATES = 20_000;

/** The options of `lro count`, as on the command line (also sent to a worker). */
export interface CountOptions {
  dir?: string;
  by?: string[];
  /** Conditions as lro where takes them: only records where all (or, with --any, one) hold are counted. */
  condition?: string[];
  any?: boolean;
  ignoreCase?: boolean;
  distinct?: boolean;
  records?: string;
  groups?: string;
  json?: boolean;
  explain?: boolean;
  maxTokens?: string;
  /** --stream: only the records of one stream of an lro run result. */
  stream?: string;
  timeout?: string;
}

/** What lines of a text result are grouped by. */
export type TextKey = { kind: 'level' } | { kind: 'template' } | { kind: 'regex'; pattern: string; matcher: Matcher };

/** What to count, parsed and checked. */
export interface CountQuery {
  /** JSON records: the paths grouped by (several: their values together). */
  paths: FieldPath[];
  /** Text results: the one key. */
  text: TextKey | null;
  range: Range;
  /** Which groups to print (1-based ranks, for continuing a cut output). */
  groups: Range;
  /** No --by: only the number of records (JSON records only, for a jsonl result with lines that are not). */
  total: boolean;
  /** Only records where these hold (all, or one with `any`) are counted: lro where's conditions. */
  conditions: Condition[];
  any: boolean;
  /** --distinct: print how many distinct values, then the values (no counts). */
  distinct: boolean;
}

/** The query with what it was parsed from (for continuation commands and the worker). */
export interface CountPlan {
  query: CountQuery;
  by: string[];
  /** The conditions as given (after joining words a shell split), for continuation commands. */
  args: string[];
  options: CountOptions;
}

/**
 * Parses --by, the conditions and the options for a result of this content type (throws UsageError on bad ones).
 * A text result that is a table (`table`: its column names) is counted by columns, named as a jq path or as the
 * header writes them, as JSON records by fields; its lines still by level, template or a regular expression (one
 * with a group: it has a parenthesis, which a column's name then does not).
 */
export function planCount(o: CountOptions, contentType: string, count: number, table: readonly string[] | null = null): CountPlan {
  const columns = table ?? [];
  const by = o.by ?? [];
  const range: Range = o.records !== undefined ? parseRange(o.records, '--records') : { from: 1, to: Infinity };
  if (o.records !== undefined && range.from > count && count > 0) {
    throw new UsageError(`--records ${o.records} is past the end: the result has ${formatCount(count)} records`);
  }
  if (o.distinct && by.length === 0) {
    throw new UsageError('--distinct lists the distinct values of a field: add --by FIELD');
  }
  const groups: Range = o.groups !== undefined ? parseRange(o.groups, '--groups') : { from: 1, to: Infinity };
  const { args, conditions } = parseConditions(o.condition ?? [], !!o.ignoreCase, columns);
  const base = { range, groups, total: by.length === 0, conditions, any: !!o.any, distinct: !!o.distinct };
  const plan = (paths: FieldPath[], text: TextKey | null): CountPlan => {
    return { by, args, options: o, query: { ...base, paths, text } };
  };
  if (by.length === 0) return plan([], null);
  const byLine = (b: string) => !columns.includes(b) && (b === 'level' || b === 'template' || b.includes('('));
  if ((contentType === 'text' || contentType === 'binary') && !(table && !by.some(byLine))) {
    if (by.length !== 1) throw new UsageError(`a text result is counted by one of --by level, --by template or --by 'REGEX' (a regular expression with a capture group)`);
    const b = by[0];
    if (b === 'level' || b === 'template') return plan([], { kind: b });
    const matcher = compilePattern(b, { fixed: false, ignoreCase: false, word: false });
    return plan([], { kind: 'regex', pattern: b, matcher });
  }
  return plan(by.map((b) => parseColumnOrPath(b, '--by field', columns)), null);
}

/** One group: its value (an array of values for several fields), how many records, and the first of them. */
export interface CountGroup {
  value: JsonValue;
  count: number;
  first: number;
}

/** The counting's outcome: groups in print order. */
export interface CountResult {
  groups: CountGroup[];
  /** Records counted (records looked at; a record may be in several groups with `[]`). */
  records: number;
  /** Values seen after MAX_GROUPS groups existed: how many, and the first record with one. */
  other: number;
  otherFirst: number;
}

/** The level of a line: the first level word, as the descriptor counts levels (upper case), or null. */
export function lineLevel(line: string): string | null {
  LEVEL_RE.lastIndex = 0;
  const m = LEVEL_RE.exec(line);
  return m ? (m[1] ?? m[2]).toUpperCase() : null;
}

/** What a regular expression captures in a line: its first group (or the whole match without one), or null. */
export function lineCapture(m: Matcher, line: string): string | null {
  m.regex.lastIndex = 0;
  const r = m.regex.exec(line);
  if (!r) return null;
  return r.length > 1 ? (r[1] ?? null) : r[0];
}

/** The value combinations of a record for the paths (each path's values; several paths: every combination). */
function tuples(v: JsonValue, paths: FieldPath[]): JsonValue[] {
  if (paths.length === 1) return follow(v, paths[0]).values;
  let out: JsonValue[][] = [[]];
  for (const p of paths) {
    const vs = follow(v, p).values;
    out = out.flatMap((t) => vs.map((x) => [...t, x]));
  }
  return out;
}

/**
 * The number of records of the range from the header (no --by): its count, less the jsonl lines that are not
 * JSON (listed in the header too), which a count by a field would pass over. No record is decoded; the file's
 * lines are counted against the header first (checkRecordCount, a SIMD newline count at the speed of `wc -l`),
 * so a result cut short or added to is an error, not a wrong number a script would trust.
 */
export function countFromHeader(rf: ResultFile, range: Range): number {
  checkRecordCount(rf);
  const h = rf.header;
  const last = Math.min(range.to, h.count);
  if (range.from > last) return 0;
  const skipped = (h.invalid_records ?? []).filter((n) => n >= range.from && n <= last).length;
  return last - range.from + 1 - skipped;
}

/**
 * Checks the fields the query names and counts: the records of the range by the query's key, or their number
 * alone from the header when that is all it asks of the records as stored.
 */
export function countQuery(rf: ResultFile, q: CountQuery, decoder: RecordDecoder, stallSeconds?: number): CountResult {
  requireFields(rf, q.paths, q.range, decoder, '--by names it');
  requireFields(rf, q.conditions.map((c) => c.path), q.range, decoder, 'a condition names it');
  return q.total && q.conditions.length === 0 && !decoder.table && !decoder.map && !decoder.streams
    ? { groups: [], records: countFromHeader(rf, q.range), other: 0, otherFirst: 0 }
    : countRecords(rf, q, decoder, stallSeconds);
}

/** Counts the records of the range by the query's key. */
export function countRecords(rf: ResultFile, q: CountQuery, decoder: RecordDecoder, stallSeconds?: number): CountResult {
  const table = new Map<string, CountGroup>();
  let records = 0;
  let other = 0;
  let otherFirst = 0;
  let keyBytes = 0;
  const miner = q.text?.kind === 'template' ? new TemplateMiner({ maxGroups: MAX_TEMPLATES }) : null;
  const add = (value: JsonValue, n: number) => {
    const key = groupKey(value);
    const g = table.get(key);
    if (g) g.count++;
    else if (table.size < MAX_GROUPS && keyBytes + key.length <= MAX_KEY_BYTES) {
      table.set(key, { value, count: 1, first: n });
      keyBytes += key.length;
    } else if (other++ === 0) otherFirst = n;
  };
  const step = (r: StoredRecord): undefined => {
    const v = decoder.value(r.n, r.line);
    if (v === undefined || !matchesAll(q.conditions, q.any, v)) return;
    records++;
    if (q.total) return;
    if (q.text) {
      const line = typeof v === 'string' ? v : decoder.text(r.n, r.line);
      if (q.text.kind === 'level') add(lineLevel(line), r.n);
      else if (q.text.kind === 'regex') add(lineCapture(q.text.matcher, line), r.n);
      else miner!.add(line, r.n);
    } else for (const t of tuples(v, q.paths)) add(t, r.n);
  };
  // counted as the records pass, in watched slices when a --by pattern could run away (nothing is yielded)
  const needles = planNeedles(q.conditions, rf.header.content_type as ContentType, q.any);
  const counting = watchedMap(decoder.records(rf, q.range, needles), step, stallSeconds, patternStalled(stallSeconds));
  while (!counting.next().done);
  if (miner) {
    const res = miner.result();
    const groups = res.templates.map((t) => ({ value: t.template, count: t.count, first: t.line }));
    return { groups, records, other: res.otherLines, otherFirst: res.otherLine };
  }
  const groups = [...table.values()].sort((a, b) => b.count - a.count || compareValues(a.value, b.value));
  return { groups, records, other, otherFirst };
}
