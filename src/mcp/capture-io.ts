// An IO that keeps what a command prints, so a tool call runs the CLI's own command and returns its output, with
// what the run gives besides (IO.run: the lines lro adds to outputs, continuations and notes, and the values commands
// give, as data).
import type { IO, Output, RunCapture } from '../io.js';

/** An Output that collects what is written. */
class Collected implements Output {
  readonly isTTY = false;
  readonly color = false;
  readonly columns = 0;
  private readonly chunks: Buffer[] = [];

  async write(data: Uint8Array | string): Promise<void> {
    this.chunks.push(typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data));
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/**
 * The IO of one call: `stdin` as its input, the server's environment, the output kept, and its run captured, every
 * budget of it held to `maxBytes` besides its tokens.
 */
export function captureIO(
  env: NodeJS.ProcessEnv,
  stdin = '',
  maxBytes = Infinity,
): { io: IO & { run: RunCapture }; stdout: () => string; stderr: () => string } {
  const stdout = new Collected();
  const stderr = new Collected();
  const input = stdin ? [Buffer.from(stdin, 'utf8')] : [];
  const run: RunCapture = { lines: [], values: [], maxBytes };
  const io = { stdin: (async function* () { yield* input; })(), stdinIsTTY: false, stdout, stderr, env, now: () => new Date(), run };
  return { io, stdout: () => stdout.text(), stderr: () => stderr.text() };
}
