// Printer for `lro ls --sessions`: a table with relative ages on a terminal, tab-separated rows with absolute
// times in a pipe, or a JSON array. Sessions with no results (an empty folder) are listed too, so they can be
// found and removed.
import { Chalk } from 'chalk';
import { formatBytes, formatCount, formatDuration } from '../units.js';

/** One session: its name (null: results outside any session), how many results, their bytes, the newest. */
export interface SessionRow {
  session: string | null;
  results: number;
  bytes: number;
  newestId: string | null;
  newestMs: number | null;
}

/** Control characters must not reach a terminal or break a row. */
function clean(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}

/** The rows as the output wants them. */
export function renderSessions(rows: SessionRow[], o: { json: boolean; tty: boolean; now: number; color: boolean }): string {
  if (o.json) {
    const items = rows.map((r) => ({
      session: r.session,
      results: r.results,
      bytes: r.bytes,
      newest_id: r.newestId,
      newest_at: r.newestMs === null ? null : new Date(r.newestMs).toISOString(),
    }));
    return `${JSON.stringify(items)}\n`;
  }
  if (!o.tty) {
    return rows
      .map((r) => `${[r.session === null ? '-' : clean(r.session), r.results, r.bytes, r.newestId ?? '-', r.newestMs === null ? '-' : new Date(r.newestMs).toISOString()].join('\t')}\n`)
      .join('');
  }
  if (rows.length === 0) return '';
  const paint = new Chalk({ level: o.color ? 1 : 0 });
  const cells = rows.map((r) => [
    r.session === null ? '(no session)' : clean(r.session),
    formatCount(r.results),
    formatBytes(r.bytes),
    r.newestMs === null ? '-' : `${formatDuration((o.now - r.newestMs) / 1000)} ago`,
    r.newestId ?? '-',
  ]);
  const titles = ['SESSION', 'RESULTS', 'SIZE', 'NEWEST', 'NEWEST ID'];
  const widths = titles.map((t, i) => Math.max(t.length, ...cells.map((c) => c[i].length)));
  const right = new Set([1, 2, 3]);
  const pad = (s: string, i: number) => (right.has(i) ? s.padStart(widths[i]) : s.padEnd(widths[i]));
  const lines = [paint.bold(titles.map(pad).join('  ').trimEnd()), ...cells.map((c) => c.map(pad).join('  ').trimEnd())];
  const total = rows.reduce((n, r) => n + r.results, 0);
  lines.push(paint.dim(`${formatCount(rows.filter((r) => r.session !== null).length)} sessions, ${formatCount(total)} results`));
  return `${lines.join('\n')}\n`;
}
