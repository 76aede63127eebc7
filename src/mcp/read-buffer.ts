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

/** A ReadBuffer (the SDK's interface) that splits lines without copying what it holds more than once. */
export class LineReadBuffer {
  private parts: Buffer[] = [];
  private size = 0;
  private readonly lines: Buffer[] = [];

  constructor(private readonly maxBytes: number) {}

  append(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
      this.parts.push(chunk.subarray(start, nl));
      this.lines.push(this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts));
      this.parts = [];
      this.size = 0;
      start = nl + 1;
    }
    if (start >= chunk.length) return;
    this.size += chunk.length - start;
    if (this.size > this.maxBytes) {
      this.clear();
      throw new Error(`a message exceeded ${this.maxBytes} bytes`);
    }
    this.parts.push(chunk.subarray(start));
  }

  readMessage(): JSONRPCMessage | null {
    const line = this.lines.shift();
    if (line === undefined) return null;
    return this.parse(line.toString('utf8').replace(/\r$/, ''));
  }

  /** One message from its line (the proxy keeps the text too: raw-json.ts). */
  protected parse(text: string): JSONRPCMessage {
    return deserializeMessage(text);
  }

  clear(): void {
    this.parts = [];
    this.size = 0;
    this.lines.length = 0;
  }
}

/** Gives an SDK stdio transport a LineReadBuffer in place of its own (a field the SDK keeps private). */
export function useLineReadBuffer<T extends object>(transport: T, maxBytes: number, buffer?: LineReadBuffer): T {
  const t = transport as { _readBuffer?: unknown };
  if (t._readBuffer !== undefined) t._readBuffer = buffer ?? new LineReadBuffer(maxBytes);
  return transport;
}
