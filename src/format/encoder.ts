// What every content-type encoder shares: where records go, what it reports at the end, and how it asks to
// start over as another content type when the input contradicts what detection guessed.
import type { ContentType, Layout, LineEnding } from './header.js';

/** Receives encoded record bytes ("<json>\n" per record). Must consume them before returning. */
export interface RecordSink {
  write(bytes: Uint8Array): void;
}

/** Turns input bytes into records. push may throw EncodingRestart. */
export interface Encoder {
  push(chunk: Buffer): void;
  end(): Layout;
  /** The layout of what has been written so far (for replaying it into another encoder). */
  progress(): Layout;
  /** Releases anything the encoder holds outside memory (a spool file); called once, whatever happened. */
  dispose?(): void;
}

/**
 * The input does not fit the encoder's content type after all (a bare LF in a CRLF text, too many non-JSON lines
 * in JSONL, a JSON line too long to check). The records written so far are still exact; the orchestrator decodes
 * them, feeds them to a new encoder of `contentType`, then `replay`, then the rest of the input.
 */
export class EncodingRestart extends Error {
  constructor(
    readonly contentType: ContentType,
    readonly lineEnding: LineEnding,
    readonly replay: Iterable<Buffer>,
    reason: string,
  ) {
    super(reason);
  }
}

/** A reusable output buffer that flushes to a sink when full; keeps per-record writes off the sink. */
export class OutBuffer {
  buf: Buffer;
  pos = 0;

  constructor(
    private readonly sink: RecordSink,
    size = 1 << 20,
  ) {
    this.buf = Buffer.allocUnsafe(size);
  }

  /** Makes room for n more bytes (flushing first if needed). */
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    this.flush();
    if (n > this.buf.length) this.buf = Buffer.allocUnsafe(n);
  }

  byte(c: number): void {
    this.buf[this.pos++] = c;
  }

  bytes(src: Uint8Array, start = 0, end = src.length): void {
    this.ensure(end - start);
    this.buf.set(src.subarray(start, end), this.pos);
    this.pos += end - start;
  }

  flush(): void {
    if (this.pos > 0) this.sink.write(this.buf.subarray(0, this.pos));
    this.pos = 0;
  }
}
