// Reading back a printed command: the words of a line as shellQuote writes them, for tests that check a printed
// `lro …` line is the command its value makes (lro itself reads no printed command: mcp/calls.ts `fromWords`).
import type { CallReader, ToolCall } from '../../src/mcp/calls.js';

/**
 * The words of a command line as shellQuote writes them (bare words and single-quoted parts, joined when they
 * touch), so a printed command can be read back; null for anything else a shell would treat specially (a
 * redirection, a pipe, a variable, double quotes), which no simple command lro prints contains.
 */
export function shellWords(line: string): string[] | null {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === ' ' || c === '\t') {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return null;
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '\\' && line[i + 1] === "'") {
      word = `${word ?? ''}'`;
      i++;
    } else if (/[|&;<>()$`"\\*?[\]{}~#\n]/.test(c)) {
      return null;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

/** The tool call of a printed `lro …` line, read back by its words; null when it is not one. */
export async function callOfLine(calls: CallReader, line: string): Promise<ToolCall | null> {
  const words = shellWords(line.trim());
  return words && words[0] === 'lro' && words.length > 1 ? calls.fromWords(words.slice(1)) : null;
}
