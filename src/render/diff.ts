// A unified diff of two texts, as `diff -u` prints it, for `lro init --dry-run`: the lines both share at the
// start and at the end are left out but for three lines of context, and what is between is one hunk (lro's
// edits to a settings file are few and close together).
import { commonEnds } from '../common-ends.js';

/** The unified diff from `before` to `after` (labels `a` and `b`), or '' when they are the same. */
export function unifiedDiff(before: string, after: string, a: string, b: string): string {
  if (before === after) return '';
  const x = splitLines(before);
  const y = splitLines(after);
  const { start, endX, endY } = commonEnds(x, y);
  const from = Math.max(0, start - 3);
  const toX = Math.min(x.length, endX + 3);
  const toY = Math.min(y.length, endY + 3);
  const out = [`--- ${a}`, `+++ ${b}`, `@@ -${range(from, toX - from)} +${range(from, toY - from)} @@`];
  for (let i = from; i < start; i++) out.push(` ${x[i]}`);
  for (let i = start; i < endX; i++) out.push(`-${x[i]}`);
  for (let i = start; i < endY; i++) out.push(`+${y[i]}`);
  for (let i = endX; i < toX; i++) out.push(` ${x[i]}`);
  return `${out.join('\n')}\n`;
}

/** Lines without their terminators; a last line without one is marked as diff marks it. */
function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  else lines[lines.length - 1] += '\n\\ No newline at end of file';
  return lines;
}

const range = (start: number, count: number): string => (count === 0 ? `${start},0` : count === 1 ? `${start + 1}` : `${start + 1},${count}`);
