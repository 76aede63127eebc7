// THE command table: every command lro has that works on the store, in the order the help lists them. Each is
// one module declaring the command (command.ts) and loaded only when needed: start-up is paid on every agent tool
// call, and most commands need little of the rest. The faces read this table: the CLI (cli.ts), completion and
// the man page (faces/), and the MCP tools (mcp/). A new command is one module and one line here.
import type { CommandDef } from './command.js';
import type { HookCommand } from '../harness/harness.js';

/** A command of the table: its name, and its declaration, loaded on demand. */
export interface TableEntry {
  name: string;
  load: () => Promise<CommandDef>;
  /** For scripts, not people: left out of the help, the completion and the man page. */
  hidden?: boolean;
}

/** A harness's hook as a command: hidden, no options, its input on stdin. */
const hook = (h: HookCommand): CommandDef<Record<string, never>> => ({ ...h, options: [], hidden: true, run: (_o, io) => h.run(io) });

export const TABLE: TableEntry[] = [
  { name: 'offload', load: async () => (await import('./offload.js')).offloadCommand },
  { name: 'run', load: async () => (await import('./run.js')).runCommand },
  { name: 'read', load: async () => (await import('./read.js')).readCommand },
  { name: 'grep', load: async () => (await import('./grep.js')).grepCommand },
  { name: 'jq', load: async () => (await import('./jq.js')).jqCommand },
  { name: 'where', load: async () => (await import('./where.js')).whereCommand },
  { name: 'count', load: async () => (await import('./count.js')).countCommand },
  { name: 'diff', load: async () => (await import('./diff.js')).diffCommand },
  { name: 'cat', load: async () => (await import('./cat.js')).catCommand },
  { name: 'info', load: async () => (await import('./info.js')).infoCommand },
  { name: 'ls', load: async () => (await import('./ls.js')).lsCommand },
  { name: 'gc', load: async () => (await import('./gc.js')).gcCommand },
  { name: 'init', load: async () => (await import('./init.js')).initCommand },
  { name: 'doctor', load: async () => (await import('./doctor.js')).doctorCommand },
  { name: '__shell-output', load: async () => (await import('./shell-output.js')).shellOutputCommand, hidden: true },
  { name: '__resident', load: async () => (await import('./resident.js')).residentCommand, hidden: true },
  { name: '__claude-code-hook', load: async () => hook((await import('../harness/claude-code/hook.js')).claudeHook), hidden: true },
  { name: '__codex-hook', load: async () => hook((await import('../harness/codex/hook.js')).codexHook), hidden: true },
  { name: '__gemini-hook', load: async () => hook((await import('../harness/gemini/hook.js')).geminiHook), hidden: true },
  { name: '__complete-ids', load: async () => (await import('./complete-ids.js')).completeIdsCommand, hidden: true },
];

/** The declaration of a command of the table, by name. */
export async function loadCommand(name: string): Promise<CommandDef | undefined> {
  return TABLE.find((e) => e.name === name)?.load();
}
