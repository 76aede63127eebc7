// The IO a command runs with: streams, environment, terminal facts and clock, decided once and passed in, so
// commands never touch `process` and tests can run them with fakes.
import { fstatSync, read, statSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
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

/**
 * The next command as a value: the command's name and its input (arguments by name, options by attribute, as its
 * `run` takes them), with the `lro …` line the text shows (commands/argv.ts makes both from the declaration).
 */
export interface Next {
  command: string;
  input: Record<string, unknown>;
  text: string;
}

/**
 * A line lro adds to an output, as it made it: `[lro: WHAT; next: COMMAND]` ending a cut output (a continuation:
 * `next` given), `[lro: WHAT]` after a record shown in part, the command `--explain` prints (`what` is the line),
 * a note on stderr (`stderr`: `lro: skipped 3 records that are not JSON (lro read ID --records 7 shows the
 * first)`). `mentions`: the commands WHAT names, as values, each shown in it by its `text`, so a caller that runs
 * commands another way (an MCP tool call) names them its way, never by reading text.
 */
export interface LroLine {
  what: string;
  mentions: Next[];
  next?: Next;
  line: string;
  stderr?: true;
}

/** A cut output's continuation as lro made it: what was left out, the next command, and the line printed. */
export type Continuation = LroLine & { next: Next };

/**
 * What a run gives a caller that needs more than its text (an MCP tool call, mcp/lro-tools.ts): the lines lro
 * added to its outputs (continuations and notes) with the commands they name, as data (`next` becomes the next
 * tool call; never read back from the output, where a stored record can hold the same text), the values its
 * commands give (`lro ls`'s rows, a descriptor: budget.ts giveValue), and a limit in bytes every budget of the run
 * keeps besides its tokens (one MCP message's worth).
 */
export interface RunCapture {
  lines: LroLine[];
  values: unknown[];
  maxBytes: number;
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
  /**
   * The command runs alone in this process (the CLI), so it may set process-wide V8 flags (v8-flags.ts); not when
   * the MCP server runs it for a tool call.
   */
  ownProcess?: boolean;
  /** Calls `handler` on SIGINT, SIGTERM and SIGHUP instead of dying, until the returned function is called. */
  onSignal?: (handler: (signal: NodeJS.Signals) => void) => () => void;
  /** Present when the caller takes the run's lines (continuations, notes) and values as data (an MCP tool call). */
  run?: RunCapture;
}

// SIGHUP too: a closed terminal or ssh session killed lro with nothing stored, and left the command orphaned
const FORWARDED_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

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

/** node:fs's read, as readStdin calls it. */
export type ReadFd = (
  fd: number,
  buf: Buffer,
  offset: number,
  length: number,
  position: null,
  done: (err: NodeJS.ErrnoException | null, bytes: number) => void,
) => void;

/**
 * Reads fd 0 in large chunks (up to 1 MB per read from files and pipes), falling back to process.stdin if fd 0
 * cannot be read directly (non-blocking). Every chunk is a view of one of two buffers, valid until the next chunk
 * is asked for: a consumer that keeps one copies it. (A fresh buffer per read left tens of MB of spent chunks
 * waiting for a garbage collection while offloading a large input.) The next read is under way while a chunk is
 * used, into the other buffer: the copy from the pipe or the page cache (a fifth of a second for 200 MB) no
 * longer waits for the consumer, nor the consumer for it. `readFd` is node:fs's read, or a test's stand-in;
 * `head`, bytes of fd 0 read before (given first).
 */
export async function* readStdin(readFd: ReadFd = read, head?: Buffer): AsyncGenerator<Buffer> {
  if (head?.length) yield head; // read already (bin/passthrough.js)
  const buffers = [Buffer.allocUnsafe(1 << 20), Buffer.allocUnsafe(1 << 20)];
  const readInto = (buf: Buffer) =>
    new Promise<number>((resolve, reject) =>
      readFd(0, buf, 0, buf.length, null, (err, bytes) => (err ? reject(err) : resolve(bytes))),
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

/**
 * Whether fd is a terminal. node:tty (with the net and stream modules it loads, a tenth of lro's start-up) is
 * loaded only for a character device, which a terminal is: most often lro's descriptors are pipes and files. The
 * character device most often met that is not a terminal, /dev/null (a cron job's output, the stdin a harness gives
 * an agent's command), is told by its device number.
 */
function isTerminal(fd: number): boolean {
  let device: number;
  try {
    const st = fstatSync(fd);
    if (!st.isCharacterDevice()) return false;
    device = st.rdev;
  } catch {
    return false;
  }
  if (device === devNull()) return false;
  const tty = createRequire(import.meta.url)('node:tty') as typeof import('node:tty');
  return tty.isatty(fd);
}

/** /dev/null's device number (-1 where there is none). */
function devNull(): number {
  try {
    return statSync('/dev/null').rdev;
  } catch {
    return -1;
  }
}

/**
 * An Output on fd 1 or 2 that is not a terminal: written with writeSync, as Node writes a pipe or a file given
 * as stdout on Linux (synchronously), without making the stream, which loads the net and stream modules. A
 * descriptor that is non-blocking (EAGAIN: a pipe another process made so) is handed to the stream, which waits
 * for it; every later write goes there too, after what was written directly, so the order holds.
 */
function fdOutput(fd: 1 | 2, stream: () => Writable, env: NodeJS.ProcessEnv): Output {
  let viaStream: Output | null = null;
  let broken: Error | null = null;
  /** settled: the caller reuses data's memory once this resolves (writeSettled), so the rest must be out by then. */
  const direct = (data: Uint8Array | string, settled = false): Promise<void> => {
    if (viaStream) return viaStream.write(data);
    if (broken) return Promise.reject(broken);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let off = 0;
    try {
      while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') {
        viaStream = nodeOutput(stream(), env);
        const rest = bytes.subarray(off);
        return settled && viaStream.writeSettled ? viaStream.writeSettled(rest) : viaStream.write(rest);
      }
      broken = code === 'EPIPE' ? new BrokenPipe('output closed') : (e as Error);
      return Promise.reject(broken);
    }
    return Promise.resolve();
  };
  return {
    isTTY: false,
    color: colorAllowed(false, env),
    columns: 0,
    write: direct,
    writeSettled: (data) => (viaStream?.writeSettled ? viaStream.writeSettled(data) : direct(data, true)),
  };
}

/** The Output of fd 1 or 2: its stream when it is a terminal, else written directly (fdOutput). */
function processOutput(fd: 1 | 2, env: NodeJS.ProcessEnv): Output {
  const stream = () => (fd === 1 ? process.stdout : process.stderr);
  return isTerminal(fd) ? nodeOutput(stream(), env) : fdOutput(fd, stream, env);
}

/**
 * The IO of this process. Its parts are made when first used: a command that never reads a terminal fact or
 * writes to stderr does not pay for them.
 */
export function processIO(stdinHead?: Buffer): IO {
  const env = process.env;
  const once = <T>(make: () => T): (() => T) => {
    let made: { value: T } | null = null;
    return () => (made ??= { value: make() }).value;
  };
  const stdinIsTTY = once(() => isTerminal(0));
  const stdout = once(() => processOutput(1, env));
  const stderr = once(() => processOutput(2, env));
  return {
    stdin: readStdin(read, stdinHead),
    get stdinIsTTY() {
      return stdinIsTTY();
    },
    get stdout() {
      return stdout();
    },
    get stderr() {
      return stderr();
    },
    env,
    now: () => new Date(),
    inheritStdio: true,
    ownProcess: true,
    stdinStream: () => process.stdin,
    onSignal(handler) {
      for (const sig of FORWARDED_SIGNALS) process.on(sig, handler);
      return () => {
        for (const sig of FORWARDED_SIGNALS) process.off(sig, handler);
      };
    },
  };
}
