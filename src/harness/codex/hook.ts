// `lro __codex-hook`: Codex's PreToolUse hook for the shell tool (`lro init codex` installs it, matcher ^Bash$).
// Codex keeps only ~10 KB of a command's output and saves nothing, and a PostToolUse hook sees only those 10 KB:
// the whole output can only be caught while the command runs. So the hook rewrites the command to run through
// lro's shell prefix (bin/lro-shell-prefix): small output comes back unchanged, a large or failing one is stored
// whole and the model gets the descriptor under Codex's own `Process exited with code N` header (the prefix exits
// with the command's status).
//
// The rewrite must not let anything run that would otherwise have needed the user's approval. Codex judges the
// command it will run, i.e. the rewritten one: its approval policy (`untrusted` asks for anything not known to be
// safe, and lro's wrapper never is), its sandbox, and its dangerous-command check, which looks inside `bash -lc`
// for `rm -f`, `git reset` and the like only when the script is plain words. Inside lro's wrapper the original
// command is one quoted word, so that check would no longer see it: a command it might flag is left as it is.
// The user's own exec-policy rules ($CODEX_HOME/rules/*.rules, a project's .codex/rules/*.rules) are matched
// against the command's words the same way: a command holding a word that a `prompt` or `forbidden` rule starts
// with is left as it is too (seen in Codex 0.169.0: a forbidden `touch` rule did not stop `touch` once wrapped).
// `permissionDecision: "allow"` is only what Codex requires to accept `updatedInput`; it does not skip approval
// (codex-rs/core/src/hook_runtime.rs turns the hook's answer into Continue { updated_input } and nothing else).
//
// A call with a terminal (`tty: true`: an interactive program the model will talk to with write_stdin) is left
// as it is: through the prefix its output would go to a file, not a terminal. The hook's input holds only the
// command, so `tty` is read from the session's transcript, where Codex has written the call before the hook runs.
//
// Any failure (input that is not a shell call, no command) prints nothing and exits 0: the command runs unchanged.
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { dirname, join as joinPath } from 'node:path';
import type { HookCommand } from '../harness.js';
import type { IO } from '../../io.js';
import { shellQuote } from '../../shell-quote.js';
import { binDir } from '../lro-bin.js';
import { codexHome } from './settings.js';
import { ensureResident, prefixFolder } from '../resident-start.js';

/** The marker the prefix recognises a Codex command by (and the hook an already rewritten command by). */
export const WRAP_VARIABLE = 'LRO_SHELL_PREFIX_WRAP';

/**
 * Whether Codex's dangerous-command check could flag `command` (rm with -f/-r, git reset/rm/clean/push/branch,
 * sudo): such a command is not rewritten, so Codex sees it as the model wrote it.
 */
export function mightBeDangerous(command: string): boolean {
  if (/(^|[^\w.-])(rm|sudo|doas)(?=\s|$)/.test(command)) return true;
  return /(^|[^\w.-])git\b[^;&|\n]*\s(reset|rm|clean|push|branch)(?=\s|$)/.test(command);
}

/** The .rules files Codex reads for a session in `cwd`: $CODEX_HOME/rules, and .codex/rules up from `cwd`. */
function rulesFiles(codexHome: string, cwd: string | undefined): string[] {
  const dirs = [joinPath(codexHome, 'rules')];
  for (let d = cwd; d && d !== dirname(d); d = dirname(d)) dirs.push(joinPath(d, '.codex', 'rules'));
  const files: string[] = [];
  for (const dir of dirs) {
    try {
      for (const f of readdirSync(dir)) if (f.endsWith('.rules')) files.push(joinPath(dir, f));
    } catch {
      // no rules there
    }
  }
  return files;
}

/**
 * The words a user's `prompt` or `forbidden` rule starts with (a rule without a decision counts too; an `allow`
 * rule does not). null when a rules file holds a rule lro cannot read: then no command is rewritten.
 */
export function guardedWords(rules: string[]): Set<string> | null {
  const words = new Set<string>();
  for (const text of rules) {
    for (const call of text.split(/\bprefix_rule\s*\(/).slice(1)) {
      if (/\bdecision\s*=\s*["']allow["']/.test(call)) continue;
      const first = /\bpattern\s*=\s*\[\s*(\[[^\]]*\]|"[^"]*"|'[^']*')/.exec(call);
      if (!first) return null;
      for (const m of first[1].matchAll(/"([^"]*)"|'([^']*)'/g)) words.add(m[1] ?? m[2]);
    }
  }
  return words;
}

/** Whether a user's rule could match `command` (any word of it, by name or by path). */
function guarded(command: string, words: Set<string> | null): boolean {
  if (words === null) return true;
  if (words.size === 0) return false;
  return command.split(/[\s;&|()<>`'"]+/).some((w) => words.has(w) || words.has(w.slice(w.lastIndexOf('/') + 1)));
}

/** The command rewritten to run through lro's shell prefix, with lro's Node by absolute path. */
export function wrapCommand(command: string, nodePath = process.execPath, bin = binDir()): string {
  const prefix = shellQuote(joinPath(bin, 'lro-shell-prefix'));
  return `LRO_NODE=${shellQuote(nodePath)} ${WRAP_VARIABLE}=codex ${prefix} ${shellQuote(command)}`;
}

/** How much of the transcript's end is searched for the call (the call was written just before the hook ran). */
const TRANSCRIPT_TAIL = 4 * 1024 * 1024;

/** Whether the transcript shows call `callId` asking for a terminal (`"tty": true`); false when it cannot tell. */
export function wantsTerminal(transcript: string, callId: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(transcript, 'r');
    const size = fstatSync(fd).size;
    const length = Math.min(size, TRANSCRIPT_TAIL);
    const buf = Buffer.alloc(length);
    readSync(fd, buf, 0, length, size - length);
    const needle = JSON.stringify(callId);
    for (const line of buf.toString('utf8').split('\n').reverse()) {
      if (!line.includes(needle) || !line.includes('function_call')) continue;
      const item = (JSON.parse(line) as { payload?: { type?: string; call_id?: string; arguments?: string } }).payload;
      if (item?.type !== 'function_call' || item.call_id !== callId || typeof item.arguments !== 'string') continue;
      return (JSON.parse(item.arguments) as { tty?: unknown }).tty === true;
    }
  } catch {
    // no transcript, or not one lro can read: as without a terminal
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return false;
}

interface HookInput {
  hook_event_name?: string;
  cwd?: string;
  transcript_path?: string;
  tool_use_id?: string;
  tool_name?: string;
  tool_input?: { command?: unknown };
}

/** The hook's answer for one input, or null to leave the call as it is. */
export function answer(input: HookInput, rules: string[] = []): object | null {
  const command = input.tool_input?.command;
  if (input.tool_name !== 'Bash' || typeof command !== 'string' || command.trim() === '') return null;
  if (command.includes(`${WRAP_VARIABLE}=`) || mightBeDangerous(command)) return null;
  if (guarded(command, guardedWords(rules))) return null;
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'allow',
      updatedInput: { ...input.tool_input, command: wrapCommand(command) },
    },
  };
}

/** What the hook prints for the input text (its JSON answer and a newline, or nothing), with CODEX_HOME from env. */
export function codexHookOutput(text: string, env: NodeJS.ProcessEnv): string {
  let input: HookInput;
  try {
    input = JSON.parse(text) as HookInput;
  } catch {
    return '';
  }
  if (input === null || typeof input !== 'object') return '';
  const files = rulesFiles(codexHome(env), typeof input.cwd === 'string' ? input.cwd : undefined);
  const rules = files.map((f) => {
    try {
      return readFileSync(f, 'utf8');
    } catch {
      return 'prefix_rule(?)'; // unreadable: taken as a rule lro cannot read
    }
  });
  const tty = typeof input.transcript_path === 'string' && typeof input.tool_use_id === 'string' &&
    wantsTerminal(input.transcript_path, input.tool_use_id);
  const out = tty ? null : answer(input, rules);
  return out ? `${JSON.stringify(out)}\n` : '';
}

export async function runCodexHook(io: IO): Promise<number> {
  const chunks: Buffer[] = [];
  for await (const c of io.stdin) chunks.push(Buffer.from(c));
  const out = codexHookOutput(Buffer.concat(chunks).toString('utf8'), io.env);
  if (out) await io.stdout.write(out);
  // the next call's hook (bin/lro-hook) asks the resident helper instead of starting Node
  const spool = prefixFolder(io.env);
  if (spool) ensureResident(spool, io.env);
  return 0;
}

/** The hidden `lro __codex-hook` Codex runs before each shell command. */
export const codexHook: HookCommand = {
  name: '__codex-hook',
  description: "Codex's PreToolUse hook: each shell command runs through lro's shell prefix (lro init codex)",
  examples: ['lro __codex-hook < hook-input.json'],
  run: (io) => runCodexHook(io),
};
