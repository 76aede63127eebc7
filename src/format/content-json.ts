// Content type `json`: one JSON document. An array becomes one record per element; an object whose bulk is one
// array (reached through object members, e.g. `.items` or `.hits.hits`) is split on that array, the rest (the
// envelope, with that array emptied) kept in the header; any other document is one record. Records are the
// elements' own text with whitespace outside strings removed. The document is read twice (analyze, then emit),
// from memory when small and from a spool file in the store when large, so memory stays bounded.
import { closeSync, openSync, readSync, unlinkSync, writeSync, constants as fsc } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { EncodingRestart, type Encoder, type RecordSink } from './encoder.js';
import { JsonScanner, JsonSyntaxError, decodeKeys, type JsonAnalysis, type SplitPlan } from './json-scan.js';
import { FormatError, type LineEnding, type Layout } from './header.js';

/**
 * Documents up to this size are held in memory for the two passes; larger ones are spooled to disk. Holding more
 * costs more than the spool's write and read back: a fresh page of memory is dear, the page cache is not. At 32 MB,
 * a 100 MB pretty-printed document took 2.30 s and 154 MB of RSS, a 20 MB one 1.15 s and 139 MB; at 4 MB, 2.13 s
 * and 123 MB, 1.13 s and 120 MB (medians of 3).
 */
export const JSON_MEMORY_MAX = 4 << 20;
/** An object is split on its largest array when that array holds at least this share of its bytes. */
export const JSON_BULK_SHARE = 0.5;
const READ_CHUNK = 1 << 20;

/** Where to spool a large document: a path in the store for a temporary file (created exclusively, 0600). */
export type SpoolPath = () => string;

export class JsonRecordEncoder implements Encoder {
  private mem: Buffer[] = [];
  private memBytes = 0;
  private spoolPath: string | null = null;
  private spoolFd = -1;
  private total = 0;
  private lastByte = -1;
  private count = 0;

  constructor(
    private readonly sink: RecordSink,
    private readonly spool: SpoolPath,
    private readonly observe?: (record: Buffer, n: number) => void,
  ) {}

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.total += chunk.length;
    this.lastByte = chunk[chunk.length - 1];
    if (this.spoolFd < 0 && this.memBytes + chunk.length <= JSON_MEMORY_MAX) {
      this.mem.push(Buffer.from(chunk));
      this.memBytes += chunk.length;
      return;
    }
    if (this.spoolFd < 0) {
      this.spoolPath = this.spool();
      this.spoolFd = openSync(this.spoolPath, fsc.O_RDWR | fsc.O_CREAT | fsc.O_EXCL | fsc.O_NOFOLLOW, 0o600);
      for (const b of this.mem) writeAll(this.spoolFd, b);
      this.mem = [];
      this.memBytes = 0;
    }
    writeAll(this.spoolFd, chunk);
  }

  end(): Layout {
    const analysis = this.analyze();
    const plan = planSplit(analysis);
    let envelopeParts: Buffer[] = [];
    const scanner = new JsonScanner(plan, {
      record: (bytes) => {
        this.sink.write(bytes); // (the writer copies what it keeps)
        this.sink.write(NEWLINE);
        this.count++;
        this.observe?.(bytes, this.count); // (which copies the records it keeps)
      },
      envelope: (bytes) => envelopeParts.push(Buffer.from(bytes)),
    });
    for (const chunk of this.chunks(true)) scanner.push(chunk);
    scanner.end();
    const layout: Layout = { content_type: 'json', count: this.count, split: plan.split, final_newline: this.lastByte === 0x0a };
    if (plan.split === 'path') {
      layout.path = decodeKeys(analysis.largest!.keys);
      layout.envelope = Buffer.concat(envelopeParts);
      layout.envelope_insert_at = scanner.envelopeInsertAt;
    }
    envelopeParts = [];
    return layout;
  }

  progress(): Layout {
    return { content_type: 'json', count: this.count };
  }

  dispose(): void {
    if (this.spoolFd >= 0) {
      closeSync(this.spoolFd);
      this.spoolFd = -1;
    }
    if (this.spoolPath) {
      try {
        unlinkSync(this.spoolPath);
      } catch {
        // already gone
      }
      this.spoolPath = null;
    }
    this.mem = [];
  }

  /** Pass 1: one valid UTF-8 JSON document, or a restart as jsonl/text with the whole input replayed. */
  private analyze(): JsonAnalysis {
    const scanner = new JsonScanner();
    const utf8 = new Utf8Checker();
    try {
      for (const chunk of this.chunks(true)) {
        if (!utf8.push(chunk)) throw new JsonSyntaxError('not UTF-8', 0, 'invalid');
        scanner.push(chunk);
      }
      if (!utf8.end()) throw new JsonSyntaxError('not UTF-8', 0, 'invalid');
      return scanner.end();
    } catch (e) {
      if (!(e instanceof JsonSyntaxError) && !(e instanceof RangeError)) throw e;
      const { firstLineIsJson, lineEnding } = this.firstLine();
      throw new EncodingRestart(firstLineIsJson ? 'jsonl' : 'text', lineEnding, this.chunks(), `not one JSON document (${e.message})`);
    }
  }

  /** Whether the first line alone is JSON (then the input is more likely JSONL), and the line ending seen. */
  private firstLine(): { firstLineIsJson: boolean; lineEnding: LineEnding } {
    const head: Buffer[] = [];
    let size = 0;
    for (const chunk of this.chunks()) {
      head.push(chunk);
      size += chunk.length;
      if (chunk.includes(0x0a) || size > 64 << 20) break;
    }
    const buf = Buffer.concat(head);
    const nl = buf.indexOf(0x0a);
    const first = nl >= 0 ? buf.subarray(0, nl) : buf;
    let firstLineIsJson = false;
    if (nl >= 0 && isUtf8(first)) {
      try {
        const v: unknown = JSON.parse(first.toString('utf8'));
        firstLineIsJson = typeof v === 'object' && v !== null;
      } catch {
        firstLineIsJson = false;
      }
    }
    return { firstLineIsJson, lineEnding: detectLineEnding(buf.subarray(0, 64 << 10)) };
  }

  /**
   * The document's bytes again, from memory or the spool. `reuse`: read the spool into one buffer, each chunk
   * valid until the next (the scanner passes, which copy what they keep: a fresh buffer a MB costs 256 new pages).
   */
  private *chunks(reuse = false): Generator<Buffer> {
    if (this.spoolFd < 0) {
      yield* this.mem;
      return;
    }
    let pos = 0;
    const one = reuse ? Buffer.allocUnsafe(Math.min(READ_CHUNK, this.total)) : null;
    while (pos < this.total) {
      const buf = one ?? Buffer.allocUnsafe(Math.min(READ_CHUNK, this.total - pos));
      const n = readSync(this.spoolFd, buf, 0, buf.length, pos);
      if (n <= 0) throw new Error('spool file ended early');
      pos += n;
      yield buf.subarray(0, n);
    }
  }
}

const NEWLINE = Buffer.from('\n');

/** Which array (if any) a valid document is split on. */
export function planSplit(a: JsonAnalysis): SplitPlan {
  if (a.root === 'array') return { split: 'elements' };
  if (a.root === 'object' && a.largest) {
    const share = (a.largest.end - a.largest.start) / Math.max(1, a.end - a.start);
    if (share >= JSON_BULK_SHARE) return { split: 'path', arrayStart: a.largest.start };
  }
  return { split: 'none' };
}

/** "crlf" when every line end in the sample is CRLF (and there is at least one), else "lf". */
export function detectLineEnding(sample: Buffer): LineEnding {
  let lines = 0;
  for (let i = sample.indexOf(0x0a); i >= 0; i = sample.indexOf(0x0a, i + 1)) {
    if (i === 0 || sample[i - 1] !== 0x0d) return 'lf';
    lines++;
  }
  return lines > 0 ? 'crlf' : 'lf';
}

/** Checks UTF-8 validity of a stream of chunks whose boundaries may split a character. */
export class Utf8Checker {
  private carry: Buffer | null = null;

  push(chunk: Buffer): boolean {
    const data = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    // hold back a possibly incomplete character at the end
    let cut = data.length;
    for (let k = data.length - 1, steps = 0; k >= 0 && steps < 4; k--, steps++) {
      const c = data[k];
      if ((c & 0xc0) === 0x80) continue;
      if (c >= 0xc0) cut = k;
      break;
    }
    this.carry = cut < data.length ? Buffer.from(data.subarray(cut)) : null;
    return isUtf8(data.subarray(0, cut));
  }

  end(): boolean {
    return !this.carry || isUtf8(this.carry);
  }
}

function writeAll(fd: number, buf: Uint8Array): void {
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
}

/**
 * Rebuilds a JSON document from its records: the root array, the envelope with the records spliced in, or the
 * single record. Yields the pieces in order.
 */
export function* decodeJsonDocument(
  layout: Pick<Layout, 'split' | 'envelope' | 'envelope_insert_at' | 'final_newline'>,
  records: Iterable<Uint8Array>,
): Generator<Uint8Array> {
  const joined = function* () {
    let first = true;
    for (const r of records) {
      if (!first) yield COMMA;
      first = false;
      yield r;
    }
  };
  if (layout.split === 'elements') {
    yield OPEN;
    yield* joined();
    yield CLOSE;
  } else if (layout.split === 'path') {
    const env = layout.envelope!;
    const at = layout.envelope_insert_at!;
    // the records go between the brackets of the emptied array
    if (!(at > 0 && at < env.length && env[at - 1] === 0x5b && env[at] === 0x5d)) {
      throw new FormatError('has an envelope whose insert point is not an emptied array');
    }
    yield env.subarray(0, at);
    yield* joined();
    yield env.subarray(at);
  } else {
    yield* records;
  }
  if (layout.final_newline) yield NEWLINE;
}

const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');
const COMMA = Buffer.from(',');
