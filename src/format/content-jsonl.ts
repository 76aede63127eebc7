// Content type `jsonl`: one record per input line. A line that is a JSON value is the record verbatim; any other
// line (blank, broken, not UTF-8) is stored as a JSON string and its record number is listed in the header's
// `invalid_records`, so `lro cat` still gives back every byte and `lro jq` can skip those records.
import { isUtf8 } from 'node:buffer';
import { EncodingRestart, OutBuffer, type Encoder, type RecordSink } from './encoder.js';
import { decodeJsonStringRecord, jsonStringOfBytes } from './escape.js';
import type { LineEnding, Layout } from './header.js';
import { JsonLineChecker } from './json-simd.js';
import { LineChunker, LineTooLong } from './lines.js';

/** More non-JSON lines than this and the input is stored as text instead. */
export const JSONL_MAX_INVALID = 1000;
/** A JSON line must fit in memory to be checked; a longer line makes the input text. */
export const JSONL_MAX_LINE = 64 << 20;

export class JsonlRecordEncoder implements Encoder {
  private readonly out: OutBuffer;
  private readonly checker = new JsonLineChecker();
  private readonly chunker: LineChunker;
  private count = 0;
  private readonly invalid: number[] = [];
  private lastTerminated = true;

  constructor(
    sink: RecordSink,
    private readonly lineEnding: LineEnding,
  ) {
    this.out = new OutBuffer(sink);
    this.chunker = new LineChunker({ lines: (buf, end) => this.lines(buf, end) }, JSONL_MAX_LINE);
  }

  push(chunk: Buffer): void {
    try {
      this.chunker.push(chunk);
    } catch (e) {
      if (!(e instanceof LineTooLong)) throw e;
      this.out.flush();
      throw new EncodingRestart('text', this.lineEnding, [e.pending], `line ${this.count + 1} is longer than ${JSONL_MAX_LINE} bytes`);
    }
  }

  end(): Layout {
    const last = this.chunker.end();
    if (last && last.length > 0) {
      this.regionEnd = last.length;
      this.line(last, last.toString('latin1'), 0, last.length, isUtf8(last));
      this.lastTerminated = false;
    }
    this.out.flush();
    return this.progress();
  }

  progress(): Layout {
    return {
      content_type: 'jsonl',
      count: this.count,
      line_ending: this.lineEnding,
      final_newline: this.count > 0 && this.lastTerminated,
      invalid_records: [...this.invalid],
    };
  }

  private regionEnd = 0;

  private lines(buf: Buffer, end: number): void {
    this.regionEnd = end;
    const crlf = this.lineEnding === 'crlf';
    const valid = isUtf8(buf.subarray(0, end));
    if (valid && !crlf) {
      // the common case, in WebAssembly: runs of lines that are JSON values are copied as they are (their \n
      // included); the others go one by one (stored as strings, or decided by JSON.parse when nested too deep)
      const check = this.checker;
      check.load(buf, end);
      let text: string | null = null;
      for (let start = 0; start < end; ) {
        const { stop, count } = check.values(start, end);
        this.out.bytes(buf, start, stop);
        this.count += count;
        if (stop >= end) break;
        const nl = buf.indexOf(0x0a, stop);
        text ??= buf.toString('latin1', 0, end);
        this.line(buf, text, stop, nl, true);
        start = nl + 1;
      }
      return;
    }
    const text = buf.toString('latin1', 0, end);
    let start = 0;
    while (start < end) {
      const nl = buf.indexOf(0x0a, start);
      let lineEnd = nl;
      if (crlf) {
        if (nl > start && buf[nl - 1] === 0x0d) lineEnd = nl - 1;
        else this.restart('jsonl', 'lf', buf, start, `line ${this.count + 1} ends with LF only`);
      }
      this.line(buf, text, start, lineEnd, valid);
      start = nl + 1;
    }
  }

  private line(buf: Buffer, text: string, start: number, end: number, regionValid: boolean): void {
    const out = this.out;
    // JSON validity of the latin1 view equals that of the UTF-8 text once the bytes are valid UTF-8.
    if (end > start && (regionValid || isUtf8(buf.subarray(start, end))) && isJson(text, start, end)) {
      out.ensure(end - start + 1);
      buf.copy(out.buf, out.pos, start, end);
      out.pos += end - start;
      out.buf[out.pos++] = 0x0a;
      this.count++;
      return;
    }
    if (this.invalid.length >= JSONL_MAX_INVALID) {
      this.restart('text', this.lineEnding, buf, start, `more than ${JSONL_MAX_INVALID} lines are not JSON`);
    }
    out.bytes(jsonStringOfBytes(buf, start, end));
    out.ensure(1);
    out.byte(0x0a);
    this.count++;
    this.invalid.push(this.count);
  }

  /** Flushes what is written and asks to continue as another type from buf[start] on. */
  private restart(type: 'text' | 'jsonl', lineEnding: LineEnding, buf: Buffer, start: number, why: string): never {
    this.out.flush();
    const rest = Buffer.from(buf.subarray(start, this.regionEnd));
    throw new EncodingRestart(type, lineEnding, [rest, Buffer.from(this.chunker.pending())], why);
  }
}

function isJson(text: string, start: number, end: number): boolean {
  try {
    JSON.parse(text.slice(start, end));
    return true;
  } catch {
    return false;
  }
}

/** Rebuilds the original bytes of one jsonl record (invalid ones are JSON strings of the line). */
export function decodeJsonlRecord(line: Uint8Array, invalid: boolean): Buffer {
  return invalid ? decodeJsonStringRecord(line) : Buffer.from(line.buffer, line.byteOffset, line.length);
}
