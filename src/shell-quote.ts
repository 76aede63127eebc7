// Quoting for commands printed to be run as is in a POSIX shell.

/** The word as a shell sees it: bare when safe, else in single quotes. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_\-.,:/=@%+]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

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
