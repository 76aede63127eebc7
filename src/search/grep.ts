// The search behind `lro grep`: reads a result's records into the scan kernel's memory (scan.ts) in large
// chunks, jumps from one record holding a needed literal to the next (needles.ts), and decodes and tests only
// those (all records when nothing can be ruled out, or with -v). Printing plain lines without a budget and
// counting go through grep-lines.ts, where the kernel also settles and prints most records by itself. Yields
// the lines to print, with context, in order.
import { unterminatedRecord, moreRecordsThanHeader, fewerRecordsThanHeader } from '../format/format-error.js';
import { FormatError, isNoisy, type Header } from '../format/header.js';
import { checkEnd, type ResultFile } from '../format/reader.js';
import { readSpan } from '../file-span.js';
import { invalidSet, searchBytes } from '../format/record-text.js';
import { chunkRegex, type LineFinder, RegexFinder } from './chunk-regex.js';
import { DfaFinder, dfaFor } from './dfa-finder.js';
import type { LazyDfa } from './dfa.js';
import { decideStored, grepByDfa } from './grep-dfa.js';
import { endOfRecords, grepLines } from './grep-lines.js';
import type { GrepEvent, GrepQuery, RecordTest } from './grep-types.js';
import { planNeedles } from './needles.js';
import { ByteScanner, scanChunks } from '../kernel/scan.js';
import { lastTried } from './slow-pattern.js';

export type { GrepEvent, GrepQuery } from './grep-types.js';

/** How the caller takes the results: plain `N:text` lines without a budget may come as bytes. */
export interface GrepOutputForm {
  /** Plain lines, no budget: `printed` events are welcome. */
  plain?: boolean;
  /** Texts longer than this are shown as windows (left to the printer). */
  longText?: number;
  /** The scan kernel to use (a search over many results reuses one), else one is made. */
  scanner?: ByteScanner;
}

/** Read chunks: large enough to amortise each read, small enough to stay in the CPU's caches while scanned. */
const CHUNK = 1 << 20;

/**
 * Searches the records of rf in query.range, read from `fd` (an open descriptor of rf.path, the caller's to
 * close); the search stops when the generator is not resumed.
 */
export function* grepResult(rf: ResultFile, q: GrepQuery, fd: number, form: GrepOutputForm = {}): Generator<GrepEvent> {
  const h = rf.header;
  const invalid = invalidSet(h);
  const textOf = (n: number, line: Buffer): string => {
    try {
      return searchBytes(h, n, line, invalid, q.asStored).toString('utf8');
    } catch {
      throw new FormatError(`record ${n} is not what a ${h.content_type} result holds`);
    }
  };
  const re = q.matcher.regex;
  const matches = (text: string, n: number): boolean => {
    lastTried.n = n; // for the diagnosis of a search stopped by the watchdog (slow-pattern.ts)
    lastTried.text = text;
    re.lastIndex = 0;
    return re.test(text);
  };
  // rendering terminal noise can join a literal that the stored bytes split: no needles then
  const plan = isNoisy(h) && !q.asStored ? null : planNeedles(h, q.matcher, q.word);
  const whole = q.range.from <= 1 && q.range.to >= h.count;
  const noContext = q.before === 0 && q.after === 0;
  const fast = plan && whole && noContext && !q.only && (q.countOnly ? !q.invert || q.maxCount === Infinity : !q.invert && form.plain);
  const scanner = form.scanner ?? new ByteScanner(CHUNK);
  // lro's regex engine on the stored text, made when first asked for (null: it does not take the pattern, or the
  // records are not text searched as stored): it decides a record too long to gather from the file
  let dfa: LazyDfa | null | undefined;
  const dfaOnce = () => {
    if (dfa === undefined) {
      const made = h.content_type === 'text' && (!isNoisy(h) || q.asStored) ? dfaFor(q.matcher) : null;
      dfa = made && 'dfa' in made ? made.dfa : null;
    }
    return dfa;
  };
  if (fast) {
    // candidates of a text result decided on their stored bytes by lro's regex engine, for a pattern it takes
    const engine = plan.quoted && h.content_type === 'text' && plan.definite === 0 ? dfaFor(q.matcher) : null;
    const decide = engine && 'dfa' in engine ? (view: Buffer, ls: number, le: number) => engine.dfa.decide(view, ls, le) : undefined;
    if (engine && 'dfa' in engine) dfa = engine.dfa; // (for a record too long to gather: literals only too)
    const search = { q, plan, word: q.word, print: !q.countOnly, maxText: form.longText ?? Infinity, textOf, matches, decide, dfa: dfaOnce };
    yield* grepLines(rf, search, fd, scanner);
  } else {
    let finder: LineFinder | null = null;
    if (plan && !q.invert) {
      scanner.setNeedles(plan.needles);
      finder = { reset: () => {}, find: (_view, start, end) => scanner.find(start, end) };
    } else if (!plan && !q.invert) finder = regexFinder(h, q);
    if (finder instanceof DfaFinder && whole && noContext && !q.only) {
      const selected = yield* grepByDfa({ rf, q, fd, scanner, dfa: finder.dfa, textOf, matches });
      if (q.countOnly) yield { kind: 'counted', matches: selected };
      return;
    }
    if (finder instanceof RegexFinder && q.countOnly && whole && !q.only && q.maxCount === Infinity) {
      yield { kind: 'counted', matches: yield* countByWindows(rf, fd, scanner, finder, textOf, matches) };
      return;
    }
    const selected = yield* grepRecords(rf, q, fd, scanner, finder, { textOf, matches }, dfaOnce);
    if (q.countOnly) yield { kind: 'counted', matches: selected };
  }
}

/**
 * Without a literal to look for, when the records are text searched as stored: lro's regex engine (dfa.ts) finds
 * the records that match, for a pattern it takes; else a regex over many stored records at once (chunk-regex.ts)
 * finds the candidates; else null (every record is tested).
 */
function regexFinder(h: Header, q: GrepQuery): LineFinder | null {
  if (h.content_type !== 'text' || (isNoisy(h) && !q.asStored)) return null;
  const engine = dfaFor(q.matcher);
  if ('dfa' in engine) return new DfaFinder(engine.dfa);
  const cr = chunkRegex(q.matcher, true);
  return cr ? new RegexFinder(cr) : null;
}

/**
 * Counts the matching records of a whole result window by window (-c without a literal): a match inside a plain
 * record's quotes settles it (chunk-regex.ts), other candidates are tested, and nothing else is looked at.
 */
function* countByWindows(
  rf: ResultFile,
  fd: number,
  scanner: ByteScanner,
  finder: RegexFinder,
  textOf: (n: number, line: Buffer) => string,
  matches: (text: string, n: number) => boolean,
): Generator<GrepEvent, number> {
  const h = rf.header;
  let n = 0; // records before the chunk
  let selected = 0;
  for (const chunk of scanChunks(scanner, fd, rf.recordsOffset, unterminatedRecord)) {
    const data = scanner.view;
    const end = endOfRecords(scanner, chunk.start, chunk.end, h.count - n);
    // the number of a record of this chunk, from a position that only goes forward (only tested ones need it)
    let counted = chunk.start;
    let before = n;
    const numberAt = (ls: number) => {
      before += scanner.count(counted, ls);
      counted = ls;
      return before + 1;
    };
    finder.reset();
    finder.onWindow = (at) => tried(numberAt(at), data.subarray(at, data.indexOf(0x0a, at)), textOf);
    const test = (ls: number, le: number) => {
      const text = finder.plainText(data, ls, le) ?? textOf(numberAt(ls), data.subarray(ls, le));
      return matches(text, numberAt(ls));
    };
    for (let at = chunk.start; at < end; at = finder.windowEnd) {
      selected += finder.countWindow(data, at, end, test);
      yield { kind: 'progress' };
    }
    n += scanner.count(chunk.start, end);
    if (end < chunk.end) throw moreRecordsThanHeader(h.count);
  }
  if (n < h.count) throw fewerRecordsThanHeader(h.count, n);
  return selected;
}

/**
 * Which engine runs a search and why (`lro grep --explain`): the same choices grepResult makes, in words, one
 * line each.
 */
export function explainSearch(h: Header, q: GrepQuery): string[] {
  const m = q.matcher;
  const out: string[] = [];
  const plan = isNoisy(h) && !q.asStored ? null : planNeedles(h, m, q.word);
  const regexRuns = m.linearTime
    ? 'the JavaScript regex (linear for this pattern: no watchdog)'
    : 'the JavaScript regex (backtracking: watched, stopped after the timeout)';
  if (plan) {
    const needles = plan.needles.map((n) => JSON.stringify(Buffer.from(n.bytes).toString('utf8'))).join(', ');
    out.push(`engine: literal scan (the SIMD kernel) for ${needles}${m.ignoreCase ? ', either case' : ''}`);
    if (plan.definite > 0 && !q.invert) out.push('a hit in a record without escapes is a match: the pattern is nothing but these literals');
    const engine = plan.quoted && h.content_type === 'text' && plan.definite === 0 ? dfaFor(m) : null;
    if (q.invert) out.push(`then: the records holding none are selected; ${regexRuns} decides the others`);
    else if (engine && 'dfa' in engine && engine.dfa.exact) {
      out.push(`then: lro's DFA (linear time by construction) decides the records holding one on their stored bytes; those with escapes and the positions of matches to print are left to ${regexRuns}`);
    } else if (engine && 'dfa' in engine) {
      out.push(`then: lro's DFA rules out records holding one that do not match but for word boundaries (\\b, \\B, -w); ${regexRuns} decides the others`);
    } else out.push(`then: ${regexRuns} on the records holding one (and to locate matches when printing)`);
    return out;
  }
  const why = isNoisy(h) && !q.asStored ? 'the text has terminal noise, searched as rendered' : m.literals.length === 0 ? 'no literal is required by every match' : `its literals cannot be looked for in ${h.content_type} records as stored`;
  if (q.invert) return [`engine: ${regexRuns}, record by record (-v; ${why})`];
  if (h.content_type === 'text' && !(isNoisy(h) && !q.asStored)) {
    const engine = dfaFor(m);
    if ('dfa' in engine && engine.dfa.exact) {
      return [
        `engine: lro's DFA (linear time by construction: a lazy DFA over ${engine.dfa.classes} byte classes, in WebAssembly), as ${why}`,
        `a record it matches is proved; records with escapes and the positions of matches to print are left to ${regexRuns}`,
      ];
    }
    if ('dfa' in engine) {
      return [
        `engine: lro's DFA as a prefilter (linear time: a lazy DFA over ${engine.dfa.classes} byte classes, in WebAssembly), as ${why}`,
        `word boundaries (\\b, \\B, -w) are not in it: it rules out the records it does not match, and ${regexRuns} decides the others`,
      ];
    }
    out.push(`not lro's DFA: ${engine.why}`);
    if (chunkRegex(m, true)) return [...out, `engine: ${regexRuns} over 64 KB windows of stored records, as ${why}`];
  }
  return [...out, `engine: ${regexRuns}, record by record (${why})`];
}

/** A record passed without printing, kept for the context before a match (a copy: the chunk is reused). */
type Passed = { n: number; line: Buffer };

/**
 * The general way: record by record, jumping to the candidates a finder finds (needles, a regex over many records)
 * when there is one. Returns the number of records selected.
 */
function* grepRecords(
  rf: ResultFile,
  q: GrepQuery,
  fd: number,
  scanner: ByteScanner,
  finder: LineFinder | null,
  { textOf, matches }: RecordTest,
  dfa: () => LazyDfa | null,
): Generator<GrepEvent, number> {
  const h: Header = rf.header;
  const last = Math.min(q.range.to, h.count);
  // searching up to the last record: the file must end right after it
  const toEnd = q.range.to >= h.count;
  if (q.range.from > last) {
    if (h.count === 0 && toEnd) checkEnd(rf, rf.recordsOffset);
    return 0;
  }
  const withContext = q.before > 0 || q.after > 0;
  let selected = 0;
  let lastPrinted = 0; // last record number printed (match or context)
  let afterLeft = 0; // context lines still owed after the last match
  const recent: Passed[] = []; // the last `before` records passed without printing

  let n = 0; // number of the last record fully passed
  let windows = 0; // the finder's windows when progress was last reported
  // a regex over many records that the watchdog stops is diagnosed on the first of them (slow-pattern.ts)
  if (finder) finder.onWindow = (at) => tried(n + 1, scanner.view.subarray(at, scanner.view.indexOf(0x0a, at)), textOf);
  /**
   * Record n printed: a match (after the context kept before it, and a gap since the last printed) or context
   * after one. True when -m is reached.
   */
  function* show(hit: boolean, text: string): Generator<GrepEvent, boolean> {
    if (hit) {
      selected++;
      const firstShown = recent.length > 0 ? recent[0].n : n;
      if (withContext && lastPrinted > 0 && firstShown > lastPrinted + 1) yield { kind: 'gap' };
      for (const r of recent) yield { kind: 'context', n: r.n, text: textOf(r.n, r.line) };
      recent.length = 0;
      yield { kind: 'match', n, text };
      afterLeft = q.after;
    } else {
      yield { kind: 'context', n, text };
      afterLeft--;
    }
    lastPrinted = n;
    return selected >= q.maxCount && afterLeft === 0;
  }

  /** Whether the long record at the file's [at, at + size) is selected, told by lro's DFA (undefined: it cannot tell). */
  const decideLong = (at: number, size: number): boolean | undefined => {
    const d = dfa();
    const m = d ? decideStored(d, fd, at, size) : undefined;
    return m === undefined ? undefined : m !== q.invert;
  };

  // a record longer than the kernel's memory is not gathered into it: read from the file when it is searched
  // (a `long` chunk), and not at all when it is before the range or the DFA tells all that is needed of it
  for (const chunk of scanChunks(scanner, fd, rf.recordsOffset, unterminatedRecord, false)) {
    if (chunk.long !== undefined) {
      n++;
      // whether it is selected, told by lro's DFA from the file when that is all that is needed of it
      const told = q.countOnly || (afterLeft === 0 && q.before === 0);
      const decided = !told || n < q.range.from ? undefined : q.only && !q.only(n) ? false : decideLong(chunk.at, chunk.long);
      if (decided !== undefined && (q.countOnly || !decided)) {
        if (decided && ++selected >= q.maxCount) return selected;
      } else if (n >= q.range.from) {
        const line = readSpan(fd, chunk.at, chunk.at + chunk.long, unterminatedRecord);
        const text = textOf(n, line);
        const hit = decided ?? ((!q.only || q.only(n)) && matches(text, n) !== q.invert);
        if (q.countOnly) {
          if (hit && ++selected >= q.maxCount) return selected;
        } else if (hit || afterLeft > 0) {
          if (yield* show(hit, text)) return selected;
        } else remember(recent, q.before, n, line);
      }
      if (n >= last) {
        if (toEnd) checkEnd(rf, chunk.at + chunk.long + 1);
        return selected;
      }
      yield { kind: 'progress' };
      continue;
    }
    const data = scanner.view;
    const end = chunk.end;
    finder?.reset();
    const fileOffset = (p: number) => chunk.at + (p - chunk.start);
    let lineStart = chunk.start;
    while (lineStart < end) {
      // Jump to the next candidate line when nothing needs the lines in between.
      if (finder && afterLeft === 0 && n + 1 >= q.range.from) {
        const hit = finder.find(data, lineStart, end);
        if (finder.windows !== undefined && finder.windows !== windows) {
          windows = finder.windows;
          yield { kind: 'progress' };
        }
        const target = hit < 0 ? end : data.lastIndexOf(0x0a, hit - 1) + 1;
        if (target > lineStart) {
          n += passLines(scanner, data, lineStart, target, n, q, recent);
          lineStart = target;
          if (n >= last) {
            if (n > h.count) throw moreRecordsThanHeader(h.count);
            if (toEnd) checkEnd(rf, fileOffset(lineStart));
            return selected;
          }
          if (lineStart >= end) break;
        }
      }
      const ls = lineStart;
      const nl = data.indexOf(0x0a, lineStart);
      lineStart = nl + 1;
      n++;
      if (n < q.range.from) continue;
      if ((n & 1023) === 0) yield { kind: 'progress' };
      // a finder may prove the record matches (a count then needs no text), or have the text already, as the
      // stored bytes it searched (then nothing is decoded); a match proved is no answer to -v, which selects the
      // records that do not match (no finder is made for it today: this says so where it is relied on)
      const settled = !q.invert && finder?.settles?.(data, ls, nl) === true;
      const text =
        settled && q.countOnly ? '' : (finder?.plainText?.(data, ls, nl) ?? textOf(n, data.subarray(ls, nl)));
      const hit = (!q.only || q.only(n)) && (settled || matches(text, n) !== q.invert);
      if (q.countOnly) {
        if (hit && ++selected >= q.maxCount) return selected;
      } else if (hit || afterLeft > 0) {
        if (yield* show(hit, text)) return selected;
      } else remember(recent, q.before, n, data.subarray(ls, nl));
      if (n >= last) {
        if (toEnd) checkEnd(rf, fileOffset(lineStart));
        return selected;
      }
    }
    yield { kind: 'progress' };
  }
  if (n < h.count && last === h.count) throw fewerRecordsThanHeader(h.count, n);
  return selected;
}

/** Notes record n (stored as `line`) as the one the pattern runs on, for a diagnosis (none if it is damaged). */
function tried(n: number, line: Buffer, textOf: (n: number, line: Buffer) => string): void {
  try {
    lastTried.text = textOf(n, line);
    lastTried.n = n;
  } catch {
    lastTried.n = 0;
  }
}

/**
 * Passes the lines from `start` to `target` (the records after record `n`), keeping the last `q.before` of them
 * in `recent` for context; returns how many lines were passed.
 */
function passLines(scanner: ByteScanner, data: Buffer, start: number, target: number, n: number, q: GrepQuery, recent: Passed[]): number {
  const keepFrom = q.before > 0 ? lineStartBefore(data, target, q.before, start) : target;
  if (keepFrom === target) return scanner.count(start, target);
  let skipped = 0;
  let s = start;
  for (let i = data.indexOf(0x0a, s); i >= 0 && i < target; i = data.indexOf(0x0a, s)) {
    if (s >= keepFrom && !q.countOnly) remember(recent, q.before, n + skipped + 1, data.subarray(s, i));
    skipped++;
    s = i + 1;
  }
  return skipped;
}

/** Keeps the last `max` records seen (copies: the chunk is reused). */
function remember(recent: Passed[], max: number, n: number, line: Buffer): void {
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
