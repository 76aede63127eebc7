// What a descriptor says about JSON records: the first and last records, an inferred schema, and the most
// frequent values of low-cardinality fields (e.g. `status: success 4800, error 200`). Every record is counted
// for the first FULL_BYTES of records; past that, records are sampled at a growing stride, each sampled record
// counting for `stride` records, and the stats say they are estimates.
import { SchemaNode, jqKey } from './schema.js';
import { FieldProfiles, type FieldFigures } from './field-stats.js';
import { RecordKindWatch } from './kinds/json-kinds.js';
import type { KindFacts } from './kinds/types.js';

const HEAD_RECORDS = 3;
const TAIL_RECORDS = 2;
const RECORD_KEEP_CHARS = 200;
/** Records are all parsed up to this many bytes of them; then sampled. */
const FULL_BYTES = 8 << 20;
/** While sampling, the stride doubles after every this many sampled records. */
const SAMPLED_PER_STRIDE = 10_000;
/** A field stops being "low cardinality" past this many distinct values. */
const MAX_DISTINCT = 50;
const MAX_VALUE_CHARS = 80;
const MAX_TRACKED_FIELDS = 400;

/** One record shown in a preview: its number and a shortened copy of its value (see shorten). */
/** A record larger than this is not parsed for the statistics (its schema and kind come from the others). */
export const ANALYZED_RECORD_BYTES = 4 << 20;

export interface PreviewRecord {
  record: number;
  value: unknown;
}

/** The value counts of one field, most frequent first. */
export interface FieldValues {
  path: string;
  present: number;
  distinct: number;
  values: [value: string | number | boolean | null, count: number][];
}

export interface RecordStats {
  count: number;
  /** How many records the schema and value counts were computed from. */
  analyzed: number;
  sampled: boolean;
  head: PreviewRecord[];
  tail: PreviewRecord[];
  schema: SchemaNode;
  /** Low-cardinality fields, most telling first. */
  topValues: FieldValues[];
  /** Numbers (min, max, median), timestamps (first, last) and ids (distinct values) of the other fields. */
  figures: FieldFigures[];
  /** What kind of JSON this is when a watcher is sure (a test run, a map): see kinds/json-kinds.ts. */
  kind?: KindFacts;
}

class ValueCounter {
  present = 0;
  overflow = false;
  /** Counts by value (a JSON scalar: strings, numbers, booleans and null are distinct keys of a Map). */
  readonly counts = new Map<string | number | boolean | null, number>();

  add(v: unknown, weight: number): void {
    this.present += weight;
    if (this.overflow) return;
    if (v !== null && typeof v === 'object') {
      this.overflow = true;
      return;
    }
    if (typeof v === 'string' && v.length > MAX_VALUE_CHARS) {
      this.overflow = true;
      return;
    }
    const key = v as string | number | boolean | null;
    this.counts.set(key, (this.counts.get(key) ?? 0) + weight);
    if (this.counts.size > MAX_DISTINCT) {
      this.overflow = true;
      this.counts.clear();
    }
  }
}

export class RecordAnalyzer {
  /** `mask`: hides secrets in the previews (a record's JSON text in, the same with secrets masked out). */
  constructor(private readonly mask: ((json: Uint8Array) => Uint8Array) | null = null) {}

  private n = 0; // the last record number seen
  private bytes = 0;
  private analyzed = 0;
  private stride = 1;
  private sampledAtStride = 0;
  private weight = 1;
  private readonly head: PreviewRecord[] = [];
  /** The last TAIL_RECORDS records, oldest first; entries are reused, not made per record. */
  private tail: { n: number; buf: Buffer; start: number; end: number; whole: boolean; copied: boolean }[] = [];
  private readonly schema = new SchemaNode();
  private readonly fields = new Map<string, ValueCounter>();
  private readonly profiles = new FieldProfiles(MAX_TRACKED_FIELDS);
  private readonly kindWatch = new RecordKindWatch();

  /** Sees record number n (its JSON text). Records must come in order; numbers may skip (non-JSON lines). */
  observe(record: Buffer, n: number): void {
    this.observeAt(record, 0, record.length, n);
    this.keepTail();
  }

  /**
   * observe() for the record at buf[start, end), without making a Buffer of it unless it is looked at. The tail
   * keeps a view of buf until keepTail() copies it: call that before buf's memory is reused.
   */
  observeAt(buf: Buffer, start: number, end: number, n: number): void {
    const length = end - start;
    this.n = n;
    this.bytes += length;
    if (this.head.length < HEAD_RECORDS) this.head.push({ record: n, value: preview(this.masked(buf.subarray(start, end))) });
    else {
      // kept raw; previewed once at the end
      const t = this.tail.length < TAIL_RECORDS ? { n, buf, start, end, whole: true, copied: false } : this.tail.shift()!;
      t.n = n;
      t.buf = buf;
      t.start = start;
      t.end = Math.min(end, start + (1 << 20));
      t.whole = length <= 1 << 20;
      t.copied = false;
      this.tail.push(t);
    }
    this.weight = 1;
    if (this.bytes > FULL_BYTES) {
      if (this.stride === 1) this.stride = 2;
      if (n % this.stride !== 0) return;
      this.weight = this.stride;
      if (++this.sampledAtStride >= SAMPLED_PER_STRIDE) {
        this.stride *= 2;
        this.sampledAtStride = 0;
      }
    }
    if (length > ANALYZED_RECORD_BYTES) return; // a huge single record: schema from others
    let value: unknown;
    try {
      value = JSON.parse(buf.toString('utf8', start, end));
    } catch {
      return;
    }
    this.analyzed++;
    this.kindWatch.observe(value, n, length, this.weight);
    this.schema.add(value);
    this.countFields(value);
  }

  /** Copies the tail records still held as views (two at most). */
  keepTail(): void {
    for (const t of this.tail) {
      if (t.copied) continue;
      t.buf = Buffer.from(t.buf.subarray(t.start, t.end));
      t.start = 0;
      t.end = t.buf.length;
      t.copied = true;
    }
  }

  end(): RecordStats {
    const topValues: FieldValues[] = [];
    for (const [path, c] of this.fields) {
      if (c.overflow || c.counts.size === 0) continue;
      const values = [...c.counts.entries()]
        .sort((a, b) => b[1] - a[1])
        .map(([k, count]) => [k, count] as FieldValues['values'][number]);
      topValues.push({ path, present: c.present, distinct: c.counts.size, values });
    }
    topValues.sort((a, b) => fieldScore(b, this.n) - fieldScore(a, this.n));
    // a time or an id says more by its range or its count of values than by its most frequent values
    const figures = this.profiles.figures(this.analyzed);
    const described = new Set(figures.filter((f) => f.times || f.distinct).map((f) => f.path));
    const kind = this.kindWatch.end(this.n, this.analyzed < this.n);
    return {
      ...(kind ? { kind } : {}),
      count: this.n,
      analyzed: this.analyzed,
      sampled: this.analyzed < this.n,
      head: this.head,
      tail: this.tail.map((t) => {
        const b = this.masked(t.buf.subarray(t.start, t.end));
        return { record: t.n, value: t.whole ? preview(b) : `${b.toString('utf8', 0, RECORD_KEEP_CHARS)}…` };
      }),
      schema: this.schema,
      topValues: topValues.filter((f) => fieldScore(f, this.n) > 0 && !described.has(f.path) && !this.holdsSecret(f)),
      figures,
    };
  }

  private masked(record: Buffer): Buffer {
    if (!this.mask) return record;
    const m = this.mask(record);
    return Buffer.from(m.buffer, m.byteOffset, m.byteLength);
  }

  /** Whether a field's frequent values hold a secret (then it is left out: its values would be shown). */
  private holdsSecret(f: FieldValues): boolean {
    if (!this.mask) return false;
    const key = /([^.[\]"]+)"?\]?$/.exec(f.path)?.[1] ?? f.path;
    return f.values.some(([v]) => {
      const probe = Buffer.from(JSON.stringify({ [key]: v }));
      return this.mask!(probe) !== probe;
    });
  }

  /** Counts scalar values at depth 1 and 2 (`.status`, `.metadata.namespace`) and positions of array records. */
  private countFields(value: unknown): void {
    if (Array.isArray(value)) {
      value.slice(0, 20).forEach((v, i) => this.count(`.[${i}]`, v));
      return;
    }
    if (value === null || typeof value !== 'object') return;
    // for-in over parsed objects: their own keys, in Object.entries order, without an array per field
    const obj = value as Record<string, unknown>;
    for (const k in obj) {
      const v = obj[k];
      const path = jqKey(k);
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
        const inner = v as Record<string, unknown>;
        for (const k2 in inner) {
          const v2 = inner[k2];
          if (v2 === null || typeof v2 !== 'object') this.count(path + jqKey(k2), v2);
        }
      } else this.count(path, v);
    }
  }

  private count(path: string, v: unknown): void {
    this.profiles.add(path, v);
    let c = this.fields.get(path);
    if (!c) {
      if (this.fields.size >= MAX_TRACKED_FIELDS) return;
      c = new ValueCounter();
      this.fields.set(path, c);
    }
    c.add(v, this.weight);
  }
}

/** Higher for fields that split records into a few well-filled groups; 0 for fields not worth showing. */
function fieldScore(f: FieldValues, records: number): number {
  if (f.distinct < 2 || f.distinct > 20 || records === 0) return 0;
  const coverage = f.present / records;
  if (coverage < 0.5) return 0;
  const name = f.path.toLowerCase();
  const telling = /status|state|level|severity|type|kind|phase|result|outcome|action|code|method|category|reason|success|ok|error/.test(name) ? 2 : 1;
  const depthPenalty = (f.path.match(/\./g) ?? []).length > 1 ? 0.7 : 1;
  return (telling * coverage * depthPenalty) / Math.log2(f.distinct + 1);
}

/** A record for a preview: its value shortened, or its text cut short when it is too big to parse. */
function preview(record: Buffer): unknown {
  if (record.length > 1 << 20) return `${record.toString('utf8', 0, RECORD_KEEP_CHARS)}…`;
  try {
    return shorten(JSON.parse(record.toString('utf8')), 0);
  } catch {
    return `${record.toString('utf8', 0, RECORD_KEEP_CHARS)}…`;
  }
}

/**
 * A smaller copy of a value that keeps its shape: long strings cut, arrays to their first items, objects to
 * their first keys, deep levels elided. Numbers beyond 2^53 are shown as parsed (a preview, not the data).
 */
export function shorten(v: unknown, depth: number): unknown {
  if (typeof v === 'string') return v.length > 60 ? `${v.slice(0, 60)}…` : v;
  if (v === null || typeof v !== 'object') return v;
  if (depth >= 3) return Array.isArray(v) ? `[… ${v.length} items]` : '{…}';
  if (Array.isArray(v)) {
    const out = v.slice(0, 2).map((x) => shorten(x, depth + 1));
    if (v.length > 2) out.push(`… ${v.length - 2} more`);
    return out;
  }
  const entries = Object.entries(v);
  const out: Record<string, unknown> = {};
  for (const [k, x] of entries.slice(0, 12)) out[k] = shorten(x, depth + 1);
  if (entries.length > 12) out['…'] = `${entries.length - 12} more keys`;
  return out;
}

/**
 * Feeds a RecordAnalyzer from the raw bytes of a JSONL input: cuts lines (without CR), numbers them as the
 * records are numbered, and skips blank lines and lines that are not JSON (the encoder lists those).
 */
export class JsonlRecordFeeder {
  private carry: Buffer | null = null;
  private skipping = false; // inside a line too long to analyze
  private line = 0;

  constructor(readonly analyzer: RecordAnalyzer) {}

  /** Feeds input bytes; the chunk may be reused once this returns. */
  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, start)) {
      if (this.carry || this.skipping) {
        if (!this.skipping) {
          const line = Buffer.concat([this.carry!, chunk.subarray(0, nl)]);
          this.one(line, 0, line.length);
        } else this.line++;
        this.carry = null;
        this.skipping = false;
      } else this.one(chunk, start, nl);
      start = nl + 1;
    }
    this.analyzer.keepTail();
    if (start < chunk.length && !this.skipping) {
      const rest = chunk.subarray(start);
      this.carry = this.carry ? Buffer.concat([this.carry, rest]) : Buffer.from(rest);
      if (this.carry.length > 4 << 20) {
        this.carry = null;
        this.skipping = true;
      }
    }
  }

  end(): RecordStats {
    if (this.carry && this.carry.length > 0) this.one(this.carry, 0, this.carry.length);
    else if (this.skipping) this.line++;
    this.carry = null;
    return this.analyzer.end();
  }

  private one(buf: Buffer, start: number, end: number): void {
    this.line++;
    if (end > start && buf[end - 1] === 0x0d) end--;
    if (end > start) this.analyzer.observeAt(buf, start, end, this.line);
  }
}
