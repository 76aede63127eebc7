// `lro grep` by lro's own regex engine (dfa.ts) over a whole text result, for a pattern with no literal to look
// for, printing the records that match (no context) or counting them: the way grep.ts takes when it can. The
// records are read a window at a time (the chunk size) into the scan kernel's memory, which counts their
// newlines, and copied into the DFA's, which walks them with its state carried from one window to the next. So a
// record of any length is searched in the same two windows of memory: a record of 20 MB is not gathered whole
// (memory never touched before costs more to fill than the walk does to read it). Only a record that is to be
// printed, or that the DFA leaves to JavaScript (an escape, a damaged record, a match of a DFA that is not
// exact: dfa-finder.ts), is read whole, from the file. The file is checked against its header as the other
// ways check it: a missing or extra record, or a last line without a newline, throws FormatError once reached.
import { readSync } from 'node:fs';
import { fewerRecordsThanHeader, unterminatedRecord } from '../format/format-error.js';
import { checkEnd, type ResultFile } from '../format/reader.js';
import { newlineFrom, readSpan } from '../file-span.js';
import { type ByteScanner, DATA } from '../kernel/scan.js';
import type { LazyDfa } from './dfa.js';
import type { GrepEvent, GrepQuery, RecordTest } from './grep-types.js';

/** The search for grep.ts: the records of rf (read from `fd`) that the DFA and then `matches` select. */
export interface DfaSearch extends RecordTest {
  rf: ResultFile;
  q: GrepQuery;
  fd: number;
  scanner: ByteScanner;
  dfa: LazyDfa;
}

/** Yields the records selected (or only counts them, with -c); returns how many were selected. */
export function* grepByDfa(s: DfaSearch): Generator<GrepEvent, number> {
  const { rf, q, fd, scanner, dfa } = s;
  const count = rf.header.count;
  if (count === 0) {
    checkEnd(rf, rf.recordsOffset);
    return 0;
  }
  const size = scanner.capacity;
  dfa.reserve(size);
  let wpos = rf.recordsOffset; // the file offset of the window
  let records = 0; // the newlines before the window
  let open = wpos; // where the record the window starts inside began
  let state = 0; // the DFA's state at the window's start
  let selected = 0;
  for (;;) {
    const got = readSync(fd, scanner.view, DATA, size, wpos);
    if (got === 0) break;
    const v = scanner.view;
    const view = v.subarray(DATA, DATA + got);
    // the window ends after its last newline (the record cut there is read again with the next), or, holding
    // none, is a piece of a long record, which the next goes on walking; and where the records the header counts end
    const last = v.lastIndexOf(0x0a, DATA + got - 1) - DATA;
    const left = count - records;
    let limit = last >= 0 ? last + 1 : got;
    if (last >= 0 && scanner.count(DATA, DATA + limit) >= left) limit = afterNewlines(view, left);
    const at = dfa.dataAt;
    dfa.memory.set(view.subarray(0, limit), at);
    let p = 0; // where the walk goes on
    let counted = 0; // the newlines in view[0, counted) are counted in `records`
    for (;;) {
      const hit = dfa.walk(at + p, at + limit, state);
      if (hit < 0) break;
      const h = hit - at;
      // the record holding the hit: where it starts and its number (searched in the scanner's memory, not in a
      // view of the window: a view made for each hit costs more than the search, when most records match)
      const nl = v.lastIndexOf(0x0a, DATA + h - 1) - DATA;
      const ls = nl < counted ? open : wpos + nl + 1;
      if (nl >= counted) records += scanner.count(DATA + counted, DATA + nl + 1);
      const n = records + 1;
      const after = v.indexOf(0x0a, DATA + h) - DATA;
      const le = after >= h && after < limit ? wpos + after : newlineFrom(fd, wpos + limit, unterminatedRecord);
      // a match the DFA proves, on a record framed as a text record is (its quotes; the opening one the DFA saw)
      const settled = dfa.matched && dfa.exact && le - ls >= 2 && (le - 1 >= wpos && le - 1 < wpos + limit ? v[DATA + le - 1 - wpos] : byteOf(fd, le - 1)) === 0x22;
      const text = settled && q.countOnly ? '' : s.textOf(n, ls >= wpos && le <= wpos + limit ? view.subarray(ls - wpos, le - wpos) : readSpan(fd, ls, le, unterminatedRecord));
      if (settled || s.matches(text, n)) {
        selected++;
        if (!q.countOnly) yield { kind: 'match', n, text };
        if (selected >= q.maxCount) return selected;
      }
      records = n;
      state = 0;
      if (n === count) {
        checkEnd(rf, le + 1);
        return selected;
      }
      if (le + 1 >= wpos + limit) {
        // the record went on past the window: the next starts after it
        wpos = le + 1;
        open = wpos;
        counted = -1;
        break;
      }
      p = counted = le + 1 - wpos;
      open = le + 1;
    }
    yield { kind: 'progress' };
    if (counted < 0) continue;
    state = dfa.state;
    if (last >= counted) {
      records += scanner.count(DATA + counted, DATA + limit);
      open = wpos + limit;
    }
    wpos += limit;
    if (records === count) {
      checkEnd(rf, wpos);
      return selected;
    }
  }
  if (open < wpos) throw unterminatedRecord();
  if (records < count) throw fewerRecordsThanHeader(count, records);
  return selected;
}

/** Where the k-th newline of view is passed (view holds at least k; 0 for none). */
function afterNewlines(view: Buffer, k: number): number {
  let p = 0;
  for (let i = 0; i < k; i++) p = view.indexOf(0x0a, p) + 1;
  return p;
}

/** The byte at a file offset. */
function byteOf(fd: number, offset: number): number {
  const b = Buffer.alloc(1);
  readSync(fd, b, 0, 1, offset);
  return b[0];
}

/**
 * Whether the stored text record at the file's [at, at + size) (its newline next) matches, told by the DFA walking
 * it a window at a time, never held whole: true or false, or undefined when the DFA leaves it to JavaScript (an
 * escape, a damaged record, a match of a DFA that is not exact). For a record longer than the scan kernel's
 * memory (grep-lines.ts).
 */
export function decideStored(dfa: LazyDfa, fd: number, at: number, size: number): boolean | undefined {
  const window = 1 << 20;
  dfa.reserve(window);
  let state = 0;
  for (let pos = at, end = at + size + 1; pos < end; ) {
    const got = readSync(fd, dfa.memory, dfa.dataAt, Math.min(window, end - pos), pos);
    if (got === 0) throw unterminatedRecord();
    const hit = dfa.walk(dfa.dataAt, dfa.dataAt + got, state);
    if (hit >= 0) return dfa.matched && dfa.exact && size >= 2 && byteOf(fd, at + size - 1) === 0x22 ? true : undefined;
    state = dfa.state;
    pos += got;
  }
  return false;
}
