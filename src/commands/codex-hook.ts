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
// `permissionDecision: "allow"` is only what Codex requires to accept `updatedInput`; it does not skip approval
// (codex-rs/core/src/hook_runtime.rs turns the hook's answer into Continue { updated_input } and nothing else).
//
// Any failure (input that is not a shell call, no command) prints nothing and exits 0: the command runs unchanged.
import { join } from 'node:path';
import type { CommandDef } from './command.js';
import type { IO } from '../io.js';
import { shellQuote } from '../describe/shell.js';
import { binDir } from '../harness/claude-code.js';

/** The marker the prefix recognises a Codex command by (and the hook an already rewritten command by). */
export const WRAP_VARIABLE = 'LRO_SHELL_PREFIX_WRAP';

/**
 * Whether Codex's dangerous-command check could flag `command` (rm with -f/-r, git reset/rm/clean/push/branch,
 * sudo): such a command is not rewritten, so Codex sees it as the model wrote it.
 */
export function mightBeDangerous(command: string): boolean {
  return /(^|[^\w./-])(rm|sudo|doas|git)(?=\s|$)/.test(command);
}

/** The command rewritten to run through lro's shell prefix, with lro's Node by absolute path. */
export function wrapCommand(command: string, nodePath = process.execPath, bin = binDir()): string {
  return `LRO_NODE=${shellQuote(nodePath)} ${WRAP_VARIABLE}=codex ${shellQuote(join(bin, 'lro-shell-prefix'))} ${shellQuote(command)}`;
}

interface HookInput {
  hook_event_name?: string;
  tool_name?: string;
  tool_input?: { command?: unknown };
}

/** The hook's answer for one input, or null to leave the call as it is. */
export function answer(input: HookInput): object | null {
  const command = input.tool_input?.command;
  if (input.tool_name !== 'Bash' || typeof command !== 'string' || command.trim() === '') return null;
  if (command.includes(`${WRAP_VARIABLE}=`) || mightBeDangerous(command)) return null;
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'allow',
      updatedInput: { ...input.tool_input, command: wrapCommand(command) },
    },
  };
}

export async function runCodexHook(io: IO): Promise<number> {
  const chunks: Buffer[] = [];
  for await (const c of io.stdin) chunks.push(Buffer.from(c));
  let input: HookInput;
  try {
    input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as HookInput;
  } catch {
    return 0;
  }
  const out = answer(input);
  if (out) await io.stdout.write(`${JSON.stringify(out)}\n`);
  return 0;
}

/** The hidden `lro __codex-hook` Codex runs before each shell command. */
export const codexHookCommand: CommandDef<Record<string, never>> = {
  name: '__codex-hook',
  description: "Codex's PreToolUse hook: runs each shell command through lro's shell prefix (lro init codex installs it)",
  options: [],
  examples: ['lro __codex-hook < hook-input.json'],
  hidden: true,
  run: (_o, io) => runCodexHook(io),
};
