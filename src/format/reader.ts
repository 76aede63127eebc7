// Reading a result back: the header alone (cheap, for `ls`), the records as a stream (bounded memory), and the
// original content rebuilt from them (`lro cat`). All reads are synchronous and never follow symlinks.
import { unterminatedRecord, moreRecordsThanHeader, fewerRecordsThanHeader } from './format-error.js';
import { closeSync, fstatSync, openSync, readSync, constants as fsc, type Stats } from 'node:fs';
import { decodeJsonlRecord } from './content-jsonl.js';
import { decodeTextLines } from './content-text.js';
import { decodeRecords, splitRecords, type RecordLine } from './decode.js';
import { jsonStringPieces } from './record-text.js';
import { FormatError, parseHeader, type Header } from './header.js';
import { blocksOver, blockSpan, checkHeaderSeal, checkLeaves, LEAF, leafDigest } from './blocks.js';
import { countNewlines } from '../kernel/scan.js';
import { newlineFrom } from '../file-span.js';

const READ_CHUNK = 4 << 20;
/** Line 1 may hold a JSON envelope; anything longer than this is not a header lro wrote. */
export const MAX_HEADER_BYTES = 64 << 20;

/** An opened result: its header and where its records start. */
export interface ResultFile {
  path: string;
  header: Header;
  /** Size of the file in bytes. */
  size: number;
  /** Byte offset of record 1 (just after the header line). */
  recordsOffset: number;
  /** Modification time of the file (ms since the epoch). */
  mtimeMs: number;
  /** The file holds only the header and the records a reader asked for (a remote result's start): read no further. */
  partial?: boolean;
  /** A partial file's records held whole (a remote result's start, or its end for read --tail). */
  held?: { from: number; to: number };
  /** A partial file of a result written before block hashes: what it holds was not checked (see blocks.ts). */
  unchecked?: boolean;
  /** Line 1 as read (with its padding), for the check of its seal. */
  line?: Buffer;
}

/** Opens a regular file without following symlinks; throws FormatError for anything else. */
function openRegular(path: string): number {
  return openRegularStat(path).fd;
}

/** openRegular, also returning the fstat it checked (so a caller needs no second fstat). */
function openRegularStat(path: string): { fd: number; st: Stats } {
  let fd: number;
  try {
    fd = openSync(path, fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new FormatError('is a symlink', 'lro never follows symlinks: pass the file itself, or an id from lro ls');
    throw e;
  }
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    throw new FormatError(st.isDirectory() ? 'is a directory, not a result file' : 'is not a regular file', 'pass a result file, or an id from lro ls');
  }
  return { fd, st };
}

/**
 * Scratch space for the first read of a header: reads are synchronous, so one buffer serves every call and a
 * store scan (`lro ls` over 100,000 files) does not allocate per file. 64 KB holds line 1 as lro writes it (its
 * slot, with room for the descriptor's statistics and the block hashes, is at most about 46 KB), so one read is
 * enough.
 */
const FIRST_READ = Buffer.allocUnsafe(64 << 10);

/** What readHeaderLine found: line 1, and the identity of the file it was read from (for a later re-check). */
export interface HeaderLine {
  line: Buffer;
  size: number;
  mtimeMs: number;
  dev: number;
  ino: number;
}

/** Reads line 1 of a file (without its newline). */
export function readHeaderLine(path: string, maxBytes = MAX_HEADER_BYTES): HeaderLine {
  const { fd, st } = openRegularStat(path);
  try {
    const parts: Buffer[] = [];
    let total = 0;
    let chunkSize = FIRST_READ.length;
    for (;;) {
      const buf = total === 0 ? FIRST_READ : Buffer.allocUnsafe(chunkSize);
      const n = readSync(fd, buf, 0, chunkSize, total);
      if (n === 0) {
        if (total === 0) throw new FormatError('is empty, not an lro result');
        throw new FormatError('ends inside its header line (truncated)');
      }
      const nl = buf.subarray(0, n).indexOf(0x0a);
      if (nl >= 0) {
        parts.push(buf.subarray(0, nl));
        // Buffer.concat copies, so the line never aliases the scratch buffer
        return { line: Buffer.concat(parts), size: st.size, mtimeMs: st.mtimeMs, dev: st.dev, ino: st.ino };
      }
      parts.push(buf === FIRST_READ ? Buffer.from(buf.subarray(0, n)) : buf.subarray(0, n));
      total += n;
      if (total > maxBytes) throw new FormatError('has no header line (line 1 is too long)');
      chunkSize = Math.min(chunkSize * 4, READ_CHUNK);
    }
  } finally {
    closeSync(fd);
  }
}

/** Opens a result: reads and checks its header. Throws FormatError when the file is not a usable lro result. */
export function openResultFile(path: string): ResultFile {
  const { line, size, mtimeMs } = readHeaderLine(path);
  const header = parseHeader(line);
  return { path, header, size, recordsOffset: line.length + 1, mtimeMs, line };
}

/** The blocks of a result a reader has checked, by its header (the copies of a ResultFile share it). */
const checkedBlocksOf = new WeakMap<Header, Set<number>>();

/**
 * Checks the file bytes start..end of rf against its block hashes (format/blocks.ts), reading the whole blocks
 * that hold them, and line 1 against its seal and the file's size, once per header: for a reader that shows part
 * of a result (`lro read`), so a changed or cut file is told apart from a valid one before anything of it is shown.
 * A partial file (a remote result's start or end) was checked when it was fetched; a result without block hashes
 * (an older lro's) is not checked here. Throws BlockMismatch (a FormatError).
 */
export function checkSpan(rf: ResultFile, start: number, end: number): void {
  const b = rf.header.blocks;
  if (!b || rf.partial) return;
  let done = checkedBlocksOf.get(rf.header);
  if (!done) {
    checkHeaderSeal(rf.line ?? readHeaderLine(rf.path).line, b, rf.size);
    checkedBlocksOf.set(rf.header, (done = new Set()));
  }
  const { first, last } = blocksOver(b, start - rf.recordsOffset, end - rf.recordsOffset);
  for (let i = first; i <= last; i++) {
    if (done.has(i)) continue;
    const span = blockSpan(b, i);
    if (span.start >= b.bytes) break;
    // a leaf at a time: a block of a large result may be many MB
    const fd = openRegular(rf.path);
    try {
      const leaf = Buffer.allocUnsafe(Math.min(LEAF, span.end - span.start));
      const leaves: Buffer[] = [];
      let length = 0;
      for (let at = span.start; at < span.end; ) {
        const want = Math.min(leaf.length, span.end - at);
        let got = 0;
        for (let n = 1; got < want && n > 0; got += n) n = readSync(fd, leaf, got, want - got, rf.recordsOffset + at + got);
        leaves.push(leafDigest(leaf.subarray(0, got)));
        length += got;
        if (got < want) break; // the file ends inside the block
        at += got;
      }
      checkLeaves(b, i, leaves, length);
    } finally {
      closeSync(fd);
    }
    done.add(i);
  }
}

export type { RecordLine };

/**
 * Streams the record lines of rf in large chunks, each holding whole lines only (every one ends in \n). With
 * `reuse`, one buffer serves every chunk, so a chunk is valid only until the next is asked for (for searches
 * that copy what they keep); without it each chunk is a buffer of its own. A last line without a newline
 * throws FormatError. Memory: about twice the chunk size or the longest line, whichever is larger.
 */
export function* recordChunks(rf: ResultFile, reuse = false): Generator<Buffer> {
  const fd = openRegular(rf.path);
  try {
    let buf = Buffer.allocUnsafe(READ_CHUNK);
    let carry = 0; // bytes of an unfinished line at the start of buf
    let pos = rf.recordsOffset;
    for (;;) {
      if (carry === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, carry);
        buf = bigger;
      }
      const got = readSync(fd, buf, carry, buf.length - carry, pos);
      if (got === 0) {
        if (carry > 0) throw unterminatedRecord();
        return;
      }
      pos += got;
      const filled = carry + got;
      const end = buf.lastIndexOf(0x0a, filled - 1) + 1;
      if (end === 0) {
        carry = filled;
        continue;
      }
      yield buf.subarray(0, end);
      carry = filled - end;
      if (reuse) buf.copyWithin(0, end, filled);
      else {
        const next = Buffer.allocUnsafe(Math.max(READ_CHUNK, carry * 2));
        buf.copy(next, 0, end, filled);
        buf = next;
      }
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The records from..to of rf as the readers walk them: the header's count, the last record to read, and whether
 * that is the file's last (then the file must end right after it); null when the range holds no record (an
 * empty result read to its end is checked to end after its header).
 */
function recordRange(rf: ResultFile, from: number, to: number): { count: number; last: number; toEnd: boolean } | null {
  const { count } = rf.header;
  const last = Math.min(to, count);
  const toEnd = to >= count;
  if (from <= last) return { count, last, toEnd };
  if (count === 0 && toEnd) checkEnd(rf, rf.recordsOffset);
  return null;
}

/**
 * Streams the records numbered from..to (1-based, inclusive). Checks the file against its header: a missing or
 * extra record, or a last line without newline, throws FormatError once reached.
 */
export function* readRecords(rf: ResultFile, from = 1, to = Infinity): Generator<RecordLine> {
  const range = recordRange(rf, from, to);
  if (!range) return;
  const { count, last, toEnd } = range;
  let n = 1;
  let base = rf.recordsOffset; // file offset of the chunk (chunks are the record bytes, in order)
  for (const data of recordChunks(rf)) {
    let start = 0;
    for (let nl = data.indexOf(0x0a); nl >= 0; nl = data.indexOf(0x0a, start)) {
      if (n >= from) {
        if (n > count) throw moreRecordsThanHeader(count);
        yield { n, line: data.subarray(start, nl) };
        if (n >= last) {
          if (toEnd) checkEnd(rf, base + nl + 1);
          return;
        }
      }
      n++;
      start = nl + 1;
    }
    base += data.length;
  }
  throw fewerRecordsThanHeader(count, n - 1);
}

/**
 * Checks the file against its header without reading its records as records: exactly header.count whole lines
 * follow line 1 (counted 16 bytes at a time), else FormatError, as readRecords would say once at the end.
 */
export function checkRecordCount(rf: ResultFile): void {
  const { count } = rf.header;
  let n = 0;
  for (const data of recordChunks(rf, true)) {
    n += countNewlines(data);
    if (n > count) throw moreRecordsThanHeader(count);
  }
  if (n < count) throw fewerRecordsThanHeader(count, n);
}

/** Throws FormatError unless the file ends at `offset`, just after what its header says is the last record. */
export function checkEnd(rf: ResultFile, offset: number): void {
  if (rf.size > offset) throw moreRecordsThanHeader(rf.header.count);
}

/** Records at least this long (stored bytes) are never held whole by the readers that can do without. */
export const LONG_RECORD = 8 << 20;

/**
 * What recordRuns yields: whole record lines (each ending in \n, a view valid until the next run), or one
 * record too long to hold, by where it is (read it with recordBytes) and its first bytes; its size is found
 * (by a scan for its newline) only when asked for, or when the next run is.
 */
export type RecordRun =
  | { kind: 'lines'; data: Buffer; n: number; offset: number; /** how many lines data holds */ lines: number }
  | { kind: 'long'; n: number; offset: number; head: Buffer; size: () => number };

/**
 * Streams the record lines of rf from `at` (record number and file offset), as recordChunks does, except that a
 * line longer than `long` bytes is not gathered: it comes as a 'long' run. Memory: about `long` bytes. Does not
 * check the count against the header (its callers do); a last line without a newline throws FormatError.
 */
export function* recordRuns(rf: ResultFile, long = LONG_RECORD, at = { n: 1, offset: rf.recordsOffset }): Generator<RecordRun> {
  const fd = openRegular(rf.path);
  try {
    const buf = Buffer.allocUnsafe(long + 1); // a line of `long` bytes and its newline
    let n = at.n;
    let pos = at.offset; // file offset of buf[0]
    let filled = 0;
    for (;;) {
      const got = readSync(fd, buf, filled, buf.length - filled, pos + filled);
      if (got === 0) {
        if (filled > 0) throw unterminatedRecord();
        return;
      }
      filled += got;
      const end = buf.lastIndexOf(0x0a, filled - 1) + 1;
      if (end > 0) {
        const data = buf.subarray(0, end);
        const lines = countNewlines(data);
        yield { kind: 'lines', data, n, offset: pos, lines };
        n += lines;
      } else if (filled < buf.length) continue;
      else {
        let size = -1;
        const start = pos;
        const sizeOf = () => (size < 0 ? (size = newlineFrom(fd, start + filled, unterminatedRecord) - start) : size);
        yield { kind: 'long', n: n++, offset: pos, head: buf.subarray(0, Math.min(filled, long)), size: sizeOf };
        pos += sizeOf() + 1;
        filled = 0;
        continue;
      }
      buf.copyWithin(0, end, filled);
      filled -= end;
      pos += end;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The stored bytes of the record at `offset`, up to its newline, a piece at a time (each a buffer of its own;
 * with `reuse`, valid until the next): one pass over a long record, which its size would take another. With
 * `check`, each piece is checked against the block hashes before it is given (checkSpan).
 */
export function* recordBytes(rf: ResultFile, offset: number, reuse = false, check = false): Generator<Buffer> {
  const fd = openRegular(rf.path);
  try {
    let buf = Buffer.allocUnsafe(READ_CHUNK);
    for (let pos = offset; ; ) {
      if (!reuse && pos > offset) buf = Buffer.allocUnsafe(READ_CHUNK);
      const got = readSync(fd, buf, 0, buf.length, pos);
      if (got === 0) throw unterminatedRecord();
      const nl = buf.subarray(0, got).indexOf(0x0a);
      if (check) checkSpan(rf, pos, pos + (nl >= 0 ? nl + 1 : got));
      yield buf.subarray(0, nl >= 0 ? nl : got);
      if (nl >= 0) return;
      pos += got;
    }
  } finally {
    closeSync(fd);
  }
}

/** A record as readRecordSpans gives it: where it is, and its line unless it is longer than asked to hold. */
export interface RecordSpan {
  n: number;
  offset: number;
  /** The stored line (valid until the next record), or null for a long record: read it with recordBytes. */
  line: Buffer | null;
}

/**
 * readRecords for a reader that must not hold a long record (longer than `long` bytes): such a record comes
 * with its line null. Starts at `at` (from lastRecordsStart) when given. Checks the file against its header.
 */
export function* readRecordSpans(rf: ResultFile, from: number, to: number, long = LONG_RECORD, at?: { n: number; offset: number }): Generator<RecordSpan> {
  // every record is checked against the block hashes before it is given (checkSpan): a long one, its first block
  // (recordBytes with `check` checks the rest as it is read)
  const range = recordRange(rf, from, to);
  if (!range) return;
  const { count, last, toEnd } = range;
  let n = at?.n ?? 1;
  for (const run of recordRuns(rf, long, at)) {
    if (run.kind === 'long') {
      if (n >= from) {
        if (n > count) throw moreRecordsThanHeader(count);
        checkSpan(rf, run.offset, run.offset + 1);
        yield { n, offset: run.offset, line: null };
        if (n >= last) {
          if (toEnd) checkEnd(rf, run.offset + run.size() + 1);
          return;
        }
      }
      n++;
      continue;
    }
    const data = run.data;
    let start = 0;
    for (let nl = data.indexOf(0x0a); nl >= 0; nl = data.indexOf(0x0a, start)) {
      if (n >= from) {
        if (n > count) throw moreRecordsThanHeader(count);
        checkSpan(rf, run.offset + start, run.offset + nl + 1);
        yield { n, offset: run.offset + start, line: data.subarray(start, nl) };
        if (n >= last) {
          if (toEnd) checkEnd(rf, run.offset + nl + 1);
          return;
        }
      }
      n++;
      start = nl + 1;
    }
  }
  throw fewerRecordsThanHeader(count, n - 1);
}

/**
 * Where the last `k` records start (record number and file offset), found by reading back from the end of the
 * file, as tail does: without reading what comes before them. The file must end with a newline.
 */
export function lastRecordsStart(rf: ResultFile, k: number): { n: number; offset: number } {
  const { count } = rf.header;
  const fd = openRegular(rf.path);
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    const last = Buffer.alloc(1);
    if (rf.size > rf.recordsOffset && (readSync(fd, last, 0, 1, rf.size - 1) !== 1 || last[0] !== 0x0a)) {
      throw unterminatedRecord();
    }
    let seen = 0; // newlines before the end of the file's last line
    for (let end = rf.size - 1; end > rf.recordsOffset; ) {
      const start = Math.max(rf.recordsOffset, end - buf.length);
      const got = readSync(fd, buf, 0, end - start, start);
      for (let i = buf.lastIndexOf(0x0a, got - 1); i >= 0; i = i > 0 ? buf.lastIndexOf(0x0a, i - 1) : -1) {
        if (++seen === k) return { n: count - k + 1, offset: start + i + 1 };
      }
      end = start;
    }
    return { n: count - seen, offset: rf.recordsOffset };
  } finally {
    closeSync(fd);
  }
}

/**
 * Rebuilds the original content: exactly the input bytes (text, jsonl, binary) or an equal JSON document (json),
 * each piece a buffer of its own. Text and jsonl stream a record too long to hold in pieces, so memory stays
 * bounded whatever the lines.
 */
export function originalContent(rf: ResultFile): Generator<Uint8Array> {
  return originalPieces(rf, false);
}

/**
 * originalContent; with `reuse`, a piece is valid only until the next is asked for (the reader's buffers are
 * reused: no fresh memory to fault in for every piece of a gigabyte), for a consumer that copies what it keeps.
 */
export function originalPieces(rf: ResultFile, reuse: boolean): Generator<Uint8Array> {
  const type = rf.header.content_type;
  if (type === 'text' || type === 'jsonl') return originalLines(rf, reuse);
  return decodeRecords(rf.header, readRecords(rf));
}

/**
 * The original of a text or jsonl result, every record followed by its line ending (but the last, when the
 * input had none), a run of records at a time. Text records are decoded; jsonl records are the lines themselves,
 * except those that were not JSON (decoded as text is); LF-ended runs of JSON lines are passed as they are.
 */
function* originalLines(rf: ResultFile, reuse: boolean): Generator<Uint8Array> {
  const h = rf.header;
  const eol = Buffer.from(h.line_ending === 'crlf' ? '\r\n' : '\n');
  const lastEol = h.final_newline ? eol.length : 0; // the last record's line ending
  const invalid = new Set(h.invalid_records ?? []);
  const out = reuse ? Buffer.allocUnsafe(LONG_RECORD + 1) : null; // decoded text records are never longer
  let n = 0;
  for (const run of recordRuns(rf)) {
    if (run.kind === 'long') {
      if (++n > h.count) throw moreRecordsThanHeader(h.count);
      const stored = recordBytes(rf, run.offset, reuse);
      yield* h.content_type === 'jsonl' && !invalid.has(n) ? stored : checkedString(n, h.content_type, jsonStringPieces(stored));
      yield n === h.count ? eol.subarray(0, lastEol) : eol;
      continue;
    }
    const lines = run.lines;
    if (n + lines > h.count) throw moreRecordsThanHeader(h.count);
    const cut = n + lines === h.count ? eol.length - lastEol : 0; // bytes to drop at the end of this run
    if (h.content_type === 'text') {
      const bytes = decodeTextLines(run.data, n + 1, eol, out ?? undefined).bytes;
      yield bytes.subarray(0, bytes.length - cut);
    } else yield* jsonlLines(reuse ? run.data : Buffer.from(run.data), n + 1, lines, eol, invalid, cut);
    n += lines;
  }
  if (n < h.count) throw fewerRecordsThanHeader(h.count, n);
}

/** The original of whole jsonl record lines numbered from `first`, less `cut` bytes at the end. */
function* jsonlLines(data: Buffer, first: number, lines: number, eol: Buffer, invalid: Set<number>, cut: number): Generator<Uint8Array> {
  if (eol.length === 1 && !hasAny(invalid, first, first + lines - 1)) {
    yield data.subarray(0, data.length - cut); // the stored lines are the original lines
    return;
  }
  for (const r of splitRecords([data], first)) {
    try {
      yield decodeJsonlRecord(r.line, invalid.has(r.n));
    } catch {
      throw new FormatError(`record ${r.n} is not what a jsonl result holds`);
    }
    yield r.n === first + lines - 1 ? eol.subarray(0, eol.length - cut) : eol;
  }
}

function hasAny(set: Set<number>, from: number, to: number): boolean {
  for (const n of set) if (n >= from && n <= to) return true;
  return false;
}

/** A JSON string record's pieces, a FormatError naming the record if it is not one. */
function* checkedString(n: number, type: string, pieces: Generator<Buffer>): Generator<Buffer> {
  try {
    yield* pieces;
  } catch {
    throw new FormatError(`record ${n} is not what a ${type} result holds`);
  }
}
