// What the descriptor says about the kind of an output: its name (always: "text" when no detector is sure), its
// facts cut to the descriptor's level of detail, and which lines it calls errors.
import type { KindFacts } from './kinds/index.js';
import type { PreviewLine, TextStats } from './text-stats.js';

/**
 * A text result's kind: a detector's, else "log" (a log level on a tenth of the lines, or a date or a time at the
 * start of half of them), else "text". Results stored before kinds (no `timestamped`) are logs as they were.
 */
export function textKind(t: TextStats): string {
  if (t.kind) return t.kind.kind;
  if (t.timestamped === undefined) return 'log';
  const levelled = Object.values(t.levels).reduce((a, b) => a + b, 0);
  return (t.lines > 0 && levelled >= Math.min(t.lines, 500_000) * 0.1) || t.timestamped >= 0.5 ? 'log' : 'text';
}

/** Whether the result's lines with an error word are called errors (its kind's own error lines aside). */
export function wordErrors(k: KindFacts | undefined): boolean {
  return !k || k.errors === 'words';
}

/** The error lines the descriptor shows and counts: the kind's own, the error-word lines, or none. */
export function kindErrors(t: TextStats): { count: number; lines: PreviewLine[] } | null {
  const k = t.kind;
  if (!k || k.errors === 'words') return { count: t.errorCount, lines: t.errors };
  // a kind whose lines are data: the lines that are not, a program's messages of failure among them
  if (k.errors === 'none') return t.diagnosticCount ? { count: t.diagnosticCount, lines: t.diagnostics ?? [] } : null;
  const own = k.errorLines ?? [];
  const shown = own.length > 20 ? [...own.slice(0, 10), ...own.slice(-10)] : own;
  const cut = (t: string) => (t.length > 200 ? `${t.slice(0, 200)}…` : t);
  return { count: k.errorCount ?? own.length, lines: shown.map((l) => ({ line: l.line, text: cut(l.text) })) };
}

/**
 * The facts cut to `n` items per list and per table of counts (a column's frequent values too), with what was
 * left out said; `n` Infinity for the whole.
 */
export function trimFacts(facts: Record<string, unknown>, n: number): Record<string, unknown> {
  return Object.fromEntries(Object.entries(facts).map(([k, v]) => [k, UNCUT.has(k) ? v : trim(v, n, 1)]));
}

/** Facts that are the answer itself (the failing tests): kept whole, as the detector bounded them (20). */
const UNCUT = new Set(['failing', 'failure_lines', 'failure_chars']);

const OTHERS = '(others)';

function trim(v: unknown, n: number, depth: number): unknown {
  if (Array.isArray(v)) {
    // a table's columns are its shape: all of them stay (at most 16), each trimmed
    const columns = depth === 1 && v.length <= 16 && v.every((x) => x && typeof x === 'object' && 'name' in x);
    const keep = columns ? v.length : n;
    const out = v.slice(0, keep).map((x) => trim(x, n, depth + 1));
    if (v.length > keep) out.push(`… ${v.length - keep} more`);
    return out;
  }
  if (v === null || typeof v !== 'object') return v;
  const entries = Object.entries(v as Record<string, unknown>);
  const counts = entries.length > 0 && entries.every(([, x]) => typeof x === 'number');
  // (a list that already ends in "(others)" keeps its sum: the keys dropped here join it)
  const listed = entries.filter(([k]) => k !== OTHERS);
  if (counts && depth > 0 && listed.length > n) {
    const rest = [...listed.slice(n), ...entries.filter(([k]) => k === OTHERS)].reduce((a, [, x]) => a + (x as number), 0);
    return { ...Object.fromEntries(listed.slice(0, n)), [OTHERS]: rest };
  }
  return Object.fromEntries(entries.map(([k, x]) => [k, trim(x, n, depth + 1)]));
}
