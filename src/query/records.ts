// A stored record as the value conditions are tested on: the line of a text result (as grep searches it), the
// parsed JSON of a json/jsonl record. Lines of a jsonl result that were not JSON are not records to query
// (as lro jq skips them), and the command says so. A text result that is a column table gives its rows as objects
// of the named columns (table.ts); its header row and the lines that are not rows are passed over, and said so.
// A JSON document that is a map gives its entries, {key, value} each, as jq's to_entries does (map.ts).
import { FormatError, type Header } from '../format/header.js';
import type { ResultFile } from '../format/reader.js';
import { displayBytes, invalidSet, searchBytes } from '../format/record-text.js';
import type { StreamFilter } from '../format/streams.js';
import type { Range } from '../ranges.js';
import { parseRecord, type JsonValue } from '../values/json-value.js';
import type { Needles } from './prefilter.js';
import { candidateRecords, type StoredRecord } from './scan.js';
import { stderrLine, type Next, type NextOf } from '../budget.js';
import type { RunCapture } from '../io.js';

/** How the rows of a table result become objects, and the same as a jq filter (for --explain); see table.ts. */
export interface TableRecords {
  /** The line of the header row (1-based); rows are the lines after it. */
  headerLine: number;
  names: string[];
  /** A row as an object, or undefined for a line that is not one. */
  row: (line: string) => JsonValue | undefined;
  /** jq taking a line (a JSON string) to its object, or to nothing (empty) when it is not a row. */
  jq: string;
}

/** How a map's entries become the records (see map.ts). */
export interface MapRecords {
  /** The map's path in jq syntax (`.packages`; `.` for the document itself). */
  at: string;
  entries: number;
  /** The entries of the range, numbered from 1 in the order written: `{"key":K,"value":V}` as stored text. */
  records: (rf: ResultFile, range: Range) => Generator<StoredRecord>;
  /**
   * Records that are no map's entries but values lro jq reads one by one too (a YAML result's documents or
   * items: view.ts), said in words; their range is lro jq's --records.
   */
  inputs?: string;
}

/** f once per opened result (a command asks several times; a stored result never changes while it is open). */
export function perResult<T>(f: (rf: ResultFile) => T): (rf: ResultFile) => T {
  const seen = new WeakMap<ResultFile, T>();
  return (rf) => {
    if (!seen.has(rf)) seen.set(rf, f(rf));
    return seen.get(rf)!;
  };
}

/** The records of one stream (record numbers stay those of the whole result). */
function* ofStream(records: Generator<StoredRecord>, f: StreamFilter): Generator<StoredRecord> {
  for (const r of records) if (f.map.selects(f.choice, r.n)) yield r;
}

/** Turns stored records of one result into values. */
export class RecordDecoder {
  private readonly invalid: Set<number> | undefined;
  /** Table lines after the header that were not rows, as decoded: how many, and the first. */
  private notRows = 0;
  private firstNotRow = 0;
  private lastNotRow = 0;

  constructor(
    readonly header: Header,
    readonly table: TableRecords | null = null,
    readonly map: MapRecords | null = null,
    /** --stream: only the records of one stream of an lro run result. */
    readonly streams: StreamFilter | null = null,
  ) {
    this.invalid = invalidSet(header);
  }

  /** How many records a query sees: the result's, or its map's entries. */
  get count(): number {
    return this.map ? this.map.entries : this.header.count;
  }

  /**
   * The records of the range a query looks at, in order: those holding one of the needles (a prefilter on the
   * stored bytes), every line of a table (its conditions name columns, not the line), or the entries of a map.
   */
  records(rf: ResultFile, range: Range, needles: Needles): Generator<StoredRecord> {
    if (this.map) return this.map.records(rf, range);
    const all = candidateRecords(rf, range, this.table ? null : needles);
    return this.streams ? ofStream(all, this.streams) : all;
  }

  /** The record's value, or undefined for a line that is not JSON, or not a row of a table (skipped). */
  value(n: number, line: Buffer): JsonValue | undefined {
    const h = this.header;
    if (this.map) return parseRecord(line.toString('utf8'));
    if (this.invalid?.has(n)) return undefined;
    if (this.table) return this.row(n, line);
    try {
      // a line as grep searches it; a JSON record as stored (JSON.parse takes the whitespace of a jsonl line)
      if (h.content_type === 'text' || h.content_type === 'binary') return searchBytes(h, n, line, this.invalid).toString('utf8');
      return parseRecord(this.text(n, line));
    } catch {
      throw new FormatError(`record ${n} is not what a ${h.content_type} result holds`);
    }
  }

  private row(n: number, line: Buffer): JsonValue | undefined {
    const t = this.table!;
    if (n <= t.headerLine) return undefined;
    const v = t.row(searchBytes(this.header, n, line, this.invalid).toString('utf8'));
    // counted once each, though a command reads some lines twice (its fields checked first, then the query)
    if (v === undefined && n > this.lastNotRow) {
      this.lastNotRow = n;
      if (this.notRows++ === 0) this.firstNotRow = n;
    }
    return v;
  }

  /** The record's text as lro read shows it: the line of a text result, the stored JSON of a JSON record. */
  text(n: number, line: Buffer): string {
    if (this.map) return line.toString('utf8');
    try {
      return displayBytes(this.header, n, line, this.invalid).toString('utf8');
    } catch {
      throw new FormatError(`record ${n} is not what a ${this.header.content_type} result holds`);
    }
  }

  /**
   * The one line that says which records of the range were passed over as not JSON (empty when none were), as
   * lro jq says it; from the header's list, so records the prefilter never decoded count too. The command that
   * shows the first is made by `readOf` (lro read's, in the run's store) and handed to the run's capture.
   */
  skippedNote(range: Range, readOf: NextOf, run?: RunCapture): string {
    if (this.map?.inputs) return `lro: the records here are ${this.map.inputs}\n`;
    if (this.map) return `lro: the records here are the ${this.map.entries} entries of ${this.map.at}, each {key, value} as jq's to_entries gives them\n`;
    if (this.table) return this.tableNote(range, readOf, run);
    const skipped = (this.header.invalid_records ?? []).filter((n) => n >= range.from && n <= range.to);
    return skipped.length ? notJsonNote(this.header.id, skipped.length, skipped[0], readOf, run) : '';
  }

  /** The one line that says the header row and the lines that were not rows were passed over. */
  private tableNote(range: Range, readOf: NextOf, run?: RunCapture): string {
    const h = this.table!.headerLine;
    const header = range.from <= h && h <= range.to;
    if (!header && this.notRows === 0) return '';
    const parts = [header ? `the header row (line ${h})` : ''];
    const mentions: Next[] = [];
    if (this.notRows > 0) {
      const s = this.notRows > 1;
      const first = readOf({ id: this.header.id, records: String(this.firstNotRow) });
      mentions.push(first);
      parts.push(`${this.notRows} line${s ? 's' : ''} that ${s ? 'are' : 'is'} not a row of the table (${first.text} shows ${s ? 'the first' : 'it'})`);
    }
    return stderrLine(run, `lro: skipped ${parts.filter(Boolean).join(' and ')}`, mentions);
  }
}

/**
 * The line that says `skipped` records of result `id` were passed over as not JSON, and the command that shows the
 * first (`readOf`'s: lro read, in the run's store), as lro jq, where and count say it; handed to the run's capture.
 */
export function notJsonNote(id: string, skipped: number, first: number, readOf: NextOf, run?: RunCapture): string {
  const show = readOf({ id, records: String(first) });
  const s = skipped > 1;
  return stderrLine(run, `lro: skipped ${skipped} record${s ? 's' : ''} that ${s ? 'are' : 'is'} not JSON (${show.text} shows ${s ? 'the first' : 'it'})`, [show]);
}
