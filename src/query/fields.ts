// Which fields the records have, for the error that a condition names a field no record has: the fields that
// do exist, and the one closest to what was typed (edit distance), since a typo is the usual cause.
import type { Range } from '../ranges.js';
import type { ResultFile } from '../format/reader.js';
import { LroError } from '../errors.js';
import { JsonNumber, type JsonValue } from '../values/json-value.js';
import { follow, jqKeyStep, pathLabel, type FieldPath } from './path.js';
import type { RecordDecoder } from './records.js';

const MAX_FIELDS = 300;
const FIELD_DEPTH = 3;
/** Records read to list the fields for the error message. */
const LIST_RECORDS = 2000;

/** Adds the field paths of a value (objects to FIELD_DEPTH levels, arrays as []) to `out`. */
export function collectFields(v: JsonValue, out: Set<string>, prefix = '', depth = 0): void {
  if (out.size >= MAX_FIELDS || depth >= FIELD_DEPTH || v === null || typeof v !== 'object' || v instanceof JsonNumber) return;
  if (Array.isArray(v)) {
    for (const x of v.slice(0, 5)) if (x !== null && typeof x === 'object' && !(x instanceof JsonNumber)) collectFields(x, out, `${prefix}[]`, depth + 1);
    return;
  }
  for (const [k, x] of Object.entries(v)) {
    const p = prefix + jqKeyStep(k);
    out.add(p);
    collectFields(x, out, p, depth + 1);
  }
}

/** Levenshtein distance (small strings). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

/** The name in `names` closest to `wanted` (case-insensitive edit distance), or null if none is near. */
export function closest(wanted: string, names: string[]): string | null {
  let best: string | null = null;
  let bestD = Infinity;
  const w = wanted.toLowerCase();
  for (const n of names) {
    const d = editDistance(w, n.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = n;
    }
  }
  return best !== null && bestD <= Math.max(2, Math.floor(w.length / 2)) ? best : null;
}

/** Whether a path reaches an existing value (a key that is there, even if null) in this record. */
function present(v: JsonValue, p: FieldPath): boolean {
  if (p.steps.length === 0) return true;
  const r = follow(v, p);
  return r.values.length > 0 && (!r.absent || r.values.some((x) => x !== null));
}

/**
 * Throws LroError (exit 2) when one of the paths is present in no record of the range, listing the fields the
 * records have and the closest one. Reads only until every path has been seen (usually the first record).
 */
export function requireFields(rf: ResultFile, paths: FieldPath[], range: Range, decoder: RecordDecoder, what: string): void {
  const pending = paths.filter((p) => p.steps.length > 0);
  if (pending.length === 0) return;
  if ((rf.header.content_type === 'text' || rf.header.content_type === 'binary') && !decoder.table && !decoder.map) {
    throw new LroError(
      `result ${rf.header.id} is ${rf.header.content_type}: its lines have no field ${pathLabel(pending[0])}: ` +
        `test the line itself ('.~REGEX', '.=TEXT'), or use lro grep; lro count --by level, --by template or --by 'REGEX' group lines`,
    );
  }
  for (const r of decoder.records(rf, range, null)) {
    const v = decoder.value(r.n, r.line);
    if (v === undefined) continue;
    for (let i = pending.length - 1; i >= 0; i--) if (present(v, pending[i])) pending.splice(i, 1);
    if (pending.length === 0) break;
  }
  if (pending.length === 0) return;
  if (decoder.table) {
    // a table's columns, as its header writes them (a condition names them so)
    const cols = decoder.table.names;
    const step = pending[0].steps[0];
    const wanted = pending[0].steps.length === 1 && step.kind === 'key' ? step.key : pathLabel(pending[0]);
    const name = (c: string) => (/\s/.test(c) ? `'${c}'` : c);
    const near = closest(wanted, cols);
    throw new LroError(`the table has no column ${name(wanted)} (${what}): ${near ? `did you mean ${name(near)}? ` : ''}its columns: ${cols.map(name).join(', ')}`);
  }
  const names = new Set<string>();
  let seen = 0;
  for (const r of decoder.records(rf, range, null)) {
    const v = decoder.value(r.n, r.line);
    if (v !== undefined) collectFields(v, names);
    if (++seen >= LIST_RECORDS || names.size >= MAX_FIELDS) break;
  }
  const missing = pathLabel(pending[0]);
  const depth = (f: string) => (f.match(/\.|\[\]/g) ?? []).length;
  const list = [...names].sort((a, b) => depth(a) - depth(b)); // shallow fields first (stable)
  const near = closest(missing, list);
  const shown = list.slice(0, 25).join(', ') + (list.length > 25 ? `, … ${list.length - 25} more` : '');
  throw new LroError(
    `no record has the field ${missing} (${what}): ${near ? `did you mean ${near}? ` : ''}` +
      (list.length ? `fields: ${shown}` : 'the records have no fields (they are not objects)'),
  );
}
