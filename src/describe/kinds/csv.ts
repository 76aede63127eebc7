// CSV and TSV: the same number of fields on every row; the columns named by the header row when the first row is
// one (its cells are names, not numbers, and differ from the rows' types), else numbered; types, ranges, top values,
// decided from the first lines and counted over every row (a line of another number of fields is no row).
import { ColumnProfiler, columnTypes, profileColumns, type ColumnFacts } from './columns.js';
import { fed, KIND_LINE_CHARS, type KindCounter, type KindFacts, type TextSample } from './types.js';
import { numbered } from './util.js';
import type { Words } from '../commands.js';
import { isNumberLiteral } from '../../values/decimal.js';
import { valueText } from '../../values/literal.js';
import { toJson, type JsonValue } from '../../values/json-value.js';

/** A cell as a condition's value that equals it as lro where reads the row (a number, an empty cell null). */
export function cellText(cell: string): string {
  if (cell === '') return 'null';
  return isNumberLiteral(cell) ? cell : valueText(cell);
}

/**
 * A field of a CSV line after a comma: quoted per RFC 4180 up to a comma or the end (`"a,b"`, `"say ""hi"""`), else
 * anything up to the next comma. The same expression cuts a row in jq (query/table.ts), so both cut alike.
 */
export const CSV_FIELD = ',("(?:[^"]|"")*"(?=,|$)|[^,]*)';
const CSV_FIELD_RE = new RegExp(CSV_FIELD, 'g');
const QUOTED = /^"(?:[^"]|"")*"$/;

const NUMBER_RE = '^-?(0|[1-9][0-9]*)([.][0-9]+)?([eE][+-]?[0-9]+)?$';
/** A cell as lro where reads it, in jq: a JSON number literal the number, an empty cell null, else the text. */
export const NUM_DEF = `def num: if . == "" then null elif test(${JSON.stringify(NUMBER_RE)}) then tonumber else . end;`;

/** The jq that cuts a line as splitDelimited does (CSV_FIELD for commas), the header row giving nothing. */
export function delimitedJq(sep: string, names: string[], headerRow: JsonValue | undefined): string {
  const quoted = JSON.stringify('^"(?:[^"]|"")*"$');
  const cut =
    sep === ','
      ? `[("," + .) | scan(${JSON.stringify(CSV_FIELD)}) | .[0] | if test(${quoted}) then .[1:-1] | gsub(${JSON.stringify('""')}; ${JSON.stringify('"')}) else . end]`
      : `split(${JSON.stringify(sep)})`;
  const fields = names.map((n, i) => `${JSON.stringify(n)}: ($f[${i}] | num)`);
  const notHeader = headerRow === undefined ? '' : ` | select(. != ${toJson(headerRow)})`;
  return `${NUM_DEF} sub("\\r$"; "") | ${cut} | select(length == ${names.length}) | . as $f | {${fields.join(', ')}}${notHeader}`;
}

/** The fields of one line (a quoted field spanning lines is not handled: such rows misfit). */
export function splitDelimited(line: string, sep: string): string[] {
  if (sep !== ',') return line.split(sep);
  if (!line.includes('"')) return line.split(',');
  const out: string[] = [];
  for (const m of `,${line}`.matchAll(CSV_FIELD_RE)) out.push(QUOTED.test(m[1]) ? m[1].slice(1, -1).replace(/""/g, '"') : m[1]);
  return out;
}

export function countDelimited(s: TextSample): KindCounter | null {
  const lines = numbered(s.lines);
  if (lines.length < 3) return null;
  for (const sep of ['\t', ',']) {
    const rows = lines.map((l) => splitDelimited(l.text.replace(/\r$/, ''), sep));
    const width = rows[0].length;
    if (width < 2 || width > 200) continue;
    const same = rows.filter((r) => r.length === width).length;
    if (same < rows.length * 0.98) continue;
    // commas in prose give a varying count; a steady one over many lines is a table
    if (sep === ',' && lines.length < 5) continue;
    return fed(delimitedCounter(sep, rows, lines.map((l) => l.n)), s);
  }
  return null;
}

/** The counter of a CSV or TSV whose first lines are `rows` (cut), numbered `ns`: its header and types from them. */
function delimitedCounter(sep: string, rows: string[][], ns: number[]): DelimitedCounter {
  const first = rows[0];
  const rest = rows.slice(1);
  const nameLike =
    first.every((c) => /^\s*"?[A-Za-z_%#][^\t]*$/.test(c) && !/^\s*-?\d/.test(c)) && new Set(first).size === first.length;
  const restProfile = profileColumns(first.map((_, i) => String(i + 1)), rest, ns.slice(1));
  const header = nameLike && restProfile.some((c) => c.type !== 'text');
  const names = header ? first.map((c) => c.trim()) : first.map((_, i) => String(i + 1));
  const body = (header ? rest : rows).filter((r) => r.length === names.length);
  return new DelimitedCounter(sep, names, columnTypes(names, body), header ? ns[0] : null);
}

class DelimitedCounter implements KindCounter {
  private readonly profile: ColumnProfiler;

  constructor(
    private readonly sep: string,
    private readonly names: string[],
    types: ColumnFacts['type'][],
    private readonly headerLine: number | null,
  ) {
    this.profile = new ColumnProfiler(names, types);
  }

  line(text: string, n: number): void {
    if (n === this.headerLine) return;
    const cells = splitDelimited(text, this.sep);
    // a line cut where the counters stop reading: the fields before the last one seen are whole
    if (text.length >= KIND_LINE_CHARS && cells.length <= this.names.length) this.profile.add(cells, n, true);
    else if (cells.length !== this.names.length) this.profile.notRow();
    else this.profile.add(cells, n);
  }

  end(): KindFacts {
    const { sep, names } = this;
    const header = this.headerLine !== null;
    const columns = this.profile.end();
    const kind = sep === '\t' ? 'tsv' : 'csv';
    const counted = columns.find((c) => c.top && Object.keys(c.top).length > 1);
    const big = columns.find((c) => c.max_line !== undefined);
    // where and count take the rows as records of the named columns (query/table.ts), by the header's names
    const next: Words[] = [];
    if (counted) next.push(['count', 'ID', '--by', counted.name]);
    if (big) next.push(['read', 'ID', '--records', `${big.max_line}`]);
    if (counted) next.push(['where', 'ID', `${counted.name}=${cellText(Object.keys(counted.top!).at(-1)!)}`, '-c']);
    next.push(['read', 'ID', '--head', '20']);
    return {
      kind,
      facts: {
        ...this.profile.rowFacts(),
        ...(header ? { header_line: this.headerLine } : { header: 'none (columns numbered from 1)' }),
        columns,
      },
      errors: 'none',
      levels: false,
      nextCommands: next,
      recipes: [
        {
          description: `Rows as objects of the ${header ? 'named' : 'numbered'} columns, numbers as numbers (lro jq's row does the same)`,
          flags: ['-s', '-c'],
          filter: `def row: ${delimitedJq(sep, names, undefined)}; .[${header ? 1 : 0}:] | map(row) | .[:5]`,
        },
      ],
    };
  }
}
