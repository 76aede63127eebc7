// Errors that reach the user. Commands throw LroError; commands/failure.ts turns them into `lro: <message>` and
// an exit code, so the message says what went wrong and, after a colon, what to do.
import type { Next } from './io.js';

/** Exit codes, as grep and jq use them. */
export const EXIT = {
  ok: 0,
  noMatch: 1,
  error: 2,
  jqCompile: 3,
  jqRuntime: 5,
} as const;

/**
 * An error with a one-line message for the user and the exit code it maps to, and the lro commands the message
 * names as values (`see lro ls`), each shown in it by its text: an MCP tool call names them as its tool calls.
 */
export class LroError extends Error {
  override name = 'LroError'; // kept through minification, for library users who log errors

  constructor(
    message: string,
    readonly exitCode: number = EXIT.error,
    readonly mentions: readonly Next[] = [],
  ) {
    super(message);
  }
}

/** A message made fit for one line: control characters (a newline in an id or a path) written as escapes. */
export function oneLine(message: string): string {
  return message.replace(/[\x00-\x1f\x7f]/g, (c) => JSON.stringify(c).slice(1, -1));
}

/** A word of an error message (a pattern, a filter, a field the user typed) longer than this is cut. */
const MAX_WORD_CHARS = 160;
const LONG_WORD = new RegExp(`\\S{${MAX_WORD_CHARS + 1},}`, 'g');
/** The longest error message: well within the default output budget, however many words it quotes. */
export const MAX_MESSAGE_CHARS = 1200;

/**
 * The message with what it quotes bounded: a long word keeps its start and says how much was cut, and a message
 * still too long keeps its start and end (what went wrong and what to do are there). One line.
 */
export function boundedMessage(message: string): string {
  const keep = MAX_WORD_CHARS - 40;
  const cutWord = (w: string) => `${w.slice(0, keep)}…[${w.length - keep} more characters]`;
  const words = oneLine(message).replace(LONG_WORD, cutWord);
  if (words.length <= MAX_MESSAGE_CHARS) return words;
  const cut = words.length - MAX_MESSAGE_CHARS + 40;
  const head = Math.floor(MAX_MESSAGE_CHARS * 0.6);
  return `${words.slice(0, head)}…[${cut} characters cut]…${words.slice(head + cut)}`;
}

/** A usage error (bad option or argument): exit 2, like grep and ripgrep. */
export class UsageError extends LroError {}
