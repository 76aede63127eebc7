// What a failed command tells its user: the one-line message and the exit code of an error a command threw. The
// CLI prints it as `lro: <message>`; an MCP tool returns it as its error result.
import { stderrLine } from '../budget.js';
import { boundedMessage, EXIT, LroError } from '../errors.js';
import { FormatError } from '../format/header.js';
import { BrokenPipe, type IO, type Next } from '../io.js';
import type { CommandDef, Input } from './command.js';

/** What a failure tells: the message, the exit code, and the lro commands the message names (as values). */
export interface Failure {
  message: string;
  code: number;
  mentions?: readonly Next[];
}

/** The failure an error is; null for a closed stdout, which ends a command quietly (exit 0). */
export function failureOf(e: unknown): Failure | null {
  if (e instanceof BrokenPipe) return null;
  if (e instanceof LroError || (e as Error)?.name === 'LroError') {
    // (by name too: `lro mcp` runs from a bundle of its own, dist/mcp.cjs, with its own LroError class)
    const { message, exitCode, mentions } = e as LroError;
    return { message, code: exitCode ?? EXIT.error, mentions };
  }
  if (e instanceof FormatError) return { message: `${e.message}: ${e.hint}`, code: EXIT.error };
  const err = e as NodeJS.ErrnoException;
  return { message: err?.code ? `${err.code}: ${err.message}` : String(err?.message ?? err), code: EXIT.error };
}

/**
 * Prints `lro: <message>` on stderr (and the stack with LRO_DEBUG=1); returns the exit code. A message that names
 * lro commands is a line of the run's (budget.ts stderrLine), so an MCP tool call names them as its tool calls.
 */
export async function reportFailure(e: unknown, message: string, code: number, io: IO, mentions: readonly Next[] = []): Promise<number> {
  try {
    const what = `lro: ${boundedMessage(message)}`;
    await io.stderr.write(mentions.length ? stderrLine(io.run, what, [...mentions]) : `${what}\n`);
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
    return failure ? reportFailure(e, failure.message, failure.code, io, failure.mentions) : EXIT.ok;
  }
}
