// A JSON document the descriptor called a map (a lock file's `packages`, an {"id": {...}} cache, npm ls's
// dependencies) read as records: each entry of the map is one record, {"key": K, "value": V} as jq's to_entries
// gives it, numbered from 1 in the order the document has them. `lro where` and `lro count` then select and group
// entries with the same conditions and paths as JSON records (value.dev=true, --by value.license). The map's path
// is the descriptor's (kept in the header's statistics); the entries are cut from the stored text, never parsed
// whole, so keys keep their order and numbers every digit.
import { documentKind } from '../describe/stored.js';
import { FormatError } from '../format/header.js';
import { objectMembers } from '../format/json-scan.js';
import type { ResultFile } from '../format/reader.js';
import { displayBytes, invalidSet } from '../format/record-text.js';
import type { Range } from '../ranges.js';
import { parsePath, pathLabel } from './path.js';
import { perResult, type MapRecords } from './records.js';
import { candidateRecords, type StoredRecord } from './scan.js';

export type { MapRecords } from './records.js';

/** The map a JSON result is (one document whose statistics name a map of entries), or null. */
export const mapOf = perResult(findMap);

function findMap(rf: ResultFile): MapRecords | null {
  if (invalidSet(rf.header)?.has(1)) return null;
  const kind = documentKind(rf);
  const at = kind?.facts?.map;
  const entries = kind?.facts?.entries;
  if ((kind?.kind !== 'json-map' && kind?.kind !== 'json-tree') || typeof at !== 'string' || typeof entries !== 'number') return null;
  const steps = parsePath(at, 'map path').steps;
  if (!steps.every((st) => st.kind === 'key')) return null;
  const keys = steps.map((st) => (st.kind === 'key' ? st.key : ''));
  return { at: pathLabel({ steps, text: at }), entries, records: (file, range) => entryRecords(file, keys, range) };
}

/** The entries of the range of the map at `keys` in the result's one document. */
function* entryRecords(rf: ResultFile, keys: string[], range: Range): Generator<StoredRecord> {
  let doc: Buffer | null = null;
  // the whole range, so the file is checked against its header to the end, as every reader does
  for (const r of candidateRecords(rf, { from: 1, to: Infinity }, null)) doc = Buffer.from(displayBytes(rf.header, r.n, r.line));
  if (!doc) return;
  let obj: Buffer | null = doc;
  for (const k of keys) obj = obj && memberValue(obj, k);
  if (!obj || obj[0] !== 0x7b) throw new FormatError(`has no map at ${keys.join('.')} as its header's statistics say`);
  let n = 0;
  const open = Buffer.from('{"key":');
  const mid = Buffer.from(',"value":');
  const close = Buffer.from('}');
  for (const m of uniqueMembers(obj)) {
    if (++n < range.from) continue;
    if (n > range.to) return;
    yield { n, line: Buffer.concat([open, m.key, mid, m.value, close]) };
  }
}

/** The value of the member `key` of an object's text as jq reads it (the last written, the key decoded), or null. */
function memberValue(obj: Buffer, key: string): Buffer | null {
  let value: Buffer | null = null;
  for (const m of objectMembers(obj)) if (JSON.parse(m.key.toString('utf8')) === key) value = m.value;
  return value;
}

/**
 * The members of an object as jq holds them: a key written twice is one entry, at its first place with its last
 * value (`{"a":1,"b":2,"a":3} | to_entries` is a=3, b=2), so entries count and number as the descriptor's do.
 */
function uniqueMembers(obj: Buffer): Iterable<{ key: Buffer; value: Buffer }> {
  const byKey = new Map<string, { key: Buffer; value: Buffer }>();
  for (const m of objectMembers(obj)) {
    const name = JSON.parse(m.key.toString('utf8')) as string; // "a" and "\u0061" are one key
    const first = byKey.get(name);
    if (first) first.value = m.value;
    else byKey.set(name, { key: m.key, value: m.value });
  }
  return byKey.values();
}
