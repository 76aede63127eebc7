// The harnesses configured by an MCP server list alone (Cursor, VS Code, Claude Desktop, opencode): one row each
// of the table in settings.ts; lro's server (and, with --wrap, the user's servers behind lro's proxy) added by
// init.ts; checked by doctor.ts.
import type { Harness } from '../harness.js';
import { mcpConfigChecks, mcpConfigFound } from './doctor.js';
import { mcpConfigAdapter } from './init.js';
import { MCP_HARNESSES, mcpTitle, type McpHarness } from './settings.js';

/** The command each is started by, named when it is missing (null: an app without one). */
const COMMANDS: Record<McpHarness, string | null> = { cursor: 'cursor', vscode: 'code', 'claude-desktop': null, opencode: 'opencode' };

export const mcpConfigHarnesses: Harness[] = MCP_HARNESSES.map((h) => ({
  name: h,
  label: mcpTitle(h),
  command: COMMANDS[h],
  found: (env) => mcpConfigFound(h, env),
  checks: (env) => mcpConfigChecks(h, env),
  adapter: (o, env) => mcpConfigAdapter(h, o, env),
}));
