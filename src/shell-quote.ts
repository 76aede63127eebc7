// Quoting for commands printed to be run as is in a POSIX shell.

/** The word as a shell sees it: bare when safe, else in single quotes. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_\-.,:/=@%+]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
