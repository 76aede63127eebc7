// Errors that reach the user. Commands throw LroError; commands/failure.ts turns them into `lro: <message>` and
// an exit code, so the message says what went wrong and, after a colon, what to do.

/** Exit codes, as grep and jq use them. */
export const EXIT = {
  ok: 0,
  noMatch: 1,
  error: 2,
  jqCompile: 3,
  jqRuntime: 5,
} as const;

/** An error with a one-line message for the user and the exit code it maps to. */
export class LroError extends Error {
  override name = 'LroError'; // kept through minification, for library users who log errors

  constructor(
    message: string,
    readonly exitCode: number = EXIT.error,
  ) {
    super(message);
  }
}

/** A message made fit for one line: control characters (a newline in an id or a path) written as escapes. */
export function oneLine(message: string): string {
  return message.replace(/[\x00-\x1f\x7f]/g, (c) => JSON.stringify(c).slice(1, -1));
}

/** A usage error (bad option or argument): exit 2, like grep and ripgrep. */
export class UsageError extends LroError {}
