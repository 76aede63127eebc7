// The MCP stdio transport of `lro mcp` and `lro mcp proxy` on lro's IO: messages in from stdin, out to stdout
// (diagnostics stay on stderr). lro's own rather than the SDK's StdioServerTransport, which drops a line that is
// not a valid message without an answer and closes the connection (the server then exits 0) on one larger than
// its buffer: here every such line gets a JSON-RPC error (client-messages.ts) and the server reads on.
import { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { IO } from '../io.js';
import { oversizedReply, receive, type ErrorReply } from './client-messages.js';
import { messageJson } from './raw-json.js';
import { LineReadBuffer, MAX_CLIENT_MESSAGE } from './read-buffer.js';

/** A server transport on a stream of JSON lines in and one out. */
export class LineServerTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  private readonly buffer: LineReadBuffer;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly maxBytes = MAX_CLIENT_MESSAGE,
  ) {
    this.buffer = new LineReadBuffer(maxBytes, true);
  }

  async start(): Promise<void> {
    this.input.on('data', this.ondata);
    this.input.on('error', this.oninputError);
  }

  private readonly oninputError = (e: Error) => this.onerror?.(e);

  private readonly ondata = (chunk: Buffer) => {
    this.buffer.append(chunk);
    for (let line = this.buffer.nextLine(); line !== null; line = this.buffer.nextLine()) {
      if (typeof line !== 'string') {
        void this.answer(oversizedReply(line, this.maxBytes));
        continue;
      }
      if (line.trim() === '') continue;
      const r = receive(line);
      if ('message' in r) this.onmessage?.(r.message);
      else if (r.reply) void this.answer(r.reply);
    }
  };

  private answer(reply: ErrorReply): Promise<void> {
    this.onerror?.(new Error(reply.error.message));
    return this.write(`${JSON.stringify(reply)}\n`);
  }

  /** A message passed on unchanged from a stdio upstream goes out as the text it came as (raw-json.ts). */
  send(message: JSONRPCMessage): Promise<void> {
    return this.write(`${messageJson(message)}\n`);
  }

  private write(text: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(text)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    this.input.off('data', this.ondata);
    this.input.off('error', this.oninputError);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.buffer.clear();
    this.onclose?.();
  }
}

/** A server transport on the IO's stdin and stdout; `ended` resolves when the client closes stdin. */
export function stdioServerTransport(io: IO): { transport: LineServerTransport; ended: Promise<void>; stop: () => void } {
  const input = io.stdinStream?.() ?? Readable.from(io.stdin);
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      io.stdout.write(chunk).then(() => done(), done);
    },
  });
  const transport = new LineServerTransport(input, output);
  const ended = new Promise<void>((resolve) => {
    input.once('end', resolve);
    input.once('close', resolve);
    input.once('error', () => resolve());
    output.once('error', () => resolve()); // the client stopped reading (EPIPE)
  });
  // a waiting read would keep the process alive after the server is done
  return { transport, ended, stop: () => void input.destroy() };
}
