// `lro init gemini`: the adapter the installer (installer.ts) runs for Gemini CLI: one settings file, the user's
// or the project's, with lro's AfterTool hook (the shell tool and MCP tools) and, on request, lro's MCP server
// (harness/gemini.ts edits them).
import { removalLine, scopeOf, type Adapter, type FileEdit, type InitOptions, type Outcome } from './installer.js';
import {
  geminiHookCommand,
  geminiSettingsPath,
  geminiVerifier,
  installHook,
  installMcp,
  mcpServer,
  TRUST_STEP,
  uninstallAll,
} from './gemini.js';

/** The one file `lro init gemini` edits, and what it says afterwards. */
export function geminiAdapter(o: InitOptions, env: NodeJS.ProcessEnv): Adapter {
  const scope = scopeOf(o);
  const shown = geminiSettingsPath(scope, env, '.');
  const command = geminiHookCommand();
  const server = mcpServer();
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
  return { edits: [edit], report: ([outcome]) => report(outcome, shown, !!o.mcp, undo) };
}

function report(outcome: Outcome, shown: string, mcp: boolean, undo: string): string {
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
      return `${what}\nGemini CLI runs hooks only in trusted folders: ${TRUST_STEP}\n` +
        `check it: lro doctor gemini; undo it: ${undo}\n`;
    }
  }
}
