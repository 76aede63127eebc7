// Printers for `lro ls`: an aligned, coloured table with relative times for a terminal; tab-separated rows with
// absolute times for a pipe (stable from one run to the next, `cut -f1` gives ids); one JSON object per result.
// They only format: what to list is decided by the command, and colour comes from the IO through `paint`.
import type { ChalkInstance } from 'chalk';
import { formatBytes, formatCount, formatDuration } from '../units.js';

/** One row: a result, or a file named like one that could not be read. */
export type LsRow =
  | {
      kind: 'result';
      id: string;
      operation: string;
      records: number;
      tokens: number;
      size: number;
      createdMs: number;
      expiresMs: number;
      timestamp: string;
      expiresAt: string;
      session: string | null;
    }
  | { kind: 'damaged'; id: string; operation: string; reason: string };

/** Column titles of the terminal table, in order. */
export const LS_COLUMNS = ['ID', 'OPERATION', 'RECORDS', 'TOKENS', 'SIZE', 'AGE', 'EXPIRES', 'SESSION'] as const;

/** Control characters (a tab, an escape sequence) must not reach a terminal or break a row. */
function clean(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}

function shorten(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** The columns of a row for a pipe, in order, named as the header's fields and the MCP listing name them. */
export const TSV_COLUMNS = ['id', 'operation', 'records', 'tokens', 'bytes', 'timestamp', 'expires_at', 'session'] as const;

/** A row for a pipe as a value: the TSV_COLUMNS by name, numbers as numbers, no session null (the MCP listing's). */
export type TsvFields = Record<(typeof TSV_COLUMNS)[number], string | number | null>;

/** The value of a row for a pipe; null for a damaged file (reported on stderr, so stdout stays parseable). */
export function tsvFields(row: LsRow): TsvFields | null {
  if (row.kind === 'damaged') return null;
  return {
    id: row.id,
    operation: row.operation,
    records: row.records,
    tokens: row.tokens,
    bytes: row.size,
    timestamp: row.timestamp,
    expires_at: row.expiresAt,
    session: row.session === null ? null : clean(row.session),
  };
}

/** A row's value as its line for a pipe: the TSV_COLUMNS, tab-separated, session `-` if none. */
export function tsvLine(fields: TsvFields): string {
  return `${TSV_COLUMNS.map((c) => fields[c] ?? '-').join('\t')}\n`;
}

/** A row for a pipe (nothing for a damaged file). */
export function tsvRow(row: LsRow): string {
  const fields = tsvFields(row);
  return fields ? tsvLine(fields) : '';
}

/** `{...header, file_path, file_size}` from the raw header line, so the envelope keeps its bytes as written. */
export function jsonItem(headerLine: Buffer, path: string, size: number): string {
  // a streamed result pads line 1 with spaces: leave them (and the closing brace) out before making a string
  const text = headerLine.toString('utf8', 0, headerLine.lastIndexOf(0x7d));
  return `${text},"file_path":${JSON.stringify(path)},"file_size":${size}}`;
}

/** The table for a terminal, with a summary line; `paint` is a chalk instance whose level the IO decided. */
export function renderTable(rows: LsRow[], now: number, paint: ChalkInstance): string {
  const cells: string[][] = [];
  const styles: ((s: string) => string)[][] = [];
  const plain = (s: string) => s;
  let total = 0;
  let expired = 0;
  let count = 0;
  for (const r of rows) {
    if (r.kind === 'damaged') {
      cells.push([r.id, shorten(r.operation, 24), `damaged: ${clean(r.reason)}`]);
      styles.push([paint.red, plain, paint.red]);
      continue;
    }
    count++;
    total += r.size;
    const left = r.expiresMs - now;
    if (left <= 0) expired++;
    cells.push([
      r.id,
      shorten(clean(r.operation), 24),
      formatCount(r.records),
      formatCount(r.tokens),
      formatBytes(r.size),
      formatDuration((now - r.createdMs) / 1000),
      left <= 0 ? 'expired' : formatDuration(left / 1000),
      r.session === null ? '-' : shorten(clean(r.session), 32),
    ]);
    styles.push([
      paint.cyan,
      plain,
      plain,
      plain,
      plain,
      paint.dim,
      left <= 0 ? paint.red : left < 3600_000 ? paint.yellow : plain,
      r.session === null ? paint.dim : plain,
    ]);
  }
  const widths = LS_COLUMNS.map((title, i) => Math.max(title.length, ...cells.filter((c) => c.length === LS_COLUMNS.length).map((c) => c[i].length)));
  const rightAligned = new Set([2, 3, 4, 5, 6]);
  const pad = (s: string, i: number) => (rightAligned.has(i) ? s.padStart(widths[i]) : s.padEnd(widths[i]));
  const lines = [paint.bold(LS_COLUMNS.map((t, i) => pad(t, i)).join('  ').trimEnd())];
  cells.forEach((row, r) => {
    if (row.length !== LS_COLUMNS.length) {
      // a damaged file: id and operation in their columns, the reason across the rest
      lines.push([styles[r][0](pad(row[0], 0)), pad(row[1], 1), styles[r][2](row[2])].join('  '));
      return;
    }
    const last = row.length - 1;
    lines.push(row.map((c, i) => styles[r][i](i === last ? c : pad(c, i))).join('  '));
  });
  const summary = `${formatCount(count)} result${count === 1 ? '' : 's'}, ${formatBytes(total)}${expired ? `; ${formatCount(expired)} expired (lro gc removes them)` : ''}`;
  lines.push(paint.dim(summary));
  return `${lines.join('\n')}\n`;
}
