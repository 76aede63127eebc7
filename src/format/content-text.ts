// Content type `text`: one record per input line, a JSON string holding the line without its terminator.
// The line ending (LF, or CRLF when every line has one) and a missing final newline are kept in the header, and
// bytes that are not UTF-8 are kept with escapes (see escape.ts), so the original comes back byte for byte.
import { isUtf8 } from 'node:buffer';
import { EncodingRestart, OutBuffer, type Encoder, type Layout, type RecordSink } from './encoder.js';
import { decodeSurrogateEscape, decodeJsonStringRecord, escapeUtf8Into, jsonStringOfBytes } from './escape.js';
import type { LineEnding } from './header.js';
import { LineChunker } from './lines.js';

/** Lines longer than this are streamed into their record piece by piece instead of held in memory. */
export const TEXT_MAX_LINE = 1 << 20;

// Bytes that need escaping inside a line; with CRLF endings, a "\r" right before "\n" is the terminator.
const NEEDS_ESCAPE_LF = /[\x00-\x09\x0b-\x1f"\\]/g;
const NEEDS_ESCAPE_CRLF = /[\x00-\x09\x0b\x0c\x0e-\x1f"\\]|\r(?!\n)/g;

export class TextRecordEncoder implements Encoder {
  private readonly out: OutBuffer;
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
    const re = crlf ? NEEDS_ESCAPE_CRLF : NEEDS_ESCAPE_LF;
    const text = buf.toString('latin1', 0, end);
    re.lastIndex = 0;
    let nextEscape = re.exec(text)?.index ?? end;
    const out = this.out;
    let start = 0;
    while (start < end) {
      const nl = buf.indexOf(0x0a, start);
      let lineEnd = nl;
      if (crlf) {
        if (nl > start && buf[nl - 1] === 0x0d) lineEnd = nl - 1;
        else {
          out.flush();
          const replay = [Buffer.from(buf.subarray(start, end)), Buffer.from(this.chunker.pending())];
          throw new EncodingRestart('text', 'lf', replay, `line ${this.count + 1} ends with LF only`);
        }
      }
      if (nextEscape >= lineEnd && (valid || isUtf8(buf.subarray(start, lineEnd)))) {
        const len = lineEnd - start;
        out.ensure(len + 3);
        const b = out.buf;
        b[out.pos++] = 0x22;
        buf.copy(b, out.pos, start, lineEnd);
        out.pos += len;
        b[out.pos++] = 0x22;
        b[out.pos++] = 0x0a;
      } else {
        this.record(buf, start, lineEnd);
      }
      this.count++;
      start = nl + 1;
      if (nextEscape < start) {
        re.lastIndex = start;
        nextEscape = re.exec(text)?.index ?? end;
      }
    }
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
