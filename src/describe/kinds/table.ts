// A column table with a header row (ps aux, df, kubectl get, docker ps, netstat, lsof, dpkg -l): its columns by
// name, with types, the range of numeric ones and the line of the largest value, the most frequent values of the
// others. Rows are cut where a ruler under the header says (dpkg -l's +++-===), or where the header's columns are
// (left-aligned output), or at runs of spaces with the last column taking the rest of the line (ps aux's COMMAND),
// or so with the last header words joined (df's "Mounted on"), or at the gaps every line leaves blank (lsof: empty
// cells and right-aligned numbers). The header is the first line, or the line above a ruler in the first lines.
import { ColumnProfiler, columnTypes, profileColumns, type ColumnFacts } from './columns.js';
import { fed, KIND_LINE_CHARS, type KindCounter, type KindFacts, type KindRecipe, type TextSample } from './types.js';
import { numbered } from './util.js';
import type { Words } from '../commands.js';
import { cellText } from './csv.js';

const HEADER_WORD = /^[A-Za-z%#0-9][\w%#./()-]*$/;
const MAX_COLUMNS = 16;
/** A ruler under a header: dashes or equals signs in runs (`+++-====-===`, `----- ----`), nothing else. */
const RULER = /^[-=+| ]*[-=]{3}[-=+| ]*$/;
/** Lines looked at for a ruler (dpkg -l's header is its 4th line, under three lines of legend). */
const RULER_WITHIN = 10;

export interface Split {
  names: string[];
  cut: (line: string) => string[] | null;
  /** Where each column starts, when rows are cut by position (else at runs of spaces). */
  starts?: number[];
  /** The first row is a ruler under the header (not a row). */
  ruler?: boolean;
}

/**
 * A table when the first lines are one: a counter that cuts every later line into the same columns, counting the
 * columns' figures over all the rows (a line that does not cut is no row: a message after the table, a blank line).
 */
export function countTable(s: TextSample): KindCounter | null {
  const all = numbered(s.lines);
  // the line above a ruler is the header, whatever is above it (a legend); else the first line
  const ruled = all.slice(1, RULER_WITHIN).findIndex((l) => RULER.test(l.text) && /[-=]/.test(l.text));
  const lines = ruled >= 0 ? all.slice(ruled) : all;
  if (lines.length < 3) return null;
  const header = lines[0].text;
  const words = header.trim().split(/\s+/);
  if (ruled < 0) {
    if (words.length < 2 || words.length > MAX_COLUMNS || !words.every((w) => HEADER_WORD.test(w) && /[A-Za-z%#]/.test(w))) return null;
    // a header names columns: no word repeats, and some are upper case or the rows hold numbers
    if (new Set(words).size !== words.length) return null;
  }
  const split = chooseSplit(header, lines.slice(1).map((r) => r.text));
  if (!split) return null;
  const rows = lines.slice(split.ruler ? 2 : 1);
  const cells = rows.map((r) => split.cut(r.text)).filter((c) => c !== null);
  const sample = profileColumns(split.names, cells, rows.map((r) => r.n));
  const upper = split.ruler || words.filter((w) => /^[A-Z%#]/.test(w)).length >= words.length / 2;
  if (!upper && !sample.some((c) => c.max !== undefined)) return null;
  return fed(new TableCounter(split, columnTypes(split.names, cells), lines[0].n, rows[0].n), s);
}

class TableCounter implements KindCounter {
  private readonly profile: ColumnProfiler;

  constructor(
    private readonly split: Split,
    types: ColumnFacts['type'][],
    private readonly headerLine: number,
    private readonly firstRow: number,
  ) {
    this.profile = new ColumnProfiler(split.names, types);
  }

  line(text: string, n: number): void {
    if (n < this.firstRow) return;
    const cells = this.split.cut(text);
    // a row cut where the counters stop reading (ps's long command lines): its last column is not whole
    if (cells) this.profile.add(cells, n, text.length >= KIND_LINE_CHARS);
    else this.profile.notRow();
  }

  end(): KindFacts {
    const split = this.split;
    const columns = this.profile.end();
    const numeric = columns.filter((c) => c.max !== undefined);
    const big = numeric.find((c) => c.type !== 'int' || !/^(PID|PPID|TID|LWP|PGID|SID|UID|GID|ID)$/i.test(c.name)) ?? numeric[0];
    const counted = columns.find((c) => c.top);
    const next: Words[] = [];
    if (big?.max_line) next.push(['read', 'ID', '--records', `${big.max_line}`]);
    // where and count take the rows as records of the named columns (query/table.ts)
    if (counted) next.push(['count', 'ID', '--by', counted.name]);
    if (counted) next.push(['where', 'ID', `${counted.name}=${cellText(Object.keys(counted.top!).at(-1)!)}`, '-c']);
    next.push(['read', 'ID', '--head', '20']);
    return {
      kind: 'table',
      facts: {
        ...this.profile.rowFacts(),
        header_line: this.headerLine,
        columns,
      },
      errors: 'none',
      levels: false,
      nextCommands: next,
      recipes: big && !split.starts ? [sortRecipe(split.names, big.name, this.firstRow - 1)] : [],
    };
  }
}

/** The jq recipe: rows as objects of the named columns, sorted by a numeric column, largest first. */
function sortRecipe(names: string[], by: string, headerLine: number): KindRecipe {
  const last = names.length - 1;
  const fields = names.map((n, i) => `${JSON.stringify(n)}: ${i === last ? `($f[${i}:] | join(" "))` : `$f[${i}]`}`);
  const number = `(.${JSON.stringify(by)} | gsub("[^0-9.]"; "") | tonumber? // 0)`;
  return {
    description: `Rows as objects, the 5 largest ${by}`,
    flags: ['-s', '-c'],
    filter: `.[${headerLine}:] | map([splits(" +")] | map(select(. != "")) as $f | {${fields.join(', ')}}) | sort_by(-${number}) | .[:5]`,
  };
}

/** How the rows are cut into the header's columns, or null when no way fits nearly every row. */
export function chooseSplit(header: string, rows: string[]): Split | null {
  const fits = (sp: Split, rs: string[]) => rs.filter((r) => sp.cut(r) !== null).length >= rs.length * 0.95;
  if (rows.length > 0 && RULER.test(rows[0])) {
    const sp = byRuler(header, rows[0]);
    return sp && fits(sp, rows.slice(1)) ? sp : null;
  }
  for (const sp of [byPosition(header), byWords(header, 0), byWords(header, 1), byGaps(header, rows)]) if (sp && fits(sp, rows)) return sp;
  return null;
}

/** How far a cut may move to the nearest space, for a cell wider than the first rows' (lsof's SIZE/OFF later on). */
const SLACK = 8;

/**
 * Cut at the given column starts. A cell wider than those of the rows the starts were found from (a number aligned
 * right that grew to the left) moves the cut to the nearest space within SLACK characters; a row with no space
 * near a start, or whose cuts would cross, is not a row.
 */
function atStarts(names: string[], starts: number[], ruler = false): Split {
  return {
    names,
    starts,
    ruler,
    cut: (line) => {
      let at = starts;
      for (let i = 1; i < starts.length; i++) {
        const p = at[i];
        if (line.length <= p || line[p - 1] === ' ') continue;
        const moved = nearestSpace(line, p - 1);
        if (moved < 0 || moved + 1 <= at[i - 1] || moved + 1 >= (starts[i + 1] ?? Infinity)) return null;
        if (at === starts) at = [...starts];
        at[i] = moved + 1;
      }
      return at.map((p, i) => line.slice(p, at[i + 1] ?? line.length).trim());
    },
  };
}

/** The index of the space nearest to `i` in line, within SLACK characters (left first on a tie), or -1. */
function nearestSpace(line: string, i: number): number {
  for (let d = 1; d <= SLACK; d++) {
    if (i - d >= 0 && line[i - d] === ' ') return i - d;
    if (i + d < line.length && line[i + d] === ' ') return i + d;
  }
  return -1;
}

/**
 * Columns where a ruler's runs are (dpkg -l: `+++-====-===`, one run a column, `-` between them; or `--- ---`).
 * A column whose header has no letter is dpkg's status letters (`||/`): it is called Status.
 */
function byRuler(header: string, ruler: string): Split | null {
  const runs = /=/.test(ruler) ? ruler.matchAll(/[=+]+/g) : ruler.matchAll(/[-=+]+/g);
  const starts = [...runs].map((m) => m.index);
  if (starts.length < 2) return null;
  const names = starts.map((p, i) => header.slice(p, starts[i + 1] ?? header.length).trim());
  names.forEach((n, i) => {
    if (!/[A-Za-z0-9%#]/.test(n)) names[i] = i === 0 && n.startsWith('|') ? 'Status' : `column ${i + 1}`;
  });
  if (new Set(names).size !== names.length) return null;
  const sp = atStarts(names, starts, true);
  // the ruler's own separators are not spaces: it is no row
  return sp;
}

/**
 * Columns at the gaps that the header and every row leave blank (lsof: empty cells, numbers aligned right): each
 * run of columns of characters that is not blank everywhere is a column; its header words name it (words one
 * space apart are one name, df's "Mounted on"); a run without a header word belongs to the one on its left. A row
 * is cut in the middle of each gap.
 */
function byGaps(header: string, rows: string[]): Split | null {
  const width = Math.max(header.length, ...rows.map((r) => r.length));
  const used = new Uint8Array(width);
  for (const l of [header, ...rows]) for (let i = 0; i < l.length; i++) if (l[i] !== ' ') used[i] = 1;
  const segs: { from: number; to: number }[] = [];
  for (let i = 0; i < width; i++) {
    if (!used[i]) continue;
    const from = i;
    while (i < width && used[i]) i++;
    segs.push({ from, to: i });
  }
  const words = [...header.matchAll(/\S+/g)].map((m) => ({ text: m[0], at: m.index }));
  const cols: { from: number; to: number; name: string }[] = [];
  for (const seg of segs) {
    const named = words.filter((w) => w.at >= seg.from && w.at < seg.to);
    const name = header.slice(named[0]?.at ?? 0, (named.at(-1)?.at ?? 0) + (named.at(-1)?.text.length ?? 0));
    // several words over one column are its name only one space apart ("Mounted on"); else the gaps do not say
    // where one column ends
    if (named.length > 1 && name.includes('  ')) return null;
    if (named.length > 0) cols.push({ ...seg, name });
    else if (cols.length > 0) cols[cols.length - 1].to = seg.to;
    else return null;
  }
  if (cols.length < 3 || cols.length > MAX_COLUMNS || new Set(cols.map((c) => c.name)).size !== cols.length) return null;
  const starts = cols.map((c, i) => (i === 0 ? 0 : cols[i - 1].to + Math.floor((c.from - cols[i - 1].to) / 2) + 1));
  return atStarts(cols.map((c) => c.name), starts);
}

/** Left-aligned columns (kubectl get, docker ps): each starts where its header name starts. */
function byPosition(header: string): Split | null {
  const starts: number[] = [];
  const names: string[] = [];
  for (const m of header.matchAll(/\S+(?: \S+)*/g)) {
    starts.push(m.index);
    names.push(m[0]);
  }
  // names of one word each, a few of two (docker's "CONTAINER ID"): more would be right-aligned columns run together
  const words = header.trim().split(/\s+/).length;
  if (names.length < 3 || words - names.length > 2 || !/ {2}/.test(header)) return null;
  return atStarts(names, starts);
}

/** Columns at runs of spaces, the last taking the rest; `join` more header words make the last column's name. */
function byWords(header: string, join: number): Split | null {
  const words = header.trim().split(/\s+/);
  if (words.length - join < 2) return null;
  const names = [...words.slice(0, words.length - join - 1), words.slice(words.length - join - 1).join(' ')];
  return { names, cut: (line) => cutWords(line, names.length) };
}

const isSpace = (c: number) => c === 32 || c === 9 || c === 11 || c === 12 || c === 13;

/**
 * A line cut at runs of spaces into `n` cells, the last taking the rest with its runs of spaces made one (as
 * `line.trim().split(/\s+/)` then joined), or null when it has fewer words: by hand, as every row of a large table
 * is cut so (a regex split was a third of a table's counting time).
 */
function cutWords(line: string, n: number): string[] | null {
  const out: string[] = [];
  const end = line.length;
  let i = 0;
  while (i < end && isSpace(line.charCodeAt(i))) i++;
  while (out.length < n - 1) {
    if (i >= end) return null;
    let j = i + 1;
    while (j < end && !isSpace(line.charCodeAt(j))) j++;
    out.push(line.slice(i, j));
    i = j;
    while (i < end && isSpace(line.charCodeAt(i))) i++;
  }
  if (i >= end) return null;
  let last = end;
  while (isSpace(line.charCodeAt(last - 1))) last--;
  const rest = line.slice(i, last);
  out.push(/\s\s|[\t\v\f\r\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/.test(rest) ? rest.replace(/\s+/g, ' ') : rest);
  return out;
}
