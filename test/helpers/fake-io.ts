// An IO for a command run in this process (`def.run(input, io)`, or `main(argv, io)`): stdin from bytes given,
// stdout and stderr kept, the environment given (never this process's), a fixed clock. What gh's tests do with
// their iostreams: the command's own code, no process spawned, its output read back as text.
import type { IO, Output } from '../../src/io.js';

export interface FakeIO extends IO {
  /** All stdout so far, as text. */
  out(): string;
  /** All stderr so far, as text. */
  err(): string;
}

function output(chunks: Buffer[]): Output {
  return {
    isTTY: false,
    color: false,
    columns: 0,
    write(data) {
      chunks.push(Buffer.from(typeof data === 'string' ? Buffer.from(data) : data));
      return Promise.resolve();
    },
  };
}

/** A fake IO: `stdin` as one chunk (none: empty), `env` as the whole environment, `now` as the clock. */
export function fakeIO(o: { stdin?: string | Buffer; env?: Record<string, string>; now?: Date } = {}): FakeIO {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const input = o.stdin === undefined ? [] : [Buffer.from(o.stdin)];
  return {
    stdin: (async function* () {
      yield* input;
    })(),
    stdinIsTTY: false,
    stdout: output(out),
    stderr: output(err),
    env: { ...o.env },
    now: () => o.now ?? new Date(),
    out: () => Buffer.concat(out).toString(),
    err: () => Buffer.concat(err).toString(),
  };
}
