// Reading a result back: the header alone (cheap, for `ls`), the records as a stream (bounded memory), and the
// original content rebuilt from them (`lro cat`). All reads are synchronous and never follow symlinks.
import { closeSync, fstatSync, openSync, readSync, constants as fsc } from 'node:fs';
import { decodeRecords, type RecordLine } from './decode.js';
import { FormatError, parseHeader, type Header } from './header.js';

const READ_CHUNK = 1 << 20;
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
  return fd;
}

/** Reads line 1 of a file (without its newline). */
export function readHeaderLine(path: string, maxBytes = MAX_HEADER_BYTES): { line: Buffer; size: number; mtimeMs: number } {
  const fd = openRegular(path);
  try {
    const st = fstatSync(fd);
    const parts: Buffer[] = [];
    let total = 0;
    let chunkSize = 4096;
    for (;;) {
      const buf = Buffer.allocUnsafe(chunkSize);
      const n = readSync(fd, buf, 0, chunkSize, total);
      if (n === 0) {
        if (total === 0) throw new FormatError('is empty, not an lro result');
        throw new FormatError('ends inside its header line (truncated)');
      }
      const nl = buf.subarray(0, n).indexOf(0x0a);
      if (nl >= 0) {
        parts.push(buf.subarray(0, nl));
        return { line: Buffer.concat(parts), size: st.size, mtimeMs: st.mtimeMs };
      }
      parts.push(buf.subarray(0, n));
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
  const fd = openRegular(rf.path);
  try {
    let pos = rf.recordsOffset;
    let n = 1;
    let carry: Buffer | null = null;
    for (;;) {
      const buf = Buffer.allocUnsafe(READ_CHUNK);
      const got = readSync(fd, buf, 0, READ_CHUNK, pos);
      if (got === 0) break;
      pos += got;
      let data = buf.subarray(0, got);
      if (carry) {
        data = Buffer.concat([carry, data]);
        carry = null;
      }
      let start = 0;
      for (;;) {
        const nl = data.indexOf(0x0a, start);
        if (nl < 0) break;
        if (n >= from) {
          if (n > count) throw new FormatError(`has more records than its header says (${count})`);
          yield { n, line: data.subarray(start, nl) };
          if (n >= last) {
            if (toEnd) checkEnd(rf, pos - data.length + nl + 1);
            return;
          }
        }
        n++;
        start = nl + 1;
      }
      if (start < data.length) carry = Buffer.from(data.subarray(start));
    }
    if (carry) throw new FormatError(`is truncated: record ${n} has no end of line`);
    throw new FormatError(`is truncated: header says ${count} records, file has ${n - 1}`);
  } finally {
    closeSync(fd);
  }
}

/** Throws FormatError unless the file ends at `offset`, just after what its header says is the last record. */
export function checkEnd(rf: ResultFile, offset: number): void {
  if (rf.size > offset) throw new FormatError(`has more records than its header says (${rf.header.count})`);
}

/** Rebuilds the original content: exactly the input bytes (text, jsonl, binary) or an equal JSON document (json). */
export function originalContent(rf: ResultFile): Generator<Uint8Array> {
  return decodeRecords(rf.header, readRecords(rf));
}
