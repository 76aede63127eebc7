// Two listings of JSON records compared record by record: each record is matched to the record of the other
// result with the same key (--key F, else an id-like field both results have on every record of their start,
// each value once), and is added, removed, or changed (its fields old → new). Without a key, records are
// matched by their whole content: only added and removed. Records changed the same way are one item, and so are
// records added or removed whose keys have one pattern, the rarest first (groups.ts). Memory: the key table
// (hashes and record numbers, 16 to 32 bytes a record of A) and a hash per record changed, added or removed;
// the records themselves are read again to gather them, a window at a time, and for the items printed.
import { parsePath, jqKeyStep, pathLabel, follow, type FieldPath } from '../query/path.js';
import { groupKey, JsonNumber, parseRecord, toJson, type JsonValue } from '../values/json-value.js';
import type { ResultFile } from '../format/reader.js';
import { HASH, hash53, hashBytes, hashString, IntList, SeenTable } from './hash.js';
import type { DiffItem, FieldChange, Gathered, Section } from './model.js';
import { BOUNDS, keyBounds, keySteps } from './json-member.js';
import { eachRecord, fetchTexts } from './read.js';
import { groupByHash, groupFirst, groupSize, keyPattern, type Groups } from './groups.js';
import { decimalKey } from '../values/decimal.js';

/** Id-like fields tried in this order when no --key is given. */
const KEY_CANDIDATES = ['id', '_id', 'uid', 'uuid', 'key', 'name', 'ID', 'Id', 'Name', 'Key', 'metadata.name', 'metadata.uid', 'slug', 'sha', 'number', 'path', 'url'];
/** Field changes listed per record; the rest are counted. */
const MAX_FIELDS = 10;
/** Characters of a value shown in a change. */
const MAX_VALUE = 120;
/** Keys listed for an item that stands for several records, and characters of each. */
const KEYS_SHOWN = 5;
const MAX_KEY = 60;
/** Records read back at a time to gather them (their texts, parsed and hashed, then let go). */
const GATHER_WINDOW = 2048;
/** Members of an object or array compared one by one; a larger one is compared whole. */
const MAX_MEMBERS = 1000;

const isObject = (v: JsonValue): v is Record<string, JsonValue> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof JsonNumber);

/** The scalar value of a key on a record (a string or a number), or undefined. */
function keyValue(v: JsonValue, key: FieldPath): string | number | JsonNumber | undefined {
  const { values, absent } = follow(v, key);
  const k = values[0];
  if (absent || values.length !== 1) return undefined;
  return typeof k === 'string' || typeof k === 'number' || k instanceof JsonNumber ? k : undefined;
}

/** Whether a path is a key of these records: a scalar on every record, no value twice. */
function isKeyOf(path: FieldPath, records: JsonValue[]): boolean {
  if (records.length === 0) return false;
  const seen = new Set<string>();
  for (const r of records) {
    const k = keyValue(r, path);
    if (k === undefined) return false;
    const g = groupKey(k);
    if (seen.has(g)) return false;
    seen.add(g);
  }
  return true;
}

/**
 * The id-like field of both samples (an id, a name, metadata.name…), or null when they have none. Rows of a
 * table (`columns`, in the header's order) have, after those, the first column of text unique in both (NAME, a
 * CSV's first column, df's "Mounted on"), then a column named as a number of processes is (PID, then LWP for
 * ps -eLf's threads): a column of numbers unique by chance (sizes) is none.
 */
export function chooseKey(a: JsonValue[], b: JsonValue[], columns: readonly string[] = []): FieldPath | null {
  const first = a.find(isObject) ?? b.find(isObject);
  if (!first) return null;
  const idLike = Object.keys(first).filter((k) => /(?:^|[_-])id$|[a-z]Id$|ID$/.test(k) && !KEY_CANDIDATES.includes(k));
  const both = (path: FieldPath) => isKeyOf(path, a) && (b.length === 0 || isKeyOf(path, b));
  for (const text of [...KEY_CANDIDATES, ...idLike.map((k) => jqKeyStep(k).slice(1))]) {
    const path = parsePath(text.startsWith('"') ? `.${text}` : text);
    if (both(path)) return path;
  }
  const column = (name: string): FieldPath => ({ steps: [{ kind: 'key', key: name }], text: name });
  const text = (name: string) => [...a, ...b].every((r) => isObject(r) && typeof r[name] === 'string');
  for (const name of columns) if (text(name) && both(column(name))) return column(name);
  for (const name of columns) if (/^(PID|LWP|TID|SPID)$/i.test(name) && both(column(name))) return column(name);
  return null;
}

/** Line n of a table as the JSON text of its row, or undefined for the header and lines that are no row. */
export type RowText = (n: number, line: string) => string | undefined;

export class RecordCompare {
  private table = new SeenTable();
  readonly added = new IntList();
  readonly changedA = new IntList();
  readonly changedB = new IntList();
  readonly removed = new IntList();
  /**
   * Records whose key an earlier record of the same side had (the key is not unique there), per side; of B,
   * only keys A has too are counted.
   */
  readonly repeats: [number, number] = [0, 0];

  constructor(
    readonly key: FieldPath | null,
    /** Tables: a side's lines as the JSON text of their rows (undefined for a line that is no row). */
    readonly rows?: [RowText, RowText],
  ) {}

  /**
   * Reads one side (A before B: B's records are looked up as they come). A record's value is a 32-bit hash of
   * its bytes (a change is missed once in 4 billion changed records); its key a 64-bit one.
   */
  pass(rf: ResultFile, side: number): void {
    if (side === 0) this.table = new SeenTable(rf.header.count);
    const t = this.table;
    const steps = this.key ? keySteps(this.key) : null;
    const row = this.rows?.[side];
    const each = (f: (n: number, bytes: Buffer, json: boolean) => void) =>
      row
        ? eachRecord(rf, (n, bytes) => {
            const text = row(n, bytes.toString('utf8'));
            if (text !== undefined) f(n, Buffer.from(text), true);
          })
        : eachRecord(rf, f);
    each((n, bytes, json) => {
      hashBytes(bytes);
      const v = HASH[1];
      let kh = HASH[0];
      let kl = HASH[1];
      if (this.key && json && this.keyHash(bytes, steps)) {
        kh = HASH[0];
        kl = HASH[1];
      }
      if (side === 0) {
        if (!t.add(kh, kl, v, n)) this.repeats[0]++;
        return;
      }
      const record = t.see(kh, kl, v);
      if (record === 0) this.added.push(n);
      else {
        if (record < 0) this.repeats[1]++;
        if (!t.same) {
          this.changedA.push(Math.abs(record));
          this.changedB.push(n);
        }
      }
    });
    if (side === 1) for (const n of t.unseen()) this.removed.push(n);
  }

  /**
   * Hashes the record's key into HASH (false: it has none): from its bytes when the key is a path of keys, else
   * (an index in the path) from its parsed value. A number is hashed as its value (1, 1.0 and 10e-1 are one key,
   * as jq has them); a string with its quotes, so it never meets a number.
   */
  private keyHash(bytes: Buffer, steps: Uint8Array[] | null): boolean {
    if (steps) {
      if (!keyBounds(bytes, steps)) return false;
      if (bytes[BOUNDS[0]] === 0x22) hashBytes(bytes, BOUNDS[0], BOUNDS[1]);
      else hashString(decimalKey(bytes.toString('latin1', BOUNDS[0], BOUNDS[1])));
    } else {
      const k = keyValue(parseRecord(bytes.toString('utf8')), this.key!);
      if (k === undefined) return false;
      hashString(typeof k === 'string' ? JSON.stringify(k) : decimalKey(k instanceof JsonNumber ? k.raw : String(k)));
    }
    // apart from the hashes of whole records, which match records that have no key
    HASH[0] ^= 0x6b43a9b5;
    return true;
  }

  private groups: { changed: Groups; added: Groups; removed: Groups } | null = null;
  /** Fields whose values differ on nearly every record changed: grouped by name, shown as varying. */
  private varying = new Set<string>();

  /**
   * Gathers the records found changed by how they changed (the set of their field changes, old → new) and the
   * records added and removed by their key's pattern (web-*-*): one more read of just those records, a window
   * at a time, kept as a hash each. Called once both sides are passed.
   */
  gather(a: ResultFile, b: ResultFile): void {
    const { changedA, changedB, added, removed } = this;
    const changed = new Float64Array(changedB.length);
    const stats = new FieldStats();
    const hashChanged = (each: (changes: FieldChange[], i: number) => void) => {
      for (let at = 0; at < changed.length; at += GATHER_WINDOW) {
        const to = Math.min(changed.length, at + GATHER_WINDOW);
        const na = Array.from({ length: to - at }, (_, i) => changedA.at(at + i));
        const nb = Array.from({ length: to - at }, (_, i) => changedB.at(at + i));
        const [ta, tb] = [fetchTexts(a, na), fetchTexts(b, nb)];
        for (let i = at; i < to; i++) {
          const [x, y] = [changedA.at(i), changedB.at(i)];
          each(allChanges(this.json(0, x, ta.get(x)) ?? 'null', this.json(1, y, tb.get(y)) ?? 'null'), i);
        }
      }
    };
    hashChanged((changes, i) => {
      stats.add(changes);
      changed[i] = changeHash(changes, null);
    });
    // a field whose values differ on (nearly) every record (a resourceVersion, a start time) made each record a
    // group of its own: such fields are gathered by their name alone, in a second read of the changed records
    this.varying = stats.varying(changed.length);
    if (this.varying.size) hashChanged((changes, i) => void (changed[i] = changeHash(changes, this.varying)));
    const byPattern = (list: IntList, rf: ResultFile, side: 0 | 1) => {
      const out = new Float64Array(list.length);
      for (let at = 0; at < out.length; at += GATHER_WINDOW) {
        const to = Math.min(out.length, at + GATHER_WINDOW);
        const ns = Array.from({ length: to - at }, (_, i) => list.at(at + i));
        const texts = this.key ? fetchTexts(rf, ns) : null;
        for (let i = at; i < to; i++) {
          // matched by content (no key): nothing to gather by, each record its own
          if (!texts) {
            out[i] = -1 - i;
            continue;
          }
          const pattern = keyPattern(this.keyText(this.json(side, list.at(i), texts.get(list.at(i))) ?? ''));
          // a key that is all masked (a PID, a number id) says nothing in common: each record its own
          if (!/[^*\W]/.test(pattern)) {
            out[i] = -1 - i;
            continue;
          }
          hashString(pattern);
          out[i] = hash53();
        }
      }
      return out;
    };
    this.groups = { changed: groupByHash(changed), added: groupByHash(byPattern(added, b, 1)), removed: groupByHash(byPattern(removed, a, 0)) };
  }

  /** A table's lines are compared as the JSON of their rows. */
  private json(side: 0 | 1, n: number, text: string | undefined): string | undefined {
    return text !== undefined && this.rows ? (this.rows[side](n, text) ?? text) : text;
  }

  /**
   * The record sections: changed, added, removed; each a list of groups (records changed alike, records added
   * or removed whose keys have one pattern), the smallest group first.
   */
  sections(): Section[] {
    const { changedA, changedB, added, removed } = this;
    const g = this.groups!;
    const gathered = (groups: Groups, i: number, first: number[], keyOf: (m: number) => string): Gathered => {
      const count = groupSize(groups, i);
      if (count === 1) return { count };
      const keys = first.map((m) => cut(keyOf(m), MAX_KEY));
      return { count, keys, more_keys: count - keys.length };
    };
    return [
      {
        heading: this.rows ? 'rows changed' : 'records changed',
        size: g.changed.size,
        records: changedB.length,
        needs: (i) => {
          const first = groupFirst(g.changed, i, KEYS_SHOWN);
          return { a: changedA.at(first[0]), b: first.map((m) => changedB.at(m)) };
        },
        item: (i, t): DiffItem => {
          const first = groupFirst(g.changed, i, KEYS_SHOWN);
          const [na, nb] = [changedA.at(first[0]), changedB.at(first[0])];
          const item = this.changedItem(na, nb, this.json(0, na, t.a.get(na)) ?? 'null', this.json(1, nb, t.b.get(nb)) ?? 'null');
          const more = gathered(g.changed, i, first, (m) => this.keyText(this.json(1, changedB.at(m), t.b.get(changedB.at(m))) ?? ''));
          if (more.count > 1 && item.type === 'record' && item.change === 'changed' && this.varying.size) {
            item.changes = item.changes.map((c) => (this.varying.has(c.field) ? { ...c, varies: true } : c));
          }
          return { ...item, ...more };
        },
      },
      this.keyedSection('added', this.rows ? 'rows added in B' : 'records added in B', g.added, added, 1, gathered),
      this.keyedSection('removed', this.rows ? 'rows removed from A' : 'records removed from A', g.removed, removed, 0, gathered),
    ];
  }

  /** Records added (in B) or removed (from A), gathered by their key's pattern. */
  private keyedSection(
    change: 'added' | 'removed',
    heading: string,
    groups: Groups,
    list: IntList,
    side: 0 | 1,
    gathered: (groups: Groups, i: number, first: number[], keyOf: (m: number) => string) => Gathered,
  ): Section {
    const numbers = (i: number) => groupFirst(groups, i, KEYS_SHOWN).map((m) => list.at(m));
    return {
      heading,
      size: groups.size,
      records: list.length,
      needs: (i) => (side === 1 ? { b: numbers(i) } : { a: numbers(i) }),
      item: (i, t): DiffItem => {
        const texts = side === 1 ? t.b : t.a;
        const first = groupFirst(groups, i, KEYS_SHOWN);
        const n = list.at(first[0]);
        const key = this.keyText(this.json(side, n, texts.get(n)) ?? '');
        const more = gathered(groups, i, first, (m) => this.keyText(this.json(side, list.at(m), texts.get(list.at(m))) ?? ''));
        const pattern = more.count > 1 ? { pattern: keyPattern(key) } : this.rowCells(texts.get(n));
        return change === 'added'
          ? { type: 'record', change, key, record_b: n, ...pattern, ...more }
          : { type: 'record', change, key, record_a: n, ...pattern, ...more };
      },
    };
  }

  /** A table's row added or removed: its line, spaces run together (which process, not only its PID). */
  private rowCells(line: string | undefined): { row?: string } {
    return this.rows && line !== undefined ? { row: shorten(line.trim().replace(/\s+/g, ' ')) } : {};
  }

  /** A record's key as shown: its key's value, else (matched by content) the start of its text. */
  private keyText(text: string): string {
    if (this.key) {
      try {
        const k = keyValue(parseRecord(text), this.key);
        if (k !== undefined) return typeof k === 'string' ? k : toJson(k);
      } catch {
        // not JSON (a jsonl line kept as text): shown as it is
      }
    }
    return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE)}…` : text;
  }

  private changedItem(na: number, nb: number, a: string, b: string): DiffItem {
    let changes: FieldChange[];
    try {
      changes = fieldChanges(parseRecord(a), parseRecord(b));
    } catch {
      changes = [{ field: '.', old: shorten(a), new: shorten(b) }];
    }
    const shown = changes.slice(0, MAX_FIELDS);
    return { type: 'record', change: 'changed', key: this.keyText(b), record_a: na, record_b: nb, changes: shown, more_changes: changes.length - shown.length, count: 1 };
  }
}

/** The key path as the summary names it. */
export function keyLabel(key: FieldPath | null): string | null {
  return key ? pathLabel(key) : null;
}

/** A key given with --key, checked. */
export function parseKey(text: string): FieldPath {
  return parsePath(text, '--key');
}

const cut = (s: string, max: number) => (s.length > max ? `${s.slice(0, max)}…` : s);
const shorten = (s: string) => cut(s, MAX_VALUE);

/**
 * The fields (leaf paths) whose values differ between two records, in the order of B's fields then A's. Values
 * compare as jq compares them (1 and 1.0 are equal) and are shown as written.
 */
export function fieldChanges(a: JsonValue, b: JsonValue, maxValue = MAX_VALUE): FieldChange[] {
  const fa = new Map<string, JsonValue>();
  const fb = new Map<string, JsonValue>();
  flatten(a, '', fa);
  flatten(b, '', fb);
  const out: FieldChange[] = [];
  const shown = (v: JsonValue) => cut(toJson(v), maxValue);
  for (const [field, v] of fb) {
    const had = fa.has(field);
    const old = fa.get(field)!;
    if (!had || groupKey(old) !== groupKey(v)) out.push({ field, ...(had ? { old: shown(old) } : {}), new: shown(v) });
  }
  for (const [field, v] of fa) if (!fb.has(field)) out.push({ field, old: shown(v) });
  return out;
}

/** The leaves of a value by path (`status.phase`, `items[0].name`); a large object or array is one leaf. */
function flatten(v: JsonValue, path: string, out: Map<string, JsonValue>): void {
  const members = isObject(v) ? Object.keys(v).length : Array.isArray(v) ? v.length : 0;
  if (members === 0 || members > MAX_MEMBERS) {
    out.set(path || '.', v);
    return;
  }
  if (Array.isArray(v)) v.forEach((x, i) => flatten(x, `${path}[${i}]`, out));
  else for (const [k, x] of Object.entries(v as Record<string, JsonValue>)) flatten(x, path + (path ? jqKeyStep(k) : jqKeyStep(k).slice(1)), out);
}

/** A changed record's changes, every one (a record that is not JSON: one change of the whole). */
function allChanges(a: string, b: string): FieldChange[] {
  try {
    return fieldChanges(parseRecord(a), parseRecord(b), Infinity);
  } catch {
    return [{ field: '.', old: a, new: b }];
  }
}

/**
 * The hash of a changed record's changes (each field, its old and its new value, whole), in any order; a field of
 * `byName` counts by its name alone.
 */
function changeHash(changes: FieldChange[], byName: Set<string> | null): number {
  hashString(
    changes
      .map((c) => JSON.stringify(byName?.has(c.field) ? [c.field] : [c.field, c.old ?? null, c.new ?? null]))
      .sort()
      .join('\n'),
  );
  return hash53();
}

/** Fields followed, and distinct changes kept per field: enough to tell "nearly every record its own" (bounded). */
const MAX_FIELDS_FOLLOWED = 10_000;
const MAX_PAIRS_KEPT = 4096;

/** Per field of the records changed: in how many it changed, and how many distinct changes (old → new) it had. */
class FieldStats {
  private readonly fields = new Map<string, { records: number; pairs: Set<number> }>();

  add(changes: FieldChange[]): void {
    for (const c of changes) {
      let f = this.fields.get(c.field);
      if (!f) {
        if (this.fields.size >= MAX_FIELDS_FOLLOWED) continue;
        this.fields.set(c.field, (f = { records: 0, pairs: new Set() }));
      }
      f.records++;
      if (f.pairs.size < MAX_PAIRS_KEPT) {
        hashString(JSON.stringify([c.old ?? null, c.new ?? null]));
        f.pairs.add(hash53());
      }
    }
  }

  /**
   * The fields that changed in at least half of the `records` changed (and in 3 or more) with a change of their
   * own in at least 9 of 10 of them: gathered by those, no two records would be alike.
   */
  varying(records: number): Set<string> {
    const out = new Set<string>();
    for (const [field, f] of this.fields) {
      if (f.records >= 3 && f.records * 2 >= records && f.pairs.size * 10 >= Math.min(f.records, MAX_PAIRS_KEPT) * 9) out.add(field);
    }
    return out;
  }
}
