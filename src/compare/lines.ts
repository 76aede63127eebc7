// `lro diff --lines`: a unified diff (as diff -u prints it, 3 lines of context) computed on a 53-bit hash of
// each line rather than on the lines, so two results of millions of lines cost 8 bytes a line. The shared start
// and end are set aside; what is between is diffed by Myers' algorithm (An O(ND) Difference Algorithm, 1986)
// up to MAX_EDITS edits. Past that, or past MAX_MIDDLE lines between the first and the last difference, the
// unified diff is left out with a note saying so: the other sections say what changed.
import type { DiffItem, Section } from './model.js';
import type { Difference } from './read.js';
import { commonEnds } from '../common-ends.js';

const CONTEXT = 3;
/** Edits (lines removed plus lines added) the diff finds at most: its memory is about MAX_EDITS² / 2 ints. */
const MAX_EDITS = 2000;
/** Lines between the first and last difference, on either side, diffed at most. */
const MAX_MIDDLE = 500_000;

/** A line of the unified diff: a hunk header, or a line of A (-), of B (+), or of both (context). */
type Op = { op: '@'; a: number; aLen: number; b: number; bLen: number } | { op: ' '; a: number; b: number } | { op: '-'; a: number } | { op: '+'; b: number };

/** The edit script: for each line of A and B, in order, kept (=), removed (-) or added (+), as [op, a, b]. */
type Step = [string, number, number];

/**
 * Myers' greedy forward search over x[lo..], y[lo..]; returns the steps, or null past maxEdits. Lines are
 * numbered from 0 here.
 */
function myers(x: Float64Array, y: Float64Array, maxEdits: number): Step[] | null {
  const n = x.length;
  const m = y.length;
  const max = Math.min(n + m, maxEdits);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let i = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let j = i - k;
      while (i < n && j < m && x[i] === y[j]) {
        i++;
        j++;
      }
      v[offset + k] = i;
      if (i >= n && j >= m) return backtrack(trace, x, y, d);
    }
  }
  return null;
}

/** Walks the saved frontiers back from (n, m) to (0, 0): the steps in order. */
function backtrack(trace: Int32Array[], x: Float64Array, y: Float64Array, dEnd: number): Step[] {
  const steps: Step[] = [];
  let i = x.length;
  let j = y.length;
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d]; // the frontier before step d, for k in -d-1..d+1
    const at = (k: number) => v[k + d + 1];
    const k = i - j;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const pk = down ? k + 1 : k - 1;
    const pi = at(pk);
    const pj = pi - pk;
    while (i > (down ? pi : pi + 1) && j > (down ? pj + 1 : pj)) steps.push(['=', --i, --j]);
    if (down) steps.push(['+', i, --j]);
    else steps.push(['-', --i, j]);
  }
  while (i > 0 && j > 0) steps.push(['=', --i, --j]);
  return steps.reverse();
}

/** The unified diff of two lists of line hashes, as ops with 1-based line numbers; or why it was left out. */
export function unifiedOps(x: Float64Array, y: Float64Array): { ops: Op[] } | { note: string } {
  const { start, endX, endY } = commonEnds(x, y);
  if (endX - start > MAX_MIDDLE || endY - start > MAX_MIDDLE) {
    return { note: `more than ${MAX_MIDDLE} lines lie between the first and the last difference` };
  }
  const steps = myers(x.subarray(start, endX), y.subarray(start, endY), MAX_EDITS);
  if (!steps) return { note: `more than ${MAX_EDITS} lines differ` };
  const all: Step[] = [];
  for (let i = 0; i < start; i++) all.push(['=', i, i]);
  for (const [op, i, j] of steps) all.push([op, i + start, j + start]);
  for (let i = endX, j = endY; i < x.length; i++, j++) all.push(['=', i, j]);
  return { ops: hunks(all) };
}

/** Groups steps into hunks with CONTEXT lines around each change (hunks closer than that are joined). */
function hunks(steps: Step[]): Op[] {
  const out: Op[] = [];
  const changed = steps.map((s, k) => (s[0] !== '=' ? k : -1)).filter((k) => k >= 0);
  let c = 0;
  while (c < changed.length) {
    const from = Math.max(0, changed[c] - CONTEXT);
    let last = changed[c];
    while (c + 1 < changed.length && changed[c + 1] - last <= 2 * CONTEXT) last = changed[++c];
    c++;
    const to = Math.min(steps.length, last + CONTEXT + 1);
    const part = steps.slice(from, to);
    const aLines = part.filter((s) => s[0] !== '+').length;
    const bLines = part.filter((s) => s[0] !== '-').length;
    out.push({ op: '@', a: part[0][1] + 1, aLen: aLines, b: part[0][2] + 1, bLen: bLines });
    for (const [op, i, j] of part) {
      if (op === '=') out.push({ op: ' ', a: i + 1, b: j + 1 });
      else if (op === '-') out.push({ op: '-', a: i + 1 });
      else out.push({ op: '+', b: j + 1 });
    }
  }
  return out;
}

/** A changed line longer than this is shown as a window where it first differs from the line it replaces. */
const LONG_LINE = 1000;
/** The window: this many bytes before the first difference, and LONG_LINE bytes in all. */
const BEFORE_DIFFERENCE = 200;

/**
 * Each removed line paired with the added line at the same place in the run of additions that follows its run
 * of removals (`-a -b +A +B`: a with A, b with B), both ways.
 */
function pairs(ops: Op[]): Map<number, number> {
  const out = new Map<number, number>();
  for (let i = 0; i < ops.length; ) {
    if (ops[i].op !== '-') {
      i++;
      continue;
    }
    const minus = i;
    while (i < ops.length && ops[i].op === '-') i++;
    const plus = i;
    while (i < ops.length && ops[i].op === '+') i++;
    for (let k = 0; k < Math.min(plus - minus, i - plus); k++) {
      out.set(minus + k, plus + k);
      out.set(plus + k, minus + k);
    }
  }
  return out;
}

/** A long changed line as the window where it differs from its pair: `-[bytes START-END/LENGTH] …text…`. */
function window(op: string, w: { text: string; end: number; length: number }, start: number): string {
  return `${op}[bytes ${start}-${w.end}/${w.length}] ${start > 0 ? '…' : ''}${w.text}${w.end < w.length ? '…' : ''}`;
}

/**
 * The unified diff as a section: one item a line. A long line that replaces another is shown where the two
 * differ, not from its start (two results differing inside a 100 MB line showed the same first 1,000 characters).
 */
export function linesSection(ops: Op[], differ?: (na: number, nb: number, before: number, size: number) => Difference | null): Section {
  const paired = pairs(ops);
  /** A long line and its pair shown where they differ; null to show it as it is. */
  const windowed = (i: number, text: string): string | null => {
    const j = paired.get(i);
    if (!differ || j === undefined || text.length <= LONG_LINE) return null;
    const [minus, plus] = ops[i].op === '-' ? [ops[i], ops[j]] : [ops[j], ops[i]];
    const d = differ((minus as { a: number }).a, (plus as { b: number }).b, BEFORE_DIFFERENCE, LONG_LINE);
    return d && window(ops[i].op, ops[i].op === '-' ? d.a : d.b, d.start);
  };
  return {
    heading: 'unified diff (--lines)',
    size: ops.length,
    needs: (i) => {
      const o = ops[i];
      return o.op === '-' || o.op === ' ' ? { a: o.a } : o.op === '+' ? { b: o.b } : {};
    },
    item: (i, t): DiffItem => {
      const o = ops[i];
      if (o.op === '@') return { type: 'line', text: `@@ -${o.a},${o.aLen} +${o.b},${o.bLen} @@` };
      const text = o.op === '+' ? (t.b.get(o.b) ?? '') : (t.a.get(o.a) ?? '');
      return { type: 'line', text: (o.op !== ' ' && windowed(i, text)) || `${o.op}${text}` };
    },
  };
}
