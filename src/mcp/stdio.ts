// The MCP stdio transports on lro's IO: messages in from stdin, out to stdout (diagnostics stay on stderr).
import { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { IO } from '../io.js';
import { MAX_CLIENT_MESSAGE, useLineReadBuffer } from './read-buffer.js';

/** A server transport on the IO's stdin and stdout; `ended` resolves when the client closes stdin. */
export function stdioServerTransport(io: IO): { transport: StdioServerTransport; ended: Promise<void>; stop: () => void } {
  const input = io.stdinStream?.() ?? Readable.from(io.stdin);
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      io.stdout.write(chunk).then(() => done(), done);
    },
  });
  const transport = useLineReadBuffer(new StdioServerTransport(input, output, { maxBufferSize: MAX_CLIENT_MESSAGE }), MAX_CLIENT_MESSAGE);
  const ended = new Promise<void>((resolve) => {
    input.once('end', resolve);
    input.once('close', resolve);
    input.once('error', () => resolve());
    output.once('error', () => resolve()); // the client stopped reading (EPIPE)
  });
  // a waiting read would keep the process alive after the server is done
  return { transport, ended, stop: () => void input.destroy() };
}
