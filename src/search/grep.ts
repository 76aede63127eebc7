// The search behind `lro grep`: reads a result's records in large chunks, finds candidate records with a
// substring search for the pattern's required literals over the stored bytes, and decodes and tests only those
// (all records when nothing can be ruled out, or with -v). Yields the lines to print, with context, in order.
import { FormatError, isNoisy, type Header } from '../format/header.js';
import { checkEnd, recordChunks, type ResultFile } from '../format/reader.js';
import { invalidSet, searchBytes } from '../format/record-text.js';
import type { Range } from '../ranges.js';
import { countNewlines } from './newlines.js';
import type { Matcher } from './pattern.js';

export interface GrepQuery {
  matcher: Matcher;
  invert: boolean;
  range: Range;
  before: number;
  after: number;
  /** Stop after this many selected records (-m). */
  maxCount: number;
  /** Only count: no text, no context. */
  countOnly: boolean;
  /** Search text records as stored (grep --raw), not rendered as a terminal shows them. */
  asStored?: boolean;
}

/** A line to print: a selected record (`match`), a context record, or a gap between groups (`--`). */
export type GrepEvent =
  | { kind: 'match'; n: number; text: string; matches: [number, number][] }
  | { kind: 'context'; n: number; text: string }
  | { kind: 'gap' };

/** Whether the stored bytes of a record can be searched for the literals directly (see searchBytes). */
function storedBytesSearchable(h: Header, m: Matcher): boolean {
  if (m.literals.length === 0) return false;
  if (m.ignoreCase && m.literals.some((l) => /[^\x20-\x7e]/.test(l))) return false; // case folding beyond ASCII
  switch (h.content_type) {
    case 'text':
      // text records escape only ", \ and control characters; other bytes are stored as they are
      return m.literals.every((l) => !/["\\\x00-\x1f]/.test(l));
    case 'json':
      return true; // stored compact, exactly the text searched
    case 'jsonl':
      return false; // stored verbatim; searched compact (use literal fragments instead; see candidateLiterals)
    default:
      return false;
  }
}

/** Literals to look for in the stored bytes: the required literals, or fragments of them for verbatim jsonl. */
function candidateLiterals(h: Header, m: Matcher): Buffer[] | null {
  if (storedBytesSearchable(h, m)) return m.literals.map((l) => Buffer.from(m.ignoreCase ? l.toLowerCase() : l, 'utf8'));
  if (h.content_type === 'jsonl' && m.literals.length > 0 && !(m.ignoreCase && m.literals.some((l) => /[^\x20-\x7e]/.test(l)))) {
    // whitespace is only removed next to JSON punctuation, so a fragment without punctuation or whitespace
    // appears in the verbatim line whenever the literal appears in its compact form
    const frags = m.literals.map((l) => l.split(/[\s{}[\]:,]+/).reduce((a, b) => (b.length > a.length ? b : a), ''));
    if (frags.every((f) => f.length >= 2 && !/["\\]/.test(f))) {
      return frags.map((f) => Buffer.from(m.ignoreCase ? f.toLowerCase() : f, 'utf8'));
    }
  }
  return null;
}

/**
 * Searches the records of rf in query.range. `tick` is called as records are passed (for a watchdog), and
 * the search stops when the generator is not resumed.
 */
export function* grepResult(rf: ResultFile, q: GrepQuery, tick?: (record: number) => void): Generator<GrepEvent> {
  const h = rf.header;
  const invalid = invalidSet(h);
  const fold = q.matcher.ignoreCase;
  // rendering terminal noise can join a literal that the stored bytes split: no pre-filter then
  const literals = q.invert || (isNoisy(h) && !q.asStored) ? null : candidateLiterals(h, q.matcher);
  const re = q.matcher.regex;
  const last = Math.min(q.range.to, h.count);
  // searching up to the last record: the file must end right after it
  const toEnd = q.range.to >= h.count;
  if (q.range.from > last) {
    if (h.count === 0 && toEnd) checkEnd(rf, rf.recordsOffset);
    return;
  }

  const textOf = (n: number, line: Buffer): string => {
    try {
      return searchBytes(h, n, line, invalid, q.asStored).toString('utf8');
    } catch {
      throw new FormatError(`record ${n} is not what a ${h.content_type} result holds`);
    }
  };
  const findMatches = (text: string): [number, number][] => {
    const out: [number, number][] = [];
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      out.push([m.index, m.index + m[0].length]);
      if (m[0].length === 0) re.lastIndex++;
    }
    return out;
  };
  const isSelected = (text: string): boolean => {
    re.lastIndex = 0;
    return re.test(text) !== q.invert;
  };

  const withContext = q.before > 0 || q.after > 0;
  let selected = 0;
  let lastPrinted = 0; // last record number printed (match or context)
  let afterLeft = 0; // context lines still owed after the last match
  const recent: { n: number; line: Buffer }[] = []; // the last `before` records passed without printing

  let n = 0; // number of the last record fully passed
  let base = rf.recordsOffset; // file offset of the chunk (chunks are the record bytes, in order)
  let next = rf.recordsOffset;
  for (const data of recordChunks(rf, true)) {
    base = next;
    next += data.length;
    const end = data.length;
    let folded: string | null = null; // lower-cased latin1 view of the chunk for case-insensitive literals
    let lineStart = 0;
    while (lineStart < end) {
      // Jump to the next candidate line when nothing needs the lines in between.
      if (literals && afterLeft === 0 && n + 1 >= q.range.from) {
        let next = Infinity;
        if (fold) folded ??= data.toString('latin1').toLowerCase();
        for (const lit of literals) {
          const at = fold ? folded!.indexOf(lit.toString('latin1'), lineStart) : data.indexOf(lit, lineStart);
          if (at >= 0 && at < next) next = at;
        }
        const target = next === Infinity ? end : data.lastIndexOf(0x0a, next - 1) + 1;
        if (target > lineStart) {
          // pass the lines in between, keeping the last `before` of them for context
          let skipped = 0;
          let s = lineStart;
          const keepFrom = q.before > 0 ? lineStartBefore(data, target, q.before, lineStart) : target;
          if (keepFrom === target) skipped = countNewlines(data, lineStart, target);
          else {
            for (let i = data.indexOf(0x0a, s); i >= 0 && i < target; i = data.indexOf(0x0a, s)) {
              if (s >= keepFrom && !q.countOnly) remember(recent, q.before, n + skipped + 1, data.subarray(s, i));
              skipped++;
              s = i + 1;
            }
          }
          n += skipped;
          lineStart = target;
          tick?.(n);
          if (n >= last) {
            if (n > h.count) throw new FormatError(`has more records than its header says (${h.count})`);
            if (toEnd) checkEnd(rf, base + lineStart);
            return;
          }
          if (lineStart >= end) break;
        }
      }
      const nl = data.indexOf(0x0a, lineStart);
      const line = data.subarray(lineStart, nl);
      lineStart = nl + 1;
      n++;
      if (n < q.range.from) continue;
      if ((n & 1023) === 0) tick?.(n);
      const text = textOf(n, line);
      if (isSelected(text)) {
        selected++;
        if (!q.countOnly) {
          const firstShown = recent.length > 0 ? recent[0].n : n;
          if (withContext && lastPrinted > 0 && firstShown > lastPrinted + 1) yield { kind: 'gap' };
          for (const r of recent) yield { kind: 'context', n: r.n, text: textOf(r.n, r.line) };
          recent.length = 0;
          yield { kind: 'match', n, text, matches: q.invert ? [] : findMatches(text) };
          lastPrinted = n;
          afterLeft = q.after;
        } else yield { kind: 'match', n, text: '', matches: [] };
        if (selected >= q.maxCount && afterLeft === 0) return;
      } else if (afterLeft > 0 && !q.countOnly) {
        yield { kind: 'context', n, text };
        lastPrinted = n;
        afterLeft--;
        if (selected >= q.maxCount && afterLeft === 0) return;
      } else if (q.before > 0 && !q.countOnly) remember(recent, q.before, n, line);
      if (selected >= q.maxCount && afterLeft === 0) return;
      if (n >= last) {
        if (toEnd) checkEnd(rf, base + lineStart);
        return;
      }
    }
  }
  if (n < h.count && last === h.count) throw new FormatError(`is truncated: header says ${h.count} records, file has ${n}`);
}

/** Keeps the last `max` records seen (copies: the chunk is reused). */
function remember(recent: { n: number; line: Buffer }[], max: number, n: number, line: Buffer): void {
  if (max === 0) return;
  recent.push({ n, line: Buffer.from(line) });
  if (recent.length > max) recent.shift();
}

/** The start of the line `count` lines before the line starting at `target` (not before `floor`). */
function lineStartBefore(data: Buffer, target: number, count: number, floor: number): number {
  let s = target;
  for (let k = 0; k < count && s > floor; k++) s = data.lastIndexOf(0x0a, s - 2) + 1;
  return Math.max(s, floor);
}
