// A column table with a header row (ps aux, df, kubectl get, docker ps, netstat): its columns by name, with types,
// the range of numeric ones and the line of the largest value, the most frequent values of the others. Rows are
// cut where the header's columns are (left-aligned output), or at runs of spaces with the last column taking the
// rest of the line (ps aux's COMMAND), or so with the last header words joined (df's "Mounted on").
import { profileColumns } from './columns.js';
import type { KindFacts, KindRecipe, TextSample } from './types.js';
import { numbered } from './util.js';
import { shellQuote } from '../shell.js';

const HEADER_WORD = /^[A-Za-z%#][\w%#./()-]*$/;
const MAX_COLUMNS = 16;

export interface Split {
  names: string[];
  cut: (line: string) => string[] | null;
  /** Where each column starts, when rows are cut by position (else at runs of spaces). */
  starts?: number[];
}

export function detectTable(s: TextSample): KindFacts | null {
  const lines = numbered(s.lines);
  if (lines.length < 3) return null;
  const header = lines[0].text;
  const words = header.trim().split(/\s+/);
  if (words.length < 2 || words.length > MAX_COLUMNS || !words.every((w) => HEADER_WORD.test(w))) return null;
  // a header names columns: no word repeats, and some are upper case or the rows hold numbers
  if (new Set(words).size !== words.length) return null;
  const rows = lines.slice(1);
  const split = chooseSplit(header, rows.map((r) => r.text));
  if (!split) return null;
  const cells = rows.map((r) => split.cut(r.text) ?? []);
  const columns = profileColumns(split.names, cells, rows.map((r) => r.n));
  const numeric = columns.filter((c) => c.max !== undefined);
  const upper = words.filter((w) => /^[A-Z%#]/.test(w)).length >= words.length / 2;
  if (!upper && numeric.length === 0) return null;
  const big = numeric.find((c) => c.type !== 'int' || !/^(PID|PPID|UID|GID|ID)$/i.test(c.name)) ?? numeric[0];
  const counted = columns.find((c) => c.top);
  const next: string[] = [];
  if (big?.max_line) next.push(`lro read ID --records ${big.max_line}`);
  // where and count take the rows as records of the named columns (query/table.ts)
  if (counted) next.push(`lro count ID --by ${shellQuote(counted.name)}`);
  next.push('lro read ID --head 20');
  return {
    kind: 'table',
    facts: {
      rows: s.complete ? rows.length : s.total - lines[0].n,
      header_line: lines[0].n,
      ...(s.complete ? {} : { from_first_lines: s.lines.length }),
      columns,
    },
    errors: 'none',
    levels: false,
    next,
    recipes: big ? [sortRecipe(split.names, big.name, lines[0].n)] : [],
  };
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
  const fits = (sp: Split) => rows.filter((r) => sp.cut(r) !== null).length >= rows.length * 0.95;
  for (const sp of [byPosition(header), byWords(header, 0), byWords(header, 1)]) if (sp && fits(sp)) return sp;
  return null;
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
  return {
    names,
    starts,
    cut: (line) => {
      for (let i = 1; i < starts.length; i++) {
        const p = starts[i];
        if (line.length > p && line[p - 1] !== ' ') return null;
      }
      return starts.map((p, i) => line.slice(p, starts[i + 1] ?? line.length).trim());
    },
  };
}

/** Columns at runs of spaces, the last taking the rest; `join` more header words make the last column's name. */
function byWords(header: string, join: number): Split | null {
  const words = header.trim().split(/\s+/);
  if (words.length - join < 2) return null;
  const names = [...words.slice(0, words.length - join - 1), words.slice(words.length - join - 1).join(' ')];
  return {
    names,
    cut: (line) => {
      const f = line.trim().split(/\s+/);
      if (f.length < names.length) return null;
      return [...f.slice(0, names.length - 1), f.slice(names.length - 1).join(' ')];
    },
  };
}
