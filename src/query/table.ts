// A text result the descriptor called a column table (ps aux, df, kubectl get, docker ps) or CSV/TSV, read as
// records: each row after the header line is an object of the named columns, a cell that is a JSON number a number, so that
// where's and count's conditions and --by work on it as on JSON records. The split (names, and how a row is cut)
// is found again from the stored header line and the rows after it, as the descriptor found it: nothing more is
// stored. The header row, blank lines and lines the split cannot cut are not records.
import { keptStats } from '../describe/stored.js';
import { chooseSplit, type Split } from '../describe/kinds/table.js';
import { delimitedJq, NUM_DEF, splitDelimited } from '../describe/kinds/csv.js';
import type { ResultFile } from '../format/reader.js';
import { formatRange, type Range } from '../ranges.js';
import { isNumberLiteral } from '../values/decimal.js';
import { parseRecord, toJson, type JsonValue } from '../values/json-value.js';
import { perResult, RecordDecoder, type TableRecords } from './records.js';

export type { TableRecords } from './records.js';
import { candidateRecords } from './scan.js';

/** Rows read after the header line to choose the split (as many as the descriptor's sample holds, about). */
const SPLIT_SAMPLE = 500;

/** The table a text result is (the descriptor kept kind table, csv or tsv in its statistics), or null. */
export const tableOf = perResult(findTable);

function findTable(rf: ResultFile): TableRecords | null {
  if (rf.header.content_type !== 'text') return null;
  const kind = (() => {
    const s = keptStats(rf.header);
    return s?.kind === 'text' ? s.text.kind : undefined;
  })();
  if (kind?.kind === 'csv' || kind?.kind === 'tsv') return delimitedTable(rf, kind.kind === 'csv' ? ',' : '\t', kind.facts);
  const headerLine = kind?.kind === 'table' ? kind.facts.header_line : undefined;
  if (typeof headerLine !== 'number' || headerLine < 1 || headerLine > rf.header.count) return null;
  const plain = new RecordDecoder(rf.header);
  let header = '';
  const rows: string[] = [];
  for (const r of candidateRecords(rf, { from: headerLine, to: headerLine + SPLIT_SAMPLE }, null)) {
    const text = plain.value(r.n, r.line) as string;
    if (r.n === headerLine) header = text;
    else if (text.trim() !== '') rows.push(text);
  }
  const split = chooseSplit(header, rows);
  return split ? tableRecords(headerLine, split, header) : null;
}

/** The line of a text result (as where reads it), or '' past its end. */
function lineOf(rf: ResultFile, n: number): string {
  const plain = new RecordDecoder(rf.header);
  for (const r of candidateRecords(rf, { from: n, to: n }, null)) return plain.value(r.n, r.line) as string;
  return '';
}

/**
 * A CSV or TSV result as a table: the columns named by its header row (`header_line`; older results said
 * `header: "line N"`), or numbered from 1 when it has none; a row is a line of as many fields as the header.
 */
function delimitedTable(rf: ResultFile, sep: string, facts: Record<string, unknown>): TableRecords | null {
  const said = typeof facts.header === 'string' ? /^line (\d+)$/.exec(facts.header) : null;
  const headerLine = typeof facts.header_line === 'number' ? facts.header_line : said ? Number(said[1]) : 0;
  if (headerLine > rf.header.count) return null;
  const first = lineOf(rf, headerLine || 1).replace(/\r$/, '');
  const cells = splitDelimited(first, sep);
  const names = headerLine ? cells.map((c) => c.trim()) : cells.map((_, i) => String(i + 1));
  if (names.length < 2 || new Set(names).size !== names.length) return null;
  const row = (line: string): JsonValue | undefined => {
    const f = splitDelimited(line.replace(/\r$/, ''), sep);
    if (f.length !== names.length) return undefined;
    return make(f, cellValue);
  };
  const make = rowMaker(names);
  return { headerLine, names, row, jq: delimitedJq(sep, names, headerLine ? row(first) : undefined) };
}

function tableRecords(headerLine: number, split: Split, header: string): TableRecords {
  const row = (line: string): JsonValue | undefined => {
    if (line.trim() === '') return undefined;
    const cells = split.cut(line);
    if (!cells) return undefined;
    return make(cells, cellValue);
  };
  const make = rowMaker(split.names);
  return { headerLine, names: split.names, row, jq: rowJq(split, row(header)) };
}

/**
 * The row object of `names` from its cells, made by one object literal of those keys (compiled once a table): a
 * row is the same shape every time, where filling `{}` key by key cost a fifth of `lro count`'s time on a table.
 */
function rowMaker(names: string[]): (cells: string[], value: (cell: string) => JsonValue) => Record<string, JsonValue> {
  // (the names are JSON strings in the literal: any text is a safe key, but `__proto__` there, as assigned, would
  // set the object's prototype: a table with such a column has each property defined)
  if (names.includes('__proto__')) {
    return (cells, value) => {
      const out: Record<string, JsonValue> = {};
      names.forEach((name, i) => Object.defineProperty(out, name, { value: value(cells[i]), enumerable: true, writable: true, configurable: true }));
      return out;
    };
  }
  const fields = names.map((n, i) => `${JSON.stringify(n)}: value(cells[${i}])`).join(', ');
  return new Function('cells', 'value', `return { ${fields} };`) as (cells: string[], value: (cell: string) => JsonValue) => Record<string, JsonValue>;
}

/**
 * `row` for lro jq on a table (`lro jq ID 'row | select(."%MEM" > 5) | .COMMAND'`): the line as the object of
 * the named columns, nothing for the header row and the lines that are not rows.
 */
export function rowDefinition(t: TableRecords): string {
  return `def row: ${t.jq};`;
}

/** Whether a jq filter calls `row` (not a field .row or a variable $row). */
export function callsRow(filter: string): boolean {
  return /(^|[^A-Za-z0-9_$.])row([^A-Za-z0-9_]|$)/.test(filter);
}

/**
 * A cell as a value: a JSON number literal is the number (exact, as JSON records are read), an empty cell null
 * (nothing there: `FIELD?` does not hold), else the text.
 */
export function cellValue(cell: string): JsonValue {
  if (cell === '') return null;
  const c = cell.charCodeAt(0);
  if (!((c >= 48 && c <= 57) || c === 45) || !isNumberLiteral(cell)) return cell; // (a number starts with a digit or -)
  // a literal of at most 15 characters and no exponent holds at most 15 digits: a double is exact for it, so the
  // exact parse (parseRecord: two more regexes and JSON.parse, a third of `lro count`'s time on a table) is not needed
  return cell.length <= 15 && !cell.includes('e') && !cell.includes('E') ? Number(cell) : parseRecord(cell);
}

/**
 * The jq that cuts a line as the split does: at the header's column starts (left-aligned columns: a row whose
 * character before a start is not a space is not a row), or at runs of whitespace, the last column taking the rest.
 * The header row itself (the object whose cells are as the header's) gives nothing.
 */
function rowJq(split: Split, headerRow: JsonValue | undefined): string {
  const num = 'num';
  const names = split.names;
  const starts = split.starts;
  let cut: string;
  let cells: string[];
  if (starts) {
    const clear = starts.slice(1).map((p) => `(length <= ${p} or .[${p - 1}:${p}] == " ")`);
    cut = `select(${clear.join(' and ')}) | . as $f`;
    const trim = 'sub("^\\\\s+"; "") | sub("\\\\s+$"; "")';
    cells = starts.map((p, i) => `($f[${p}:${starts[i + 1] ?? ''}] | ${trim} | ${num})`);
  } else {
    const last = names.length - 1;
    cut = `[splits("\\\\s+")] | map(select(. != "")) | select(length >= ${names.length}) | . as $f`;
    cells = names.map((_, i) => (i === last ? `($f[${i}:] | join(" ") | ${num})` : `($f[${i}] | ${num})`));
  }
  const fields = names.map((n, i) => `${JSON.stringify(n)}: ${cells[i]}`);
  const def = NUM_DEF;
  const notHeader = headerRow === undefined ? '' : ` | select(. != ${toJson(headerRow)})`;
  return `${def} select(test("\\\\S")) | ${cut} | {${fields.join(', ')}}${notHeader}`;
}

/** The --records of an --explain command on a table: the rows only (the lines after the header). */
export function tableRowRange(t: TableRecords, range: Range): string {
  return formatRange(Math.max(range.from, t.headerLine + 1), range.to);
}
