// The script Claude Code 2.1.328 hands its shell prefix for a Bash call (its snapshot and setup steps shortened),
// quoted as it quotes the command (its `quote`: a bare word when every character is safe, else single quotes with a
// quote written `'"'"'`), with ` < /dev/null` unless the command has a heredoc or a `<` redirect of its own.

/** Claude Code's quoting of one word. */
export function claudeQuote(s: string): string {
  if (s === '') return "''";
  if (/^[A-Za-z0-9_./:@+,-][A-Za-z0-9_./:=@+,-]*$/.test(s)) return s;
  return `'${s.replace(/'/g, `'"'"'`)}'`;
}

/** Whether Claude Code leaves out ` < /dev/null` (a heredoc, or a `<` redirect of the command's own). */
const readsOwnInput = (command: string) => /<</.test(command) || /(?:^|[\s;&|])<(?![<(])\s*\S+/.test(command);

/** The script for `command`, with `cwdFile` as the file its cwd tracking writes. */
export function claudeScript(command: string, cwdFile: string, snapshot = '/nonexistent/snapshot-bash-1.sh'): string {
  const evalStep = `eval ${claudeQuote(command)}${readsOwnInput(command) ? '' : ' < /dev/null'}`;
  return [`source ${claudeQuote(snapshot)} 2>/dev/null || true`, evalStep, `pwd -P >| ${claudeQuote(cwdFile)}`].join(' && ');
}
