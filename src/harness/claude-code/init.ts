// `lro init claude-code`: the adapter the installer (installer.ts) runs for Claude Code: one settings file, the
// user's or the project's own (.claude/settings.local.json), with lro's shell prefix and MCP hook (claude-code.ts
// edits them); with --project, an earlier lro's entries are taken out of the shared .claude/settings.json.
import { UsageError } from '../../errors.js';
import {
  claudeVerifier,
  gitIgnored,
  install,
  installation,
  installedIn,
  settingsPath,
  sharedFileVerifier,
  sharedProjectSettingsPath,
  uninstall,
} from './settings.js';
import { removalLine, scopeOf, type Adapter, type FileEdit, type InitOptions } from '../installer.js';
import { readSettings } from '../settings-file.js';

/** The files `lro init claude-code` edits, and what it says afterwards. */
export function claudeCodeAdapter(o: InitOptions, env: NodeJS.ProcessEnv): Adapter {
  if (o.mcp) {
    throw new UsageError('--mcp is for codex and gemini: Claude Code gets its MCP hook from lro init claude-code');
  }
  const scope = scopeOf(o);
  const shown = settingsPath(scope, env, '.');
  const inst = installation();
  const edits: FileEdit[] = [
    {
      shown,
      verify: claudeVerifier(inst),
      install: (t) => install(t, inst, shown),
      uninstall: (t) => uninstall(t, shown),
    },
  ];
  // an earlier lro wrote --project into the shared .claude/settings.json: its entries come out of it (install and
  // uninstall alike); a shared file without them is not touched, nor read further
  const shared = sharedProjectSettingsPath('.');
  const sharedText = scope === 'project' ? readIfAny(shared) : null;
  const inShared = sharedText !== null && Object.keys(installedIn(sharedText)).length > 0;
  if (inShared) {
    edits.push({ shown: shared, verify: sharedFileVerifier(inst), install: (t) => uninstall(t, shared), uninstall: (t) => uninstall(t, shared) });
  }
  return {
    edits,
    // the local file names this machine's paths: it must not be committed
    warnings: () =>
      scope === 'project' && gitIgnored(shown) === false
        ? [`lro: warning: ${shown} is not ignored by git here, and it names this machine's paths: add it to .gitignore`]
        : [],
    report([outcome, sharedOutcome]) {
      const lines: string[] = [];
      const movedOut = sharedOutcome === 'installed' || sharedOutcome === 'removed' || sharedOutcome === 'restored';
      if (o.uninstall) {
        lines.push(removalLine(outcome, shown));
        if (movedOut) lines.push(removalLine(sharedOutcome, shared, 'an earlier lro\'s entries'));
        return `${lines.join('\n')}\n`;
      }
      if (outcome === 'unchanged') lines.push(`lro: already installed in ${shown}: nothing to change (lro doctor checks it works)`);
      else {
        lines.push(
          `lro: installed in ${shown}: Bash calls run through lro's shell prefix ` +
            `(env.CLAUDE_CODE_SHELL_PREFIX), large MCP results go through lro's PostToolUse hook (mcp__.*)`,
        );
      }
      if (movedOut) {
        lines.push(
          `lro: took an earlier lro's entries out of ${shared}: that file is shared with the project, and they name ` +
            `this machine's paths (${shown} is this machine's own)`,
        );
      }
      lines.push(`check it: lro doctor claude-code; undo it: lro init claude-code${scope === 'project' ? ' --project' : ''} --uninstall`);
      return `${lines.join('\n')}\n`;
    },
  };
}

/** A file's text, or null when there is none (or it cannot be read: the edit of it then is not attempted). */
function readIfAny(path: string): string | null {
  try {
    return readSettings(path);
  } catch {
    return null;
  }
}
