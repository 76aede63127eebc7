// Content type `text`: one record per input line, a JSON string holding the line without its terminator.
// The line ending (LF, or CRLF when every line has one) and a missing final newline are kept in the header, and
// bytes that are not UTF-8 are kept with escapes (see escape.ts), so the original comes back byte for byte.
import { isUtf8 } from 'node:buffer';
import { EncodingRestart, OutBuffer, type Encoder, type RecordSink } from './encoder.js';
import { decodeSurrogateEscape, decodeJsonStringRecord, escapeUtf8Into, JsonStringBody, jsonStringOfBytes } from './escape.js';
import { FormatError, type LineEnding, type Layout } from './header.js';
import { TextRecordKernel } from './escape-simd.js';
import { LineChunker } from './lines.js';

/** Lines longer than this are streamed into their record piece by piece instead of held in memory. */
export const TEXT_MAX_LINE = 1 << 20;

/**
 * Index of the first byte in buf[from, end) that is special in a text record (a control byte, `"` or `\`, so
 * also the line end), or end. Scans four bytes at a time through `words`, a Uint32Array over buf's whole
 * ArrayBuffer: a word holds a special byte when it has a byte below 0x20 or a byte equal to 0x22 or 0x5c.
 */
export function nextSpecial(buf: Uint8Array, words: Uint32Array, from: number, end: number): number {
  const base = buf.byteOffset;
  let i = from;
  while (i < end && ((base + i) & 3) !== 0) {
    const c = buf[i];
    if (c < 0x20 || c === 0x22 || c === 0x5c) return i;
    i++;
  }
  let w = (base + i) >>> 2;
  const wEnd = (base + end) >>> 2;
  while (w < wEnd) {
    const x = words[w];
    const q = x ^ 0x22222222;
    const s = x ^ 0x5c5c5c5c;
    if (((x - 0x20202020) & ~x) & 0x80808080 || ((q - 0x01010101) & ~q) & 0x80808080 || ((s - 0x01010101) & ~s) & 0x80808080) break;
    w++;
  }
  for (i = (w << 2) - base; i < end; i++) {
    const c = buf[i];
    if (c < 0x20 || c === 0x22 || c === 0x5c) return i;
  }
  return end;
}

export class TextRecordEncoder implements Encoder {
  private readonly out: OutBuffer;
  private readonly kernel = new TextRecordKernel();
  private readonly chunker: LineChunker;
  private count = 0;
  private lastTerminated = true;

  constructor(
    sink: RecordSink,
    private readonly lineEnding: LineEnding,
  ) {
    this.out = new OutBuffer(sink);
    this.chunker = new LineChunker(
      {
        lines: (buf, end) => this.lines(buf, end),
        longPiece: (buf, first) => this.longPiece(buf, first),
        longEnd: (buf, newline) => this.longEnd(buf, newline),
      },
      TEXT_MAX_LINE,
    );
  }

  push(chunk: Buffer): void {
    this.chunker.push(chunk);
  }

  end(): Layout {
    const last = this.chunker.end();
    if (last && last.length > 0) {
      this.record(last, 0, last.length);
      this.count++;
      this.lastTerminated = false;
    }
    this.out.flush();
    return this.progress();
  }

  progress(): Layout {
    return {
      content_type: 'text',
      count: this.count,
      line_ending: this.lineEnding,
      final_newline: this.count > 0 && this.lastTerminated,
    };
  }

  private lines(buf: Buffer, end: number): void {
    const crlf = this.lineEnding === 'crlf';
    const valid = isUtf8(buf.subarray(0, end));
    if (valid) {
      // the common case, in WebAssembly: every line of the region, escaped, as records
      const r = this.kernel.records(buf, end, crlf);
      this.out.bytes(r.bytes);
      this.count += r.count;
      if (r.used < end) this.bareLf(buf, r.used, end);
      return;
    }
    const words = new Uint32Array(buf.buffer, 0, buf.buffer.byteLength >>> 2);
    const out = this.out;
    let lineStart = 0;
    while (lineStart < end) {
      if (crlf) {
        // a CRLF text must not have a bare LF; check before writing anything of this line
        const nl = buf.indexOf(0x0a, lineStart);
        if (nl === lineStart || buf[nl - 1] !== 0x0d) this.bareLf(buf, lineStart, end);
      }
      if (!valid) {
        const nl = buf.indexOf(0x0a, lineStart);
        const lineEnd = crlf ? nl - 1 : nl;
        if (!isUtf8(buf.subarray(lineStart, lineEnd))) {
          this.record(buf, lineStart, lineEnd);
          this.count++;
          lineStart = nl + 1;
          continue;
        }
      }
      // One line: copy the spans between special bytes, escape those, stop at the line end.
      out.ensure(1);
      out.byte(0x22);
      let from = lineStart;
      for (;;) {
        const at = nextSpecial(buf, words, from, end); // the region ends with "\n", so at < end
        const span = at - from;
        out.ensure(span + 8);
        const b = out.buf;
        let p = out.pos;
        if (span > 32) {
          b.set(buf.subarray(from, at), p);
          p += span;
        } else for (let k = from; k < at; k++) b[p++] = buf[k];
        const c = buf[at];
        if (c === 0x0a || (c === 0x0d && crlf && buf[at + 1] === 0x0a)) {
          b[p++] = 0x22;
          b[p++] = 0x0a;
          out.pos = p;
          lineStart = at + (c === 0x0a ? 1 : 2);
          break;
        }
        out.pos = escapeUtf8Into(buf, at, at + 1, b, p);
        from = at + 1;
      }
      this.count++;
    }
  }

  /** A line of a CRLF text ends with a bare LF: the text is stored as LF text instead, from this line on. */
  private bareLf(buf: Buffer, lineStart: number, end: number): never {
    this.out.flush();
    const replay = [Buffer.from(buf.subarray(lineStart, end)), Buffer.from(this.chunker.pending())];
    throw new EncodingRestart('text', 'lf', replay, `line ${this.count + 1} ends with LF only`);
  }

  /** One record for buf[start, end), escaping whatever needs it. */
  private record(buf: Buffer, start: number, end: number): void {
    const out = this.out;
    if (isUtf8(buf.subarray(start, end))) {
      out.ensure((end - start) * 6 + 3);
      out.buf[out.pos++] = 0x22;
      out.pos = escapeUtf8Into(buf, start, end, out.buf, out.pos);
      out.buf[out.pos++] = 0x22;
      out.buf[out.pos++] = 0x0a;
    } else {
      const s = jsonStringOfBytes(buf, start, end);
      out.bytes(s);
      out.ensure(1);
      out.byte(0x0a);
    }
  }

  private longPiece(buf: Buffer, first: boolean): void {
    const out = this.out;
    if (first) {
      out.ensure(1);
      out.byte(0x22);
    }
    this.escapeBody(buf);
  }

  private longEnd(buf: Buffer, newline: boolean): void {
    let end = buf.length;
    const crlf = this.lineEnding === 'crlf';
    const stripCr = newline && crlf && end > 0 && buf[end - 1] === 0x0d;
    if (stripCr) end--;
    this.escapeBody(buf.subarray(0, end));
    const out = this.out;
    out.ensure(2);
    out.byte(0x22);
    out.byte(0x0a);
    this.count++;
    if (newline && crlf && !stripCr) {
      // The long line ended with a bare LF: its record is complete and exact, the LF itself is replayed.
      out.flush();
      this.lastTerminated = false;
      throw new EncodingRestart('text', 'lf', [Buffer.from('\n'), Buffer.from(this.chunker.pending())], `line ${this.count} ends with LF only`);
    }
    if (!newline) this.lastTerminated = false;
  }

  private escapeBody(piece: Buffer): void {
    const out = this.out;
    if (isUtf8(piece)) {
      out.ensure(piece.length * 6);
      out.pos = escapeUtf8Into(piece, 0, piece.length, out.buf, out.pos);
    } else {
      const s = JSON.stringify(decodeSurrogateEscape(piece));
      out.bytes(Buffer.from(s.slice(1, -1), 'utf8'));
    }
  }
}

/** Rebuilds the original bytes of one text record. */
export function decodeTextRecord(line: Uint8Array): Buffer {
  return decodeJsonStringRecord(line);
}

/**
 * The original bytes of whole text records: `lines` holds records `"…"\n` from record number `first` on.
 * Records are copied byte by byte up to their closing quote (a call per record, of indexOf or copy, cost more than
 * the bytes of a short record); one with an escape is decoded from it on. Every record is followed by `eol`.
 * Returns the bytes and how many records there were; throws FormatError for a record that is not a JSON string.
 * Written into `into` when it has room (a buffer to reuse).
 */
export function decodeTextLines(lines: Buffer, first: number, eol: Buffer, into?: Buffer): { bytes: Buffer; records: number } {
  // a record's quotes and newline outweigh its line ending: lines.length is room enough
  const out = into && into.length >= lines.length ? into : Buffer.allocUnsafe(lines.length);
  const body = new JsonStringBody();
  const n = lines.length;
  const crlf = eol.length === 2;
  let at = 0;
  let records = 0;
  const bad = () => new FormatError(`record ${first + records} is not what a text result holds`);
  if (n > 0 && lines[n - 1] !== 0x0a) {
    // the last record is cut (every byte loop below stops at a newline, so it must end with one)
    for (let nl = lines.indexOf(0x0a); nl >= 0; nl = lines.indexOf(0x0a, nl + 1)) records++;
    throw bad();
  }
  for (let i = 0; i < n; ) {
    if (lines[i++] !== 0x22) throw bad();
    let c = lines[i];
    while (c !== 0x22 && c !== 0x5c && c !== 0x0a) {
      out[at++] = c;
      c = lines[++i];
    }
    if (c === 0x5c) {
      const nl = lines.indexOf(0x0a, i);
      if (lines[nl - 1] !== 0x22) throw bad();
      body.pos = at;
      try {
        body.decode(lines, i, nl - 1, out, true);
      } catch {
        throw bad();
      }
      at = body.pos;
      i = nl - 1;
    }
    if (lines[i] !== 0x22 || lines[i + 1] !== 0x0a) throw bad(); // the closing quote, then the newline
    if (crlf) out[at++] = 0x0d;
    out[at++] = 0x0a;
    i += 2;
    records++;
  }
  return { bytes: out.subarray(0, at), records };
}
