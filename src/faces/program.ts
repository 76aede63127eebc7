// The whole program as the CLI shows it: the command table's commands, then the two faces that are commands too
// (completion, which reads all of them, and mcp, which serves the table's commands as tools), with the program's
// own description and examples.
import type { CommandDef } from '../commands/command.js';
import { TABLE, type TableEntry } from '../commands/table.js';
import { completionCommand } from './completion.js';
import LRO_HELP from 'help:lro';

export const PROGRAM = {
  name: 'lro',
  description: 'Large result offloading: small output passes through; large output becomes a stored result you can grep, jq and read.',
  examples: [
    'some-command | lro offload            small output passes, large output is stored and described',
    'lro run -- npm test                   the same for a command, keeping its exit status',
    'lro cat ID > original.txt             the exact original back',
    "lro where ID status=error 'ms>500'     records where every condition holds",
    'lro count ID --by status              records per value, most frequent first',
    'lro info ID                           the descriptor again',
    'lro ls                                stored results, newest first',
    'lro gc --max-total-size 2GB           remove expired results (cron: */15 * * * * lro gc --max-total-size 2GB)',
  ],
  notes: LRO_HELP,
};

/** The program's commands by name, in the order the help lists them (hidden ones last), each loaded on demand. */
export const COMMANDS: TableEntry[] = [
  ...TABLE.filter((e) => !e.hidden),
  { name: 'completion', load: async () => completionCommand(allCommands) },
  { name: 'mcp', load: async () => (await import('./mcp-command.js')).mcpCommand },
  ...TABLE.filter((e) => e.hidden),
];

/** Every command's declaration, in order. */
export async function allCommands(): Promise<CommandDef[]> {
  return Promise.all(COMMANDS.map((c) => c.load()));
}
