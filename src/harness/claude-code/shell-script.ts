// The command inside the script Claude Code hands its shell prefix for a Bash tool call: its snapshot and setup,
// joined by ` && `, then `eval <the command, quoted>` (with ` < /dev/null` unless the command reads its own input),
// then ` && pwd -P >| <cwd file>`. Claude Code quotes the command in one of three ways: in single quotes with a
// quote written `'"'"'` (a heredoc), by shell-quote (single quotes; double quotes with `\"`, `\\`, `\$`, `` \` ``,
// `\!`; or a bare word with backslashes), or otherwise. The word is read here as bash reads it, so what is shown
// is what `eval` ran: exact for any of them, and the whole script (never a garbled piece) when it is not there.

/** One shell word read from `text` at `at` as bash reads it (quotes removed): its value and where it ends. */
export function readShellWord(text: string, at: number): { value: string; end: number } | null {
  let value = '';
  let i = at;
  while (i < text.length) {
    const c = text[i];
    if (c === "'") {
      const close = text.indexOf("'", i + 1);
      if (close < 0) return null;
      value += text.slice(i + 1, close);
      i = close + 1;
    } else if (c === '"') {
      i++;
      for (;;) {
        if (i >= text.length) return null;
        const d = text[i];
        if (d === '"') break;
        // inside double quotes a backslash escapes only $ ` " \ and a newline (which it removes)
        if (d === '\\' && i + 1 < text.length && '$`"\\\n'.includes(text[i + 1])) {
          if (text[i + 1] !== '\n') value += text[i + 1];
          i += 2;
        } else if (d === '$' || d === '`') return null; // an expansion: not a literal word
        else {
          value += d;
          i++;
        }
      }
      i++;
    } else if (c === '\\') {
      if (i + 1 >= text.length) return null;
      if (text[i + 1] !== '\n') value += text[i + 1];
      i += 2;
    } else if (/[\s;&|<>()]/.test(c)) break;
    else if (c === '$' || c === '`' || (c === '~' && i === at)) return null; // an expansion (a leading ~ too): not a literal word
    else {
      value += c;
      i++;
    }
  }
  return i === at ? null : { value, end: i };
}

/**
 * The command a Claude Code Bash call ran, read from the script its shell prefix got; null when the script is not
 * of that shape (then the caller shows the script itself).
 */
export function commandOfClaudeScript(script: string): string | null {
  const tail = script.lastIndexOf(' && pwd -P >| ');
  if (tail < 0) return null;
  const body = script.slice(0, tail);
  // each `eval ` that starts a step; the first whose word runs to the end of the body is the command
  for (let at = body.indexOf('eval '); at >= 0; at = body.indexOf('eval ', at + 1)) {
    if (at !== 0 && !body.startsWith(' && ', at - 4)) continue;
    const word = readShellWord(body, at + 5);
    if (!word) continue;
    const rest = body.slice(word.end);
    if (rest === '' || rest === ' < /dev/null') return word.value;
  }
  return null;
}
