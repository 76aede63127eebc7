// Column profiles shared by the table, CSV/TSV and listing kinds: each column's type (int, number, percent, size,
// time, text), the range of a numeric one with the line of its largest value, the most frequent values of a
// low-cardinality one, from the rows the detector saw.

export interface ColumnFacts {
  name: string;
  type: 'int' | 'number' | 'percent' | 'size' | 'time' | 'text' | 'empty';
  min?: number;
  max?: number;
  /** The line (record number) holding the largest value. */
  max_line?: number;
  distinct?: number;
  top?: Record<string, number>;
}

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
  return names.map((name, c) => {
    const values = rows.map((r) => (r[c] ?? '').trim());
    const type = typeOf(values);
    const col: ColumnFacts = { name, type };
    if (type === 'int' || type === 'number' || type === 'percent' || type === 'size') {
      let min = Infinity;
      let max = -Infinity;
      values.forEach((v, i) => {
        const n = cellNumber(v, type);
        if (n === null) return;
        if (n < min) min = n;
        if (n > max) {
          max = n;
          col.max_line = lines[i];
        }
      });
      if (min <= max) Object.assign(col, { min: round(min), max: round(max) });
      if (type === 'size' || type === 'percent') {
        // shown as written: the largest cell's own text says its unit
        const at = lines.indexOf(col.max_line!);
        if (at >= 0) (col as unknown as Record<string, unknown>).max_text = values[at];
      }
      return reorder(col);
    }
    const counts = new Map<string, number>();
    for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
    col.distinct = counts.size;
    // a column worth counting by: few values, each on several rows
    if (type !== 'time' && counts.size <= 20 && counts.size < rows.length / 2) {
      col.top = Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]).slice(0, topN));
    }
    return col;
  });
}

function reorder(c: ColumnFacts): ColumnFacts {
  const { max_line, ...rest } = c;
  return max_line === undefined ? rest : { ...rest, max_line };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
