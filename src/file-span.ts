// Two reads of a stored file by offset, for the readers that do not hold a long record whole (format/reader.ts,
// the scan kernel's chunks, grep): where the record going on at an offset ends, and the bytes between two offsets.
// Below both the format and the kernel, it imports neither: a file that ends too soon throws what its caller names.
import { readSync } from 'node:fs';

const SCRATCH = 64 << 10;
let scratch: Buffer | null = null;

/**
 * The file offset of the first newline at or after `pos`: the end of the record going on there. Read into
 * `buf[at, at + length)` a piece at a time (its bytes are overwritten), by default one scratch buffer kept for
 * every call: memory never touched before costs more to fill than the read. The file ending first throws
 * `unterminated()`.
 */
export function newlineFrom(fd: number, pos: number, unterminated: () => Error, buf?: Buffer, at = 0, length?: number): number {
  const into = buf ?? (scratch ??= Buffer.allocUnsafe(SCRATCH));
  const size = length ?? into.length - at;
  for (;;) {
    const got = readSync(fd, into, at, size, pos);
    if (got === 0) throw unterminated();
    const nl = into.subarray(at, at + got).indexOf(0x0a);
    if (nl >= 0) return pos + nl;
    pos += got;
  }
}

/** The file's bytes [start, end), read whole into a buffer of their own; the file ending first throws `unterminated()`. */
export function readSpan(fd: number, start: number, end: number, unterminated: () => Error): Buffer {
  const b = Buffer.allocUnsafe(end - start);
  for (let got = 0; got < b.length; ) {
    const n = readSync(fd, b, got, b.length - got, start + got);
    if (n === 0) throw unterminated();
    got += n;
  }
  return b;
}
