// What lro knows of one agent harness: how `lro doctor` finds it on this machine and checks it, and how `lro init`
// edits its settings. Each harness is a folder of its own (harness/claude-code/, codex/, gemini/, and mcp-config/
// for the ones configured by an MCP server list alone) whose index.ts makes one of these; harness/list.ts lists
// them, and `lro init`, `lro doctor` and their choices are made from that list.
import type { Check } from './check.js';
import type { IO } from '../io.js';
import type { Adapter, InitOptions } from './installer.js';

/** What `lro doctor` knows of one harness. */
export interface HarnessDoctor {
  name: string;
  label: string;
  /** What shows the harness is on this machine (its binary on PATH, its settings folder), or null. */
  found(env: NodeJS.ProcessEnv): string | null;
  checks(env: NodeJS.ProcessEnv): Check[] | Promise<Check[]>;
}

/** A harness: its doctor, the command it is started by, and the adapter `lro init` runs. */
export interface Harness extends HarnessDoctor {
  /** The command the harness is started by, named when it is missing (null: an app without one). */
  command: string | null;
  /** The files `lro init` edits for these options, and what it tells the user. */
  adapter(o: InitOptions, env: NodeJS.ProcessEnv): Adapter;
}

/**
 * A harness's hook as the hidden command its settings run (`lro __NAME-hook`, input on stdin): commands/table.ts
 * makes it a command of the table (no options, hidden).
 */
export interface HookCommand {
  name: string;
  description: string;
  examples: string[];
  run(io: IO): Promise<number>;
}
