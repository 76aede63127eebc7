// `lro init codex`: the adapter harness/installer.ts runs. hooks.json gets lro's PreToolUse group (the shell tool's
// commands rewritten through lro's shell prefix); with --mcp, config.toml gets [mcp_servers.lro]; --uninstall takes
// both out. What it tells the user ends with the trust step Codex needs before it runs a new hook.
import { join } from 'node:path';
import { UsageError } from '../../errors.js';
import { removalLine, type Adapter, type FileEdit, type InitOptions } from '../installer.js';
import {
  codexHome,
  codexHooksVerifier,
  codexHookCommand,
  codexTomlVerifier,
  installHooks,
  installMcp,
  mcpTable,
  TRUST_STEP,
  uninstallHooks,
  uninstallMcp,
} from './settings.js';

export function codexAdapter(o: InitOptions, env: NodeJS.ProcessEnv): Adapter {
  if (o.project) {
    throw new UsageError('--project is for claude-code and gemini: lro init codex edits $CODEX_HOME (or ~/.codex)');
  }
  const home = codexHome(env);
  const hooks = join(home, 'hooks.json');
  const config = join(home, 'config.toml');
  const command = codexHookCommand();
  const table = mcpTable();
  const edits: FileEdit[] = [
    {
      shown: hooks,
      verify: codexHooksVerifier(command),
      install: (t) => installHooks(t, command, hooks),
      uninstall: (t) => uninstallHooks(t, hooks),
    },
  ];
  // uninstall takes lro's MCP server out whether or not --mcp is given: nothing of lro's is left behind
  if (o.mcp || o.uninstall || o.restore) {
    edits.push({
      shown: config,
      verify: codexTomlVerifier(table),
      install: (t) => installMcp(t, table, config),
      uninstall: (t) => uninstallMcp(t, config),
    });
  }
  return {
    edits,
    report(outcomes) {
      const lines: string[] = [];
      const [hook, mcp] = outcomes;
      if (o.uninstall) {
        for (const [i, outcome] of outcomes.entries()) {
          const shown = edits[i].shown;
          if (outcome === 'restored' || outcome === 'removed' || i === 0) lines.push(removalLine(outcome, shown));
        }
        return `${lines.join('\n')}\n`;
      }
      lines.push(
        hook === 'unchanged'
          ? `lro: already installed in ${hooks}: nothing to change (lro doctor codex checks it works)`
          : `lro: installed in ${hooks}: shell commands run through lro's shell prefix (PreToolUse hook, ^Bash$)`,
      );
      if (mcp === 'installed') lines.push(`lro: lro's MCP server registered in ${config} ([mcp_servers.lro])`);
      else if (mcp === 'unchanged') lines.push(`lro: lro's MCP server already registered in ${config}`);
      lines.push(`trust it: ${TRUST_STEP}`);
      lines.push('check it: lro doctor codex; undo it: lro init codex --uninstall');
      return `${lines.join('\n')}\n`;
    },
  };
}
