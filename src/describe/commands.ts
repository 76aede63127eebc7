// The lro commands a descriptor names (its recipes, its next commands, "… more (lro info ID --full)"), as values:
// the words a shell hands lro, and the line printed from them. The MCP face makes each one's tool call from its
// words (mcp/calls.ts `fromWords`, through the command's own declaration), so nothing printed is read back, and a
// stored text that looks like a command is never taken for one.
import { shellQuote } from '../shell-quote.js';

/** A command's words after `lro`: its name, then its arguments and options as a shell passes them (`ID` for the id). */
export type Words = string[];

/** A command a descriptor names: its words and the line it prints. */
export interface NamedCommand {
  words: Words;
  line: string;
}

/** The line of a command's words: `lro` and each word quoted for a POSIX shell. */
export function wordsLine(words: Words): string {
  return ['lro', ...words.map(shellQuote)].join(' ');
}

/** A command of these words, with its line. */
export function named(words: Words): NamedCommand {
  return { words, line: wordsLine(words) };
}

/** Gives a command's line, and keeps the command among those the descriptor being built names. */
export type Say = (words: Words) => string;

/** The commands once each (by their line), in order. */
export function distinct(commands: Words[]): Words[] {
  const lines = commands.map(wordsLine);
  return commands.filter((_, i) => lines.indexOf(lines[i]) === i);
}

/** A kind's next command (its id the word `ID`) for the result `id`. */
export function withId(words: Words, id: string): Words {
  return words[1] === 'ID' ? [words[0], id, ...words.slice(2)] : words;
}
