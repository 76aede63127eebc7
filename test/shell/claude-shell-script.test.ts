// The command read back from the script Claude Code hands its shell prefix: every way it quotes a command, and
// random commands checked against bash's own reading of the same word.
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { commandOfClaudeScript, readShellWord } from '../../src/harness/claude-code/shell-script.js';
import { claudeScript } from '../helpers/claude-script.js';

/** shell-quote's `quote` (double quotes with backslashes, or bare with backslashes): another quoting to read. */
function shellQuote(s: string): string {
  if (s === '') return "''";
  if (/["\s\\]/.test(s) && !/'/.test(s)) return `'${s.replace(/(['])/g, '\\$1')}'`;
  if (/["'\s]/.test(s)) return `"${s.replace(/(["\\$`!])/g, '\\$1')}"`;
  return s.replace(/([A-Za-z]:)?([#!"$&'()*,:;<=>?@[\\\]^`{|}])/g, '$1\\$2');
}

const CWD = '/tmp/claude-1a2b-cwd';

describe('commandOfClaudeScript', () => {
  test.each([
    ["echo 'it' \"x\"; ls", 'quotes of both kinds'],
    ['ls', 'a bare word'],
    ['wc -l < /etc/passwd', 'a redirect of its own (no < /dev/null)'],
    ["cat <<'EOF'\nhello 'x'\nEOF", 'a heredoc'],
    ['echo a && eval b', 'a command holding && eval'],
    ['printf "%s\\n" $HOME `date` ~', 'expansions'],
    ["echo 'x && pwd -P >| y'", 'the tail inside the command'],
  ])('%s (%s)', (command) => {
    expect(commandOfClaudeScript(claudeScript(command, CWD))).toBe(command);
  });

  test('the cwd file in quotes, and shell-quote quoting of the command', () => {
    for (const command of ['ls -la', "echo 'it'", 'echo "$HOME" `x` !', 'a;b|c', '']) {
      const script = `source /x/snapshot-bash-1.sh 2>/dev/null || true && eval ${shellQuote(command)} < /dev/null && pwd -P >| '/tmp/my dir/cwd'`;
      expect(commandOfClaudeScript(script)).toBe(command);
    }
  });

  test('a script of another shape gives null (the caller shows it whole)', () => {
    expect(commandOfClaudeScript('echo hi')).toBeNull();
    expect(commandOfClaudeScript(`eval 'unclosed && pwd -P >| ${CWD}`)).toBeNull();
    expect(commandOfClaudeScript(`x && eval $(cmd) && pwd -P >| ${CWD}`)).toBeNull();
  });

  test('random commands: read back exactly, and as bash reads the same word', () => {
    const text = fc.string({ unit: fc.oneof(fc.constantFrom(...'\'"\\$`! \n\t;&|<>(){}*?#=~%'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })), maxLength: 40 });
    const words: string[] = [];
    fc.assert(
      fc.property(text, (command) => {
        expect(commandOfClaudeScript(claudeScript(command, CWD))).toBe(command);
        const quoted = shellQuote(command);
        const word = readShellWord(quoted, 0);
        if (word && word.end === quoted.length) words.push(quoted);
      }),
      { numRuns: 400, seed: 37 },
    );
    expect(words.length).toBeGreaterThan(100);
    // bash's reading of the words shell-quote made (NUL-separated), where ours read them whole
    const script = words.map((w) => `printf '%s\\0' ${w}`).join('\n');
    const bash = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
    const ours = words.map((w) => `${readShellWord(w, 0)!.value}\0`).join('');
    expect(bash.stdout).toBe(ours);
  });
});
