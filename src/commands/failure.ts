// What a failed command tells its user: the one-line message and the exit code of an error a command threw. The
// CLI prints it as `lro: <message>`; an MCP tool returns it as its error result.
import { boundedMessage, EXIT, LroError } from '../errors.js';
import { FormatError } from '../format/header.js';
import { BrokenPipe, type IO } from '../io.js';
import type { CommandDef, Input } from './command.js';

/** The message and exit code of an error; null for a closed stdout, which ends a command quietly (exit 0). */
export function failureOf(e: unknown): { message: string; code: number } | null {
  if (e instanceof BrokenPipe) return null;
  if (e instanceof LroError || (e as Error)?.name === 'LroError') {
    // (by name too: `lro mcp` runs from a bundle of its own, dist/mcp.cjs, with its own LroError class)
    return { message: (e as LroError).message, code: (e as LroError).exitCode ?? EXIT.error };
  }
  if (e instanceof FormatError) return { message: `${e.message}: ${e.hint}`, code: EXIT.error };
  const err = e as NodeJS.ErrnoException;
  return { message: err?.code ? `${err.code}: ${err.message}` : String(err?.message ?? err), code: EXIT.error };
}

/** Prints `lro: <message>` on stderr (and the stack with LRO_DEBUG=1); returns the exit code. */
export async function reportFailure(e: unknown, message: string, code: number, io: IO): Promise<number> {
  try {
    await io.stderr.write(`lro: ${boundedMessage(message)}\n`);
    if (io.env.LRO_DEBUG === '1' && e instanceof Error && e.stack) await io.stderr.write(`${e.stack}\n`);
  } catch {
    // stderr closed too
  }
  return code;
}

/** Runs a command with its parsed input; an error it throws is reported as the CLI reports it. */
export async function runReported(def: CommandDef, input: Input, io: IO): Promise<number> {
  try {
    return await def.run(input, io);
  } catch (e) {
    const failure = failureOf(e);
    return failure ? reportFailure(e, failure.message, failure.code, io) : EXIT.ok;
  }
}
