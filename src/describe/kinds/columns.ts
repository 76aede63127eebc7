// Column profiles shared by the table, CSV/TSV and listing kinds: each column's type (int, number, percent, size,
// time, text), the range of a numeric one with the line of its largest value, the most frequent values of a
// low-cardinality one. The type is decided from the rows a detector saw (the first lines); the figures are counted
// over every row as it passes (ColumnProfiler), in bounded memory: a column's values are counted exactly up to
// twice DISTINCT_CAP of them, past that its distinct count says it is a lower bound and no top list is given, and a cell
// of a numeric column that is no number is counted beside the range (`not_numbers`), never taken for one.
import { KIND_LINE_CHARS } from './types.js';
import { TopCounts } from './util.js';

export interface ColumnFacts {
  name: string;
  type: 'int' | 'number' | 'percent' | 'size' | 'time' | 'text' | 'empty';
  min?: number;
  max?: number;
  /** The line (record number) holding the largest value. */
  max_line?: number;
  /** Distinct values: a number, or words saying it is at least so many (counted exactly up to DISTINCT_CAP). */
  distinct?: number | string;
  top?: Record<string, number>;
  /** Cells of a numeric column that are not numbers (its min and max are of the others). */
  not_numbers?: number;
}

/** Distinct values of a column counted exactly up to this many. */
const DISTINCT_CAP = 1000;

const INT = /^[-+]?\d+$/;
const NUM = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const PERCENT = /^[-+]?\d+(\.\d+)?%$/;
const SIZE = /^(\d+(\.\d+)?)([KMGTPE])(i?B?)?$/i;
const TIME = /^(\d{4}-\d\d-\d\d([ T][\d:.]+(Z|[+-]\d\d:?\d\d)?)?|\d{1,2}:\d\d(:\d\d)?)$/;
const SIZE_UNIT: Record<string, number> = { K: 1, M: 2, G: 3, T: 4, P: 5, E: 6 };

/** A cell as a number for its type (size in bytes, percent without %), or null. */
export function cellNumber(v: string, type: ColumnFacts['type']): number | null {
  if (type === 'int' || type === 'number') return NUM.test(v) ? Number(v) : null;
  if (type === 'percent') return PERCENT.test(v) ? Number(v.slice(0, -1)) : null;
  if (type === 'size') {
    if (NUM.test(v)) return Number(v);
    const m = SIZE.exec(v);
    return m ? Number(m[1]) * 1024 ** SIZE_UNIT[m[3].toUpperCase()] : null;
  }
  return null;
}

function typeOf(values: string[]): ColumnFacts['type'] {
  const vs = values.filter((v) => v !== '' && v !== '-');
  if (vs.length === 0) return 'empty';
  const all = (re: RegExp) => vs.every((v) => re.test(v));
  if (all(INT)) return 'int';
  if (all(NUM)) return 'number';
  if (all(PERCENT)) return 'percent';
  if (vs.every((v) => SIZE.test(v) || NUM.test(v)) && vs.some((v) => SIZE.test(v))) return 'size';
  if (all(TIME)) return 'time';
  return 'text';
}

/** Profiles the columns of rows (cells by column), `lines[i]` being the line number of rows[i]. */
export function profileColumns(names: string[], rows: string[][], lines: number[], topN = 6): ColumnFacts[] {
  const p = new ColumnProfiler(names, columnTypes(names, rows), topN);
  rows.forEach((r, i) => p.add(r, lines[i]));
  return p.end();
}

/** Each column's type, from rows (the first lines: a detector's sample). */
export function columnTypes(names: string[], rows: string[][]): ColumnFacts['type'][] {
  return names.map((_, c) => typeOf(rows.map((r) => (r[c] ?? '').trim())));
}

const NUMERIC = new Set<ColumnFacts['type']>(['int', 'number', 'percent', 'size']);

/** A column's figures, counted a row at a time. */
interface Tally {
  min: number;
  max: number;
  maxLine?: number;
  maxText?: string;
  notNumbers: number;
  /** The column's values counted (null: a numeric column), until they are too many to count one by one. */
  values: TopCounts | null;
  /** More distinct values than are counted: no longer counted (the count is a bound, and no top list is given). */
  many: boolean;
}

/** The type of a column empty in the first rows, from every value it held (text when they were too many to keep). */
function laterType(t: Tally): ColumnFacts['type'] {
  const values = t.values!;
  if (!values.exact) return t.notNumbers ? 'text' : 'number';
  const type = typeOf([...values.map().keys()]);
  return type === 'int' || type === 'number' || type === 'empty' ? type : 'text';
}

/**
 * Column figures over every row fed, the types fixed beforehand (columnTypes of the first rows), and the count of
 * rows, of lines that are no row, and of rows cut where the kind counters stop reading a line (KIND_LINE_CHARS).
 */
export class ColumnProfiler {
  private readonly tallies: Tally[];
  private rows = 0;
  private notRows = 0;
  private cutRows = 0;

  constructor(
    private readonly names: string[],
    private readonly types: ColumnFacts['type'][],
    private readonly topN = 6,
  ) {
    this.tallies = types.map((t) => ({
      min: Infinity,
      max: -Infinity,
      notNumbers: 0,
      values: NUMERIC.has(t) ? null : new TopCounts(DISTINCT_CAP),
      many: false,
    }));
  }

  /** A line that is no row (a message after the table, a line of another number of fields). */
  notRow(): void {
    this.notRows++;
  }

  /**
   * One row's cells (a missing cell is empty), on line `line`. A row `cut` short where the counters stop reading
   * is counted, and its cells but the last (not whole) are in the figures.
   */
  add(cells: string[], line: number, cut = false): void {
    this.rows++;
    if (cut) this.cutRows++;
    const upTo = cut ? Math.min(cells.length - 1, this.tallies.length) : this.tallies.length;
    for (let c = 0; c < upTo; c++) {
      const t = this.tallies[c];
      const raw = cells[c] ?? '';
      // (most cells have no space at either end: trim only those that do)
      const v = raw.length && (raw.charCodeAt(0) <= 32 || raw.charCodeAt(raw.length - 1) <= 32) ? raw.trim() : raw;
      if (t.values) {
        if (!t.many) {
          t.values.add(v);
          // (once a value was dropped the count is a bound: counting on would cost without telling more)
          t.many = !t.values.exact;
        }
        // a column empty in the first rows may hold numbers later (lsof's SIZE/OFF): their range is kept too
        if (this.types[c] !== 'empty') continue;
      }
      const n = cellNumber(v, this.types[c] === 'empty' ? 'number' : this.types[c]);
      if (n === null) {
        if (v !== '' && v !== '-') t.notNumbers++;
        continue;
      }
      if (n < t.min) t.min = n;
      if (n > t.max) {
        t.max = n;
        t.maxLine = line;
        t.maxText = v;
      }
    }
  }

  /** The rows counted, and the lines that were not rows or were cut, when there are any. */
  rowFacts(): Record<string, number | string> {
    return {
      rows: this.rows,
      ...(this.notRows ? { lines_not_rows: this.notRows } : {}),
      ...(this.cutRows
        ? { long_rows: `${this.cutRows} rows are longer than ${KIND_LINE_CHARS} characters: their cells past that are not in the column figures` }
        : {}),
    };
  }

  end(): ColumnFacts[] {
    return this.names.map((name, c) => {
      const t = this.tallies[c];
      const type = this.types[c] === 'empty' ? laterType(t) : this.types[c];
      const col: ColumnFacts = { name, type };
      if (!t.values || type === 'int' || type === 'number') {
        if (t.min <= t.max) Object.assign(col, { min: round(t.min), max: round(t.max) });
        // shown as written: the largest cell's own text says its unit
        if ((type === 'size' || type === 'percent') && t.maxText !== undefined) (col as unknown as Record<string, unknown>).max_text = t.maxText;
        if (t.notNumbers) col.not_numbers = t.notNumbers;
        if (t.maxLine !== undefined) col.max_line = t.maxLine;
        return col;
      }
      const counts = t.values;
      if (!counts.exact) {
        // (TopCounts drops keys only once it holds twice its cap of them)
        col.distinct = `${(2 * DISTINCT_CAP).toLocaleString('en-US')} or more`;
        return col;
      }
      col.distinct = counts.size;
      // a column worth counting by: few values, each on several rows
      if (type !== 'time' && counts.size <= 20 && counts.size < this.rows / 2) {
        col.top = counts.top(this.topN);
      }
      return col;
    });
  }
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
