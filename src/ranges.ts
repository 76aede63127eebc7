// Ranges as users type them: `A:B` (inclusive, 1-based), `A:` (to the end), `:B` (from the start), `A` (one).
import { UsageError } from './errors.js';

export interface Range {
  from: number;
  to: number; // inclusive; Infinity for "to the end"
}

/** Parses a 1-based inclusive range; throws a usage error for negative, reversed or malformed ones. */
export function parseRange(text: string, option: string): Range {
  const m = /^\s*(\d*)\s*(?::\s*(\d*))?\s*$/.exec(text);
  if (!m || (m[1] === '' && (m[2] === undefined || m[2] === ''))) {
    throw new UsageError(`invalid ${option} '${text}': use A:B (1-based, inclusive), A:, :B or A`);
  }
  const from = m[1] === '' ? 1 : Number(m[1]);
  if (!Number.isSafeInteger(from)) throw new UsageError(`invalid ${option} '${text}': ${m[1]} is past the end of any result`);
  // an end past any result means "to the end" (and keeps continuation commands parseable: no 1e+23)
  const to = m[2] === undefined ? from : m[2] === '' || !Number.isSafeInteger(Number(m[2])) ? Infinity : Number(m[2]);
  if (from < 1) throw new UsageError(`invalid ${option} '${text}': numbers start at 1`);
  if (to < from) throw new UsageError(`invalid ${option} '${text}': the end comes before the start`);
  return { from, to };
}

/** Parses a 0-based, end-exclusive character range `A:B` (as read_large_output's start/end). */
export function parseCharRange(text: string, option: string): { start: number; end: number } {
  const m = /^\s*(\d*)\s*:\s*(\d*)\s*$/.exec(text);
  if (!m || (m[1] === '' && m[2] === '')) throw new UsageError(`invalid ${option} '${text}': use A:B (0-based offsets, B excluded), A: or :B`);
  const start = m[1] === '' ? 0 : Number(m[1]);
  if (!Number.isSafeInteger(start)) throw new UsageError(`invalid ${option} '${text}': ${m[1]} is past the end of any result`);
  const end = m[2] === '' || !Number.isSafeInteger(Number(m[2])) ? Infinity : Number(m[2]);
  if (end < start) throw new UsageError(`invalid ${option} '${text}': the end comes before the start`);
  return { start, end };
}

/** `A:B` for a continuation command. */
export function formatRange(from: number, to: number): string {
  return to === Infinity ? `${from}:` : `${from}:${to}`;
}

/** `A:B` of a character range for a continuation command. */
export function formatCharRange(start: number, end: number): string {
  return end === Infinity ? `${start}:` : `${start}:${end}`;
}
