// Splitting a stdio stream into JSON-RPC messages in linear time. The SDK's ReadBuffer joins every chunk onto
// what it holds (Buffer.concat per 64 kB chunk), so a message of n bytes costs O(n²): measured here, 10 MB took
// 0.9 s and 20 MB 3.0 s, for a proxy whose whole point is large results. This keeps the chunks and joins them
// once per message; it is installed in place of the SDK's buffer (same three methods) on the transports lro uses.
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The largest message taken from an upstream server (a tool result); beyond it the transport reports an error. */
export const MAX_UPSTREAM_MESSAGE = 512 << 20;
/** The largest message taken from a client (lro_offload's content). */
export const MAX_CLIENT_MESSAGE = 64 << 20;

/** A line longer than the limit, not kept: its start and its end (where a message's id is), and its size. */
export interface Oversized {
  head: string;
  tail: string;
  bytes: number;
}

/** How much of an oversized line is kept at each end. */
const KEPT_ENDS = 1024;

/**
 * A ReadBuffer (the SDK's interface) that splits lines without copying what it holds more than once. A line over
 * the limit is an error (`append` throws) or, with `skipOversized`, is skipped to its end and read as Oversized,
 * so that a server can answer it and go on.
 */
export class LineReadBuffer {
  private parts: Buffer[] = [];
  private size = 0;
  private readonly lines: (Buffer | Oversized)[] = [];
  /** The oversized line being skipped. */
  private skipping: { head: Buffer; tail: Buffer; bytes: number } | null = null;

  constructor(
    private readonly maxBytes: number,
    private readonly skipOversized = false,
  ) {}

  append(chunk: Buffer): void {
    let start = this.skipped(chunk);
    if (start < 0) return;
    for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
      this.parts.push(chunk.subarray(start, nl));
      this.lines.push(this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts));
      this.parts = [];
      this.size = 0;
      start = nl + 1;
    }
    if (start >= chunk.length) return;
    this.size += chunk.length - start;
    this.parts.push(chunk.subarray(start));
    if (this.size <= this.maxBytes) return;
    if (!this.skipOversized) {
      this.clear();
      throw new Error(`a message exceeded ${this.maxBytes} bytes`);
    }
    this.skipping = { head: firstBytes(this.parts), tail: firstBytes([...this.parts].reverse(), true), bytes: this.size };
    this.parts = [];
    this.size = 0;
  }

  /** While an oversized line is skipped: where the rest of the chunk starts after its end, or -1 (all skipped). */
  private skipped(chunk: Buffer): number {
    const s = this.skipping;
    if (!s) return 0;
    const nl = chunk.indexOf(10);
    const piece = nl < 0 ? chunk : chunk.subarray(0, nl);
    s.bytes += piece.length;
    s.tail = piece.length >= KEPT_ENDS ? Buffer.from(piece.subarray(-KEPT_ENDS)) : Buffer.concat([s.tail, piece]).subarray(-KEPT_ENDS);
    if (nl < 0) return -1;
    this.lines.push({ head: s.head.toString('utf8'), tail: s.tail.toString('utf8').replace(/\r$/, ''), bytes: s.bytes });
    this.skipping = null;
    return nl + 1;
  }

  /** The next whole line (without its CR LF), an oversized one, or null. */
  nextLine(): string | Oversized | null {
    const line = this.lines.shift();
    if (line === undefined) return null;
    return Buffer.isBuffer(line) ? line.toString('utf8').replace(/\r$/, '') : line;
  }

  readMessage(): JSONRPCMessage | null {
    const line = this.nextLine();
    if (line === null) return null;
    if (typeof line !== 'string') throw new Error(`a message exceeded ${this.maxBytes} bytes`);
    return this.parse(line);
  }

  /** One message from its line (the proxy keeps the text too: raw-json.ts). */
  protected parse(text: string): JSONRPCMessage {
    return deserializeMessage(text);
  }

  clear(): void {
    this.parts = [];
    this.size = 0;
    this.lines.length = 0;
    this.skipping = null;
  }
}

/** A copy of the first KEPT_ENDS bytes of parts (of the last ones, with parts given last first). */
function firstBytes(parts: Buffer[], last = false): Buffer {
  const taken: Buffer[] = [];
  let n = 0;
  for (const p of parts) {
    if (n >= KEPT_ENDS) break;
    taken.push(p);
    n += p.length;
  }
  const joined = Buffer.concat(last ? taken.reverse() : taken);
  return Buffer.from(last ? joined.subarray(-KEPT_ENDS) : joined.subarray(0, KEPT_ENDS));
}

/** Gives an SDK stdio transport a LineReadBuffer in place of its own (a field the SDK keeps private). */
export function useLineReadBuffer<T extends object>(transport: T, maxBytes: number, buffer?: LineReadBuffer): T {
  const t = transport as { _readBuffer?: unknown };
  if (t._readBuffer !== undefined) t._readBuffer = buffer ?? new LineReadBuffer(maxBytes);
  return transport;
}
