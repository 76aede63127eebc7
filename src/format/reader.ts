// Reading a result back: the header alone (cheap, for `ls`), the records as a stream (bounded memory), and the
// original content rebuilt from them (`lro cat`). All reads are synchronous and never follow symlinks.
import { closeSync, fstatSync, openSync, readSync, constants as fsc, type Stats } from 'node:fs';
import { decodeTextLines } from './content-text.js';
import { decodeRecords, type RecordLine } from './decode.js';
import { FormatError, parseHeader, type Header } from './header.js';
import { countNewlines } from '../search/scan.js';

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
 * store scan (`lro ls` over 100,000 files) does not allocate per file. 32 KB holds line 1 as lro writes it (its
 * slot, with room for the descriptor's statistics, is at most about 29 KB), so one read is enough.
 */
const FIRST_READ = Buffer.allocUnsafe(32 << 10);

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
  return { path, header, size, recordsOffset: line.length + 1, mtimeMs };
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
        if (carry > 0) throw new FormatError('is truncated: its last record has no end of line');
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
 * Streams the records numbered from..to (1-based, inclusive). Checks the file against its header: a missing or
 * extra record, or a last line without newline, throws FormatError once reached.
 */
export function* readRecords(rf: ResultFile, from = 1, to = Infinity): Generator<RecordLine> {
  const { count } = rf.header;
  const last = Math.min(to, count);
  // reading up to the last record: the file must end right after it
  const toEnd = to >= count;
  if (from > last) {
    if (count === 0 && toEnd) checkEnd(rf, rf.recordsOffset);
    return;
  }
  let n = 1;
  let base = rf.recordsOffset; // file offset of the chunk (chunks are the record bytes, in order)
  for (const data of recordChunks(rf)) {
    let start = 0;
    for (let nl = data.indexOf(0x0a); nl >= 0; nl = data.indexOf(0x0a, start)) {
      if (n >= from) {
        if (n > count) throw new FormatError(`has more records than its header says (${count})`);
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
  throw new FormatError(`is truncated: header says ${count} records, file has ${n - 1}`);
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
    if (n > count) throw new FormatError(`has more records than its header says (${count})`);
  }
  if (n < count) throw new FormatError(`is truncated: header says ${count} records, file has ${n}`);
}

/** Throws FormatError unless the file ends at `offset`, just after what its header says is the last record. */
export function checkEnd(rf: ResultFile, offset: number): void {
  if (rf.size > offset) throw new FormatError(`has more records than its header says (${rf.header.count})`);
}

/** Rebuilds the original content: exactly the input bytes (text, jsonl, binary) or an equal JSON document (json). */
export function originalContent(rf: ResultFile): Generator<Uint8Array> {
  return rf.header.content_type === 'text' ? originalText(rf) : decodeRecords(rf.header, readRecords(rf));
}

/** originalContent of a text result, a chunk of records at a time (each piece a buffer of its own). */
function* originalText(rf: ResultFile): Generator<Uint8Array> {
  const h = rf.header;
  const eol = Buffer.from(h.line_ending === 'crlf' ? '\r\n' : '\n');
  let n = 0;
  let pending: Buffer | null = null; // held back: the last piece loses its line ending without a final newline
  for (const chunk of recordChunks(rf)) {
    if (pending) yield pending;
    if (n + chunk.length / 2 > h.count && n + countLines(chunk) > h.count) throw new FormatError(`has more records than its header says (${h.count})`);
    const { bytes, records } = decodeTextLines(chunk, n + 1, eol);
    n += records;
    pending = bytes;
  }
  if (n < h.count) throw new FormatError(`is truncated: header says ${h.count} records, file has ${n}`);
  if (pending) yield h.final_newline || n === 0 ? pending : pending.subarray(0, pending.length - eol.length);
}

function countLines(chunk: Buffer): number {
  let c = 0;
  for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, i + 1)) c++;
  return c;
}
