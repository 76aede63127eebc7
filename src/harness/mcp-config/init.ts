// `lro init cursor | vscode | claude-desktop | opencode`: the adapter init.ts runs for the harnesses configured by an
// MCP server list (mcp-config/settings.ts): the one file to edit, and what to tell the user afterwards.
import { UsageError } from '../../errors.js';
import { readSettings, realFile } from '../settings-file.js';
import { removalLine, type Adapter, type Outcome } from '../installer.js';
import { portableWarning } from '../portable.js';
import {
  installMcpConfig,
  lroArgv,
  mcpConfigPath,
  mcpConfigVerifier,
  mcpTitle,
  survey,
  uninstallMcpConfig,
  type McpHarness,
  type McpScope,
} from './settings.js';
import { resolve } from 'node:path';

export interface McpInitOptions {
  user?: boolean;
  project?: boolean;
  wrap?: boolean;
  uninstall?: boolean;
  mcp?: boolean;
  restore?: boolean;
}

/** Why a remote server is left as it is (said once in the report). */
export const REMOTE_NOTE =
  "the harness connects to them itself, with its own sign-in, which lro's proxy would take over";

export function mcpConfigAdapter(
  h: McpHarness,
  o: McpInitOptions,
  env: NodeJS.ProcessEnv,
): Adapter {
  if (o.mcp) throw new UsageError(`--mcp is for codex: lro init ${h} always registers lro's MCP server`);
  if (o.user && o.project) throw new UsageError('--user and --project cannot be used together: choose one');
  const scope: McpScope = o.project ? 'project' : 'user';
  const shown = mcpConfigPath(h, scope, env);
  if (!shown) throw new UsageError(`--project is not for ${h}: ${mcpTitle(h)} has one settings file per user`);
  // a project's file is shared by a team: wrapping its servers would take them from a teammate without lro
  // (`lro mcp proxy` not found: the server does not start), and no form of the entry steps aside in every harness
  if (o.wrap && scope === 'project' && !o.uninstall && !o.restore) {
    throw new UsageError(
      `--wrap is for user settings: ${shown} is shared, and a teammate without lro would lose the servers wrapped ` +
        `there; lro init ${h} --wrap wraps the servers of your own file (the project's file is left untouched)`,
    );
  }
  const wrap = !!o.wrap;
  const lro = lroArgv(scope);
  const undo = `lro init ${h}${scope === 'project' ? ' --project' : ''} --uninstall`;
  return {
    edits: [
      {
        shown,
        verify: mcpConfigVerifier(h, wrap, lro),
        install: (t) => installMcpConfig(h, t, shown, wrap, lro),
        uninstall: (t) => uninstallMcpConfig(h, t, shown),
      },
    ],
    warnings() {
      if (scope !== 'project') return [];
      const line = portableWarning(['lro'], env, `${mcpTitle(h)} cannot start lro's MCP server`);
      return line ? [line] : [];
    },
    report([outcome]) {
      if (o.uninstall) return `${uninstallLine(outcome, shown)}\n`;
      const s = survey(h, readSettings(realFile(resolve(shown))) ?? '');
      const lines = [
        outcome === 'unchanged'
          ? `lro: already installed in ${shown}: nothing to change (lro doctor ${h} checks it works)`
          : `lro: lro's MCP server registered in ${shown} (entry "lro": lro mcp)`,
      ];
      if (scope === 'project') {
        lines.push(
          "lro: the entry names lro by PATH (\"command\": \"lro\"), no path of this machine: the file can be committed",
        );
      }
      if (s.wrapped.length) lines.push(`lro: behind lro's proxy, large results offloaded: ${s.wrapped.join(', ')}`);
      if (s.unwrapped.length) {
        const why =
          scope === 'project'
            ? "a project's servers are not wrapped: a teammate without lro would lose them"
            : `lro init ${h} --wrap puts them there`;
        lines.push(`lro: not behind lro's proxy: ${s.unwrapped.join(', ')} (${why})`);
      }
      if (s.remote.length) lines.push(`lro: left as they are: ${s.remote.join(', ')} (remote: ${REMOTE_NOTE})`);
      lines.push(`restart ${mcpTitle(h)} to load it; check it: lro doctor ${h}; undo it: ${undo}`);
      return `${lines.join('\n')}\n`;
    },
  };
}

function uninstallLine(outcome: Outcome, shown: string): string {
  return removalLine(outcome, shown, "lro's server, and lro's proxy from your servers");
}
