// Which stream each record came from, for a result of `lro run` that stored stdout and stderr together (in the
// order their lines arrived). The header says it in two fields: `stderr_lines`, how many records came from
// stderr, and `stderr_records`, their numbers as compact runs ("3-5,9,12-40"; "" when there were none). Every other
// record came from stdout. A result without these fields (offloaded from a pipe, or stored before lro kept both
// streams) has no stream information: its records are read as they always were.
import { FormatError } from './format-error.js';

/** The header fields the stream information is read from and checked against (header.ts's Header has them). */
interface StreamHeader {
  count: number;
  content_type: 'text' | 'jsonl' | 'json' | 'binary';
  stderr_lines?: number;
  stderr_records?: string;
}

export type StreamName = 'stdout' | 'stderr';
export type StreamChoice = StreamName | 'both';
export const STREAM_CHOICES: readonly StreamChoice[] = ['stdout', 'stderr', 'both'];

/** The stream fields of a header. */
export interface StreamFields {
  stderr_lines: number;
  stderr_records: string;
}

/** Record numbers (ascending, each once) as runs: [1,2,3,7] -> "1-3,7". */
export function formatRuns(runs: readonly [number, number][]): string {
  return runs.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(',');
}

/** Runs written by formatRuns back as [from, to] pairs; throws FormatError when they are not ascending runs. */
export function parseRuns(text: string, count: number): [number, number][] {
  if (text === '') return [];
  const runs: [number, number][] = [];
  let last = 0;
  for (const part of text.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    const from = m ? Number(m[1]) : NaN;
    const to = m && m[2] !== undefined ? Number(m[2]) : from;
    if (!(from > last && to >= from && to <= count)) throw new FormatError('header field stderr_records is not ascending runs of record numbers');
    runs.push([from, to]);
    last = to;
  }
  return runs;
}

/** Collects the record numbers of one stream as runs, in ascending order. */
export class RunBuilder {
  readonly runs: [number, number][] = [];
  count = 0;

  add(n: number): void {
    const last = this.runs[this.runs.length - 1];
    if (last && last[1] === n - 1) last[1] = n;
    else if (!last || last[1] < n) this.runs.push([n, n]);
    else return;
    this.count++;
  }
}

/**
 * The header fields for stream information. Records that came from stderr can be named only where records are
 * lines (text, jsonl); other content gets the fields only when nothing came from stderr.
 */
export function streamFields(info: StreamFields | null | undefined, contentType: StreamHeader['content_type']): Partial<StreamFields> {
  if (!info || (info.stderr_lines > 0 && contentType !== 'text' && contentType !== 'jsonl')) return {};
  return { stderr_lines: info.stderr_lines, stderr_records: info.stderr_records };
}

/** The streams of a result's records, looked up by record number. */
export class StreamMap {
  private readonly starts: number[];
  private readonly ends: number[];
  private cursor = 0;

  constructor(
    readonly runs: [number, number][],
    readonly stderrLines: number,
  ) {
    this.starts = runs.map((r) => r[0]);
    this.ends = runs.map((r) => r[1]);
  }

  /** The stream record n came from. Fast for ascending lookups (a cursor), correct for any order. */
  streamOf(n: number): StreamName {
    const { starts, ends } = this;
    if (this.cursor >= starts.length || starts[this.cursor] > n) this.cursor = 0;
    if (this.cursor < starts.length && ends[this.cursor] < n) {
      // binary search for the first run ending at or after n
      let lo = this.cursor;
      let hi = starts.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (ends[mid] < n) lo = mid + 1;
        else hi = mid;
      }
      this.cursor = lo;
    }
    return this.cursor < starts.length && starts[this.cursor] <= n && n <= ends[this.cursor] ? 'stderr' : 'stdout';
  }

  /** Whether record n belongs to the chosen stream(s). */
  selects(choice: StreamChoice, n: number): boolean {
    return choice === 'both' || this.streamOf(n) === choice;
  }
}

/** The stream map of a result, or null when it has no stream information. Throws FormatError for bad fields. */
export function streamsOf(h: StreamHeader): StreamMap | null {
  if (h.stderr_records === undefined) return null;
  return new StreamMap(parseRuns(h.stderr_records, h.count), h.stderr_lines ?? 0);
}

/** Checks the stream fields of a parsed header (FormatError when they are wrong). */
export function checkStreamFields(h: StreamHeader): void {
  if (h.stderr_records === undefined && h.stderr_lines === undefined) return;
  if (typeof h.stderr_records !== 'string' || !Number.isSafeInteger(h.stderr_lines)) {
    throw new FormatError('header fields stderr_records and stderr_lines are not a string and a count');
  }
  const lines = parseRuns(h.stderr_records, h.count).reduce((a, [from, to]) => a + to - from + 1, 0);
  if (lines !== h.stderr_lines) throw new FormatError(`header says ${h.stderr_lines} stderr lines but lists ${lines}`);
}

/** How many of `total` records came from the chosen stream. */
export function streamCount(map: StreamMap, choice: StreamName, total: number): number {
  return choice === 'stderr' ? map.stderrLines : total - map.stderrLines;
}

/** The number of the k-th record (1-based) of the chosen stream, or null when it has fewer. */
export function nthRecord(runs: readonly [number, number][], choice: StreamName, k: number, total: number): number | null {
  if (k < 1) return null;
  if (choice === 'stderr') {
    for (const [a, b] of runs) {
      if (k <= b - a + 1) return a + k - 1;
      k -= b - a + 1;
    }
    return null;
  }
  let next = 1; // first record after the last stderr run
  for (const [a, b] of runs) {
    if (k <= a - next) return next + k - 1;
    k -= a - next;
    next = b + 1;
  }
  return next + k - 1 <= total ? next + k - 1 : null;
}

/** The records of one stream: the map and the stream chosen (null: every record). */
export interface StreamFilter {
  map: StreamMap;
  choice: StreamName;
}

