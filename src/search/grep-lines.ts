// The fast way through a whole result for `lro grep` printing plain `N:text` lines without a budget, or counting
// (-c, also with -v): the scan kernel goes from needle hit to needle hit, keeps the record numbers, and prints the
// records that a hit settles by itself (see needles.ts) straight into its output area as bytes; JavaScript only
// decodes and tests the records it cannot settle (escapes, hits of a part of the pattern, records longer than
// the kernel prints). A record longer than the kernel's memory is not gathered into it: it is searched from the
// file a piece at a time (longRecord).
import { readSync } from 'node:fs';
import { unterminatedRecord, moreRecordsThanHeader, fewerRecordsThanHeader } from '../format/format-error.js';
import type { Header } from '../format/header.js';
import type { ResultFile } from '../format/reader.js';
import type { GrepEvent, GrepQuery, RecordTest } from './grep-types.js';
import type { NeedlePlan } from './needles.js';
import type { LazyDfa } from './dfa.js';
import { decideStored } from './grep-dfa.js';
import { readSpan } from '../file-span.js';
import { AT_LIMIT, ByteScanner, DATA, FOR_JS, MAX_NEEDLE_BYTES, OUT, OUT_FULL, OUT_SIZE, PRINT, QUOTED, S, scanChunks, WORD } from '../kernel/scan.js';

const INT_MAX = 0x7fffffff;

export interface LinesSearch extends RecordTest {
  q: GrepQuery;
  plan: NeedlePlan;
  word: boolean;
  /** Print `N:text` lines (else only count). */
  print: boolean;
  /** Texts longer than this (in bytes) are left to JavaScript when printing (the printer shows them as windows). */
  maxText: number;
  /**
   * Whether the stored text record view[ls, le) matches (ignoring -v), told from its bytes by lro's regex engine
   * (search/dfa.ts); undefined when it cannot tell (then `matches` decides on the text).
   */
  decide?: (view: Buffer, ls: number, le: number) => boolean | undefined;
  /**
   * lro's regex engine for the pattern, made when first asked for (null: it does not take the pattern): a record
   * longer than the scan kernel's memory is decided by it from the file, not gathered (see longRecord).
   */
  dfa?: () => LazyDfa | null;
}

/** Writes the decimal digits of n at `at`; returns the position after them. */
function writeNumber(view: Buffer, at: number, n: number): number {
  const digits = n < 10 ? 1 : Math.floor(Math.log10(n)) + 1;
  for (let i = at + digits - 1; i >= at; i--) {
    view[i] = 0x30 + (n % 10);
    n = Math.floor(n / 10);
  }
  return at + digits;
}

/** The end of the k-th line (just after its \n) from `start`; the data holds at least k lines. */
function afterLines(view: Buffer, start: number, k: number): number {
  let p = start;
  for (let i = 0; i < k; i++) p = view.indexOf(0x0a, p) + 1;
  return p;
}

/** Writes `N:text\n` at `at`, the text copied from ts..te of the same view; returns the position after it. */
function writeLine(view: Buffer, at: number, n: number, ts: number, te: number): number {
  let out = writeNumber(view, at, n);
  view[out++] = 0x3a; // :
  view.copyWithin(out, ts, te);
  out += te - ts;
  view[out++] = 0x0a;
  return out;
}

/**
 * Where the chunk's data from `start` to `end` stops being records the header counts: `end`, or the end of the
 * `have`-th line when the chunk holds more (at least 2 bytes a record before counting exactly).
 */
export function endOfRecords(scanner: ByteScanner, start: number, end: number, have: number): number {
  if (have >= (end - start) / 2 || scanner.count(start, end) <= have) return end;
  return afterLines(scanner.view, start, have);
}

/** Sets the kernel's needles and state for this search, before the first chunk. */
function setUpKernel(scanner: ByteScanner, s: LinesSearch): void {
  const { q, plan, print } = s;
  scanner.setNeedles(plan.needles);
  const st = scanner.state;
  st[S.definite] = plan.definite;
  st[S.flags] = (print ? PRINT : 0) | (plan.quoted ? QUOTED : 0) | (s.word && plan.definite === 1 ? WORD : 0);
  st[S.maxText] = Math.min(s.maxText, OUT_SIZE - 64); // a line that fits always fits an empty output area
  st[S.selected] = 0;
  // with -v, the kernel counts the records that match; the selected ones are the others
  st[S.limit] = q.invert ? INT_MAX : Math.min(q.maxCount, INT_MAX);
  st[S.line] = 0;
}

/**
 * Searches every record of rf (the caller checked that the range is all of them and there is no context).
 * Yields `printed` and `match` events when printing, one `counted` event when counting, `progress` after each
 * chunk.
 */
export function* grepLines(rf: ResultFile, s: LinesSearch, fd: number, scanner: ByteScanner): Generator<GrepEvent> {
  const h: Header = rf.header;
  const { q, plan, print } = s;
  setUpKernel(scanner, s);
  let st = scanner.state;
  let reported = 0; // selections already passed on in events

  for (const chunk of scanChunks(scanner, fd, rf.recordsOffset, unterminatedRecord, false)) {
    st = scanner.state;
    if (chunk.long !== undefined) {
      const n = st[S.line] + 1;
      if (n > h.count) throw moreRecordsThanHeader(h.count);
      st[S.line] = n;
      const text = longRecord(s, fd, scanner, chunk.at, chunk.long, n);
      if (text !== null) {
        st[S.selected]++;
        if (print) {
          reported = st[S.selected];
          yield { kind: 'match', n, text };
        }
        if (st[S.selected] >= st[S.limit]) {
          if (!print) yield { kind: 'counted', matches: st[S.selected] };
          return;
        }
      }
      yield { kind: 'progress' };
      continue;
    }
    const view = scanner.view;
    // never past the last record the header counts
    const end = endOfRecords(scanner, chunk.start, chunk.end, h.count - st[S.line]);
    const extra = end < chunk.end;
    st[S.pos] = chunk.start;
    st[S.end] = end;
    st[S.out] = OUT;
    st[S.outEnd] = OUT + OUT_SIZE;
    /** The output area's lines as an event (they are passed on before the area is reused, or the chunk). */
    const flush = (): GrepEvent => {
      const ev: GrepEvent = { kind: 'printed', bytes: view.subarray(OUT, st[S.out]), matches: st[S.selected] - reported };
      reported = st[S.selected];
      st[S.out] = OUT;
      return ev;
    };
    for (;;) {
      const r = scanner.lines();
      if (r === OUT_FULL) {
        yield flush();
        continue;
      }
      if (r !== FOR_JS) {
        if (print && st[S.out] > OUT) yield flush();
        if (r === AT_LIMIT) {
          if (!print) yield { kind: 'counted', matches: st[S.selected] }; // -c -m: the count stops at the limit
          return;
        }
        break;
      }
      const n = st[S.line];
      const ls = st[S.ls];
      const le = st[S.le];
      // a record whose stored bytes are its text is read as such (decoding checks nothing more for it)
      const ts = plan.quoted ? ls + 1 : ls;
      const te = plan.quoted ? le - 1 : le;
      const asStored = plan.asStored && !(plan.quoted && (st[S.esc] || le - ls < 2 || view[ls] !== 0x22 || view[le - 1] !== 0x22));
      // lro's regex engine decides most records on their stored bytes, without a text (undefined: it leaves it)
      const verdict = s.decide?.(view, ls, le);
      if (verdict === false) continue;
      const needText = verdict === undefined || (print && !(asStored && te - ts <= st[S.maxText]));
      const text = !needText ? '' : asStored ? view.toString('utf8', ts, te) : s.textOf(n, view.subarray(ls, le));
      if (verdict === undefined && !s.matches(text, n)) continue;
      if (!print) st[S.selected]++;
      else if (asStored && te - ts <= st[S.maxText]) {
        // printed as bytes too, as the kernel prints its own lines
        if (st[S.out] + (te - ts) + 16 > OUT + OUT_SIZE) yield flush();
        st[S.out] = writeLine(view, st[S.out], n, ts, te);
        st[S.selected]++;
      } else {
        if (st[S.out] > OUT) yield flush();
        st[S.selected]++;
        reported = st[S.selected]; // the event counts itself
        yield { kind: 'match', n, text };
      }
      if (st[S.selected] >= st[S.limit]) {
        if (print && st[S.out] > OUT) yield flush();
        if (!print) yield { kind: 'counted', matches: st[S.selected] };
        return;
      }
    }
    yield { kind: 'progress' };
    if (extra) throw moreRecordsThanHeader(h.count);
  }
  if (st[S.line] < h.count) throw fewerRecordsThanHeader(h.count, st[S.line]);
  if (!print) yield { kind: 'counted', matches: q.invert ? h.count - st[S.selected] : st[S.selected] };
}

/**
 * A record longer than the scan kernel's memory, at the file's [at, at + size), not gathered into it (memory
 * never touched before costs more to fill than the search): whether it matches (ignoring -v). The kernel looks
 * for the needles in it a memory at a time; then lro's regex engine decides it a window at a time, when it takes
 * the pattern (text records). Returns its text when it matches ('' when only counting and the engine proved it),
 * else null. Only a record to print or to leave to JavaScript is read whole.
 */
function longRecord(s: LinesSearch, fd: number, scanner: ByteScanner, at: number, size: number, n: number): string | null {
  if (!holdsNeedle(scanner, fd, at, size)) return null;
  const dfa = s.plan.quoted ? (s.dfa?.() ?? null) : null;
  const verdict = dfa ? decideStored(dfa, fd, at, size) : undefined;
  if (verdict === false) return null;
  if (verdict === true && !s.print) return '';
  const text = s.textOf(n, readSpan(fd, at, at + size, unterminatedRecord));
  return verdict === true || s.matches(text, n) ? text : null;
}

/**
 * Whether one of the kernel's needles lies in the file's [at, at + size), read into its memory a piece at a
 * time, each piece overlapping the one before by the longest needle's length less one (no needle is cut).
 */
function holdsNeedle(scanner: ByteScanner, fd: number, at: number, size: number): boolean {
  const overlap = MAX_NEEDLE_BYTES - 1;
  for (let pos = at, end = at + size; ; ) {
    const got = readSync(fd, scanner.view, DATA, Math.min(scanner.capacity, end - pos), pos);
    if (got === 0) throw unterminatedRecord();
    if (scanner.find(DATA, DATA + got) >= 0) return true;
    if (pos + got >= end) return false;
    pos += Math.max(1, got - overlap);
  }
}
