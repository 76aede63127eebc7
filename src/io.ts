// The IO a command runs with: streams, environment, terminal facts and clock, decided once and passed in, so
// commands never touch `process` and tests can run them with fakes.
import { read } from 'node:fs';
import { isatty } from 'node:tty';
import type { Readable, Writable } from 'node:stream';

/** A closed stdout (EPIPE): the reader went away, so lro stops quietly. */
export class BrokenPipe extends Error {}

/** Writes with backpressure; rejects with BrokenPipe when the reader is gone. */
export interface Output {
  write(data: Uint8Array | string): Promise<void>;
  /** write(), resolving only once the stream is done with `data`, so its memory can be reused (optional). */
  writeSettled?(data: Uint8Array): Promise<void>;
  readonly isTTY: boolean;
  /** Colour allowed on this stream (a TTY, and neither NO_COLOR nor FORCE_COLOR=0; FORCE_COLOR forces it). */
  readonly color: boolean;
  /** Terminal width, or 0 when not a terminal. */
  readonly columns: number;
}

export interface IO {
  /** Standard input in chunks; a chunk may be reused once the next one is asked for (copy what you keep). */
  stdin: AsyncIterable<Uint8Array>;
  stdinIsTTY: boolean;
  stdout: Output;
  stderr: Output;
  env: NodeJS.ProcessEnv;
  now: () => Date;
  /**
   * A child process (`lro run`) gets this process's own stdin and stderr, so it reads the terminal and its
   * diagnostics arrive unchanged and at once; without it they are piped through `stdin` and `stderr` above.
   */
  inheritStdio?: boolean;
  /**
   * stdin as a Node stream, for a reader that runs until told to stop (the MCP server on stdio): destroying it
   * lets the process end even while a read is waiting. Without it, a stream is made from `stdin`.
   */
  stdinStream?: () => Readable;
  /** Calls `handler` on SIGINT and SIGTERM instead of dying, until the returned function is called. */
  onSignal?: (handler: (signal: NodeJS.Signals) => void) => () => void;
}

const FORWARDED_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

/** Whether to colour a stream, following NO_COLOR and FORCE_COLOR. */
export function colorAllowed(isTTY: boolean, env: NodeJS.ProcessEnv): boolean {
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return isTTY && env.TERM !== 'dumb';
}

/** Wraps a Node writable stream as an Output. */
export function nodeOutput(stream: Writable & { isTTY?: boolean; columns?: number }, env: NodeJS.ProcessEnv): Output {
  let broken: Error | null = null;
  stream.on('error', (e: NodeJS.ErrnoException) => {
    broken = e.code === 'EPIPE' ? new BrokenPipe('output closed') : e;
  });
  const isTTY = !!stream.isTTY;
  return {
    isTTY,
    color: colorAllowed(isTTY, env),
    columns: isTTY ? stream.columns ?? 80 : 0,
    writeSettled(data) {
      if (broken) return Promise.reject(broken);
      return new Promise((resolve, reject) => {
        stream.write(data, (err) => {
          if (err) reject((err as NodeJS.ErrnoException).code === 'EPIPE' ? new BrokenPipe('output closed') : err);
          else resolve();
        });
      });
    },
    write(data) {
      if (broken) return Promise.reject(broken);
      return new Promise((resolve, reject) => {
        const ok = stream.write(data, (err) => {
          if (err) reject((err as NodeJS.ErrnoException).code === 'EPIPE' ? new BrokenPipe('output closed') : err);
        });
        if (ok) resolve();
        else stream.once('drain', resolve);
      });
    },
  };
}

/**
 * Reads fd 0 in large chunks (up to 1 MB per read from files and pipes), falling back to process.stdin if fd 0
 * cannot be read directly (non-blocking). Every chunk is a view of one of two buffers, valid until the next chunk
 * is asked for: a consumer that keeps one copies it. (A fresh buffer per read left tens of MB of spent chunks
 * waiting for a garbage collection while offloading a large input.) The next read is under way while a chunk is
 * used, into the other buffer: the copy from the pipe or the page cache (a fifth of a second for 200 MB) no
 * longer waits for the consumer, nor the consumer for it.
 */
export async function* readStdin(): AsyncGenerator<Buffer> {
  const buffers = [Buffer.allocUnsafe(1 << 20), Buffer.allocUnsafe(1 << 20)];
  const readInto = (buf: Buffer) =>
    new Promise<number>((resolve, reject) =>
      read(0, buf, 0, buf.length, null, (err, bytes) => (err ? reject(err) : resolve(bytes))),
    );
  let next = readInto(buffers[0]);
  for (let i = 0; ; i ^= 1) {
    let n: number;
    try {
      n = await next;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN' || code === 'EWOULDBLOCK' || code === 'EINVAL' || code === 'ESPIPE') {
        for await (const chunk of process.stdin) yield chunk as Buffer;
        return;
      }
      if (code === 'EOF' || code === 'EBADF') return;
      throw e;
    }
    if (n === 0) return;
    next = readInto(buffers[i ^ 1]);
    next.catch(() => undefined); // (seen when awaited; a generator left early never awaits it)
    yield buffers[i].subarray(0, n);
  }
}

/** The IO of this process. */
export function processIO(): IO {
  const env = process.env;
  return {
    stdin: readStdin(),
    stdinIsTTY: isatty(0),
    stdout: nodeOutput(process.stdout, env),
    stderr: nodeOutput(process.stderr, env),
    env,
    now: () => new Date(),
    inheritStdio: true,
    stdinStream: () => process.stdin,
    onSignal(handler) {
      for (const sig of FORWARDED_SIGNALS) process.on(sig, handler);
      return () => {
        for (const sig of FORWARDED_SIGNALS) process.off(sig, handler);
      };
    },
  };
}
