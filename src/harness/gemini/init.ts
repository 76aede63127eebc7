// `lro init gemini`: the adapter the installer (installer.ts) runs for Gemini CLI: one settings file, the user's
// or the project's, with lro's AfterTool hook (the shell tool and MCP tools) and, on request, lro's MCP server
// (gemini/settings.ts edits them). A project's file names lro by PATH; init writes it whether or not lro is on this
// PATH (the file is right for the team) and says on stderr when it is not, and what to run.
import { removalLine, scopeOf, type Adapter, type FileEdit, type InitOptions, type Outcome } from '../installer.js';
import {
  geminiHookCommand,
  geminiSettingsPath,
  geminiVerifier,
  HOOK_BIN,
  installHook,
  installMcp,
  mcpServer,
  TRUST_STEP,
  uninstallAll,
} from './settings.js';
import { portableWarning } from '../portable.js';

/** The one file `lro init gemini` edits, and what it says afterwards. */
export function geminiAdapter(o: InitOptions, env: NodeJS.ProcessEnv): Adapter {
  const scope = scopeOf(o);
  const shown = geminiSettingsPath(scope, env, '.');
  // a project's file is shared: lro named by PATH, no path of this machine (harness/portable.ts)
  const command = geminiHookCommand(scope);
  const server = mcpServer(scope);
  const edit: FileEdit = {
    shown,
    verify: geminiVerifier(command, o.mcp ? server : null),
    install: (t) => {
      const hooked = installHook(t, command, shown);
      return o.mcp ? installMcp(hooked, server, shown) : hooked;
    },
    // uninstall takes lro's MCP server out whether or not --mcp is given: nothing of lro's is left behind
    uninstall: (t) => uninstallAll(t, shown),
  };
  const undo = `lro init gemini${scope === 'project' ? ' --project' : ''} --uninstall`;
  const warnings = (): string[] => {
    if (scope !== 'project') return [];
    const names = o.mcp ? [HOOK_BIN, 'lro'] : [HOOK_BIN];
    const effect = o.mcp ? "Gemini CLI's hook steps aside and lro's MCP server does not start" : "Gemini CLI's hook steps aside";
    const line = portableWarning(names, env, effect);
    return line ? [line] : [];
  };
  return { edits: [edit], report: ([outcome]) => report(outcome, shown, !!o.mcp, undo, scope === 'project'), warnings };
}

function report(outcome: Outcome, shown: string, mcp: boolean, undo: string, project: boolean): string {
  switch (outcome) {
    case 'restored':
    case 'removed':
    case 'absent':
      return `${removalLine(outcome, shown)}\n`;
    default: {
      const server = mcp ? "; lro's MCP server registered (mcpServers.lro)" : '';
      const what =
        outcome === 'unchanged'
          ? `lro: already installed in ${shown}: nothing to change (lro doctor gemini checks it works)`
          : `lro: installed in ${shown}: a shell command's large output and an MCP tool's large result are stored ` +
            `whole and the model gets the descriptor (AfterTool hook, matchers run_shell_command and ^mcp_)${server}`;
      const shared = project
        ? `lro: the file names lro by PATH (${HOOK_BIN}${mcp ? ', lro' : ''}), no path of this machine: it can be ` +
          'committed; where lro is not installed the hook steps aside\n'
        : '';
      return `${what}\n${shared}Gemini CLI runs hooks only in trusted folders: ${TRUST_STEP}\n` +
        `check it: lro doctor gemini; undo it: ${undo}\n`;
    }
  }
}
