// CSV and TSV: the same number of fields on every row; the columns named by the header row when the first row is
// one (its cells are names, not numbers, and differ from the rows' types), else numbered; types, ranges, top values.
import { profileColumns } from './columns.js';
import type { KindFacts, TextSample } from './types.js';
import { numbered } from './util.js';
import { shellQuote } from '../shell.js';

/** The fields of one line (quotes per RFC 4180; a quoted field spanning lines is not handled: such rows misfit). */
export function splitDelimited(line: string, sep: string): string[] {
  if (sep === '\t' || !line.includes('"')) return line.split(sep);
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') (cur += '"'), i++;
      else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"' && cur === '') quoted = true;
    else if (c === sep) out.push(cur), (cur = '');
    else cur += c;
  }
  out.push(cur);
  return out;
}

export function detectDelimited(s: TextSample): KindFacts | null {
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
    return describeDelimited(s, sep, rows, lines.map((l) => l.n));
  }
  return null;
}

function describeDelimited(s: TextSample, sep: string, rows: string[][], ns: number[]): KindFacts {
  const first = rows[0];
  const rest = rows.slice(1);
  const nameLike =
    first.every((c) => /^\s*"?[A-Za-z_%#][^\t]*$/.test(c) && !/^\s*-?\d/.test(c)) && new Set(first).size === first.length;
  const restProfile = profileColumns(first.map((_, i) => String(i + 1)), rest, ns.slice(1));
  const header = nameLike && restProfile.some((c) => c.type !== 'text');
  const names = header ? first.map((c) => c.trim()) : first.map((_, i) => String(i + 1));
  const body = header ? rest : rows;
  const columns = header ? profileColumns(names, rest, ns.slice(1)) : profileColumns(names, rows, ns);
  const kind = sep === '\t' ? 'tsv' : 'csv';
  const counted = columns.find((c) => c.top && Object.keys(c.top).length > 1);
  const big = columns.find((c) => c.max_line !== undefined);
  const next: string[] = [];
  if (counted) next.push(`lro grep ID ${shellQuote(Object.keys(counted.top!).at(-1)!)} -c`);
  if (big) next.push(`lro read ID --records ${big.max_line}`);
  next.push('lro read ID --head 20');
  const sepJson = JSON.stringify(sep);
  return {
    kind,
    facts: {
      rows: s.complete ? body.length : s.total - (header ? 1 : 0),
      header: header ? `line ${ns[0]}` : 'none (columns numbered from 1)',
      ...(s.complete ? {} : { from_first_lines: s.lines.length }),
      columns,
    },
    errors: 'none',
    levels: false,
    next,
    recipes: [
      {
        description:
          `Rows as objects of the ${header ? 'named' : 'numbered'} columns ` +
          `(a quoted field with ${kind === 'csv' ? 'a comma' : 'a tab'} in it needs a CSV parser)`,
        flags: ['-s', '-c'],
        filter:
          (header ? `(.[0] | split(${sepJson})) as $h | .[1:]` : `(.[0] | split(${sepJson}) | keys | map(. + 1 | tostring)) as $h | .`) +
          ` | map(split(${sepJson}) as $r | [$h, $r] | transpose | map({key: .[0], value: .[1]}) | from_entries) | .[:5]`,
      },
    ],
  };
}
