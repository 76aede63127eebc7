// `lro init <harness>`: wires lro into an agent harness's settings, or takes it out again (--uninstall), or shows
// the change (--dry-run), or puts back the files as they were before lro first edited them (--restore). One installer (harness/installer.ts) with a small adapter per harness: the files it
// edits and how (harness/<name>/), and what it tells the user. Each file is edited in
// place, atomically, and its original bytes are kept aside so that an uninstall with nothing else changed gives
// them back exactly.
import { dirname } from 'node:path';
import type { CommandDef } from './command.js';
import { LroError, UsageError } from '../errors.js';
import type { IO } from '../io.js';
import {
  apply,
  applyRestore,
  diffOf,
  EditRefused,
  plan,
  planRestore,
  restoreDiff,
  type Adapter,
  type InitOptions,
} from '../harness/installer.js';
import { isMcpHarness, MCP_HARNESSES } from '../harness/mcp-config/settings.js';
import { HARNESS_LIST, harnessNamed } from '../harness/list.js';
import INIT_HELP from 'help:init';

export const HARNESSES = HARNESS_LIST.map((h) => h.name);

export async function runInit(o: InitOptions, io: IO): Promise<number> {
  if (o.wrap && !isMcpHarness(o.harness)) {
    throw new UsageError(`--wrap is for ${MCP_HARNESSES.join(', ')}: ${o.harness} is not configured by an MCP list`);
  }
  const adapter = harnessNamed(o.harness)?.adapter(o, io.env);
  if (!adapter) throw new UsageError(`unknown harness '${o.harness}': lro init ${HARNESSES.join(' | ')}`);
  if (o.restore) return runRestore(o, adapter, io);
  const uninstalling = !!o.uninstall;
  if (!uninstalling && !o.project && !o.force) checkInstalled(o.harness, adapter.edits[0].shown, io.env);
  let planned;
  try {
    // every file is planned (and its edit checked) before any is written: a refusal leaves all of them untouched
    planned = adapter.edits.map((e) => plan(e, uninstalling, io.env));
  } catch (e) {
    if (e instanceof EditRefused) throw new LroError(e.message + restoreHint(o, adapter, io.env));
    throw e;
  }
  if (o.dryRun) {
    const diffs = planned.map((p) => diffOf(p) || `${p.edit.shown}: no change\n`);
    await io.stdout.write(diffs.join(''));
    return 0;
  }
  const outcomes = planned.map((p) => apply(p, uninstalling, io.env));
  await io.stdout.write(adapter.report(outcomes));
  const warnings = uninstalling ? [] : (adapter.warnings?.() ?? []);
  if (warnings.length) await io.stderr.write(warnings.map((w) => `${w}\n`).join(''));
  return 0;
}

/**
 * The user's settings of a harness that is not on this machine are not written (a tester's machine got a ~/.codex
 * and a ~/.cursor for harnesses it never had): what `lro doctor` takes as its sign must be there (its command on
 * PATH, its settings folder). --force writes them anyway (a harness installed later); --project files are the
 * project's, always written.
 */
function checkInstalled(harness: string, settings: string, env: NodeJS.ProcessEnv): void {
  const h = harnessNamed(harness);
  if (!h || h.found(env)) return;
  const command = h.command;
  const looked = command ? `no ${command} on PATH and no ${dirname(settings)}` : `no ${dirname(settings)}`;
  throw new LroError(
    `${harness} does not look installed here (${looked}): nothing written; install it first, or ` +
      `lro init ${harness} --force writes ${settings} anyway`,
  );
}

/** When lro kept an original of a file: how to get it back (said after a refusal). */
function restoreHint(o: InitOptions, adapter: Adapter, env: NodeJS.ProcessEnv): string {
  const kept = adapter.edits.some((e) => {
    try {
      return planRestore(e, env) !== null;
    } catch {
      return false;
    }
  });
  return kept ? `; or lro init --restore ${o.harness} puts back the file${adapter.edits.length > 1 ? 's' : ''} as before lro init` : '';
}

/** --restore: each file lro kept an original of gets it back, byte for byte, whatever happened since. */
async function runRestore(o: InitOptions, adapter: Adapter, io: IO): Promise<number> {
  if (o.uninstall) throw new UsageError('--restore and --uninstall cannot be used together: choose one');
  let planned;
  try {
    planned = adapter.edits.map((e) => planRestore(e, io.env)).filter((p) => p !== null);
  } catch (e) {
    if (e instanceof EditRefused) throw new LroError(e.message);
    throw e;
  }
  if (!planned.length) {
    const files = adapter.edits.map((e) => e.shown).join(', ');
    throw new LroError(
      `nothing to restore for ${o.harness}: lro kept no original of ${files} (lro init never changed it, or ` +
        '--uninstall or --restore already gave it back)',
    );
  }
  if (o.dryRun) {
    await io.stdout.write(planned.map((p) => restoreDiff(p) || `${p.edit.shown}: no change\n`).join(''));
    return 0;
  }
  const lines = planned.map((p) => {
    const kept = applyRestore(p, io.env);
    const what =
      p.record.original === null
        ? `lro: removed ${p.edit.shown}: there was no such file before lro init`
        : `lro: restored ${p.edit.shown}: byte for byte as it was before lro init`;
    return kept ? `${what} (its text until now is kept in ${kept})` : what;
  });
  await io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

/** `lro init`. */
export const initCommand: CommandDef<InitOptions> = {
  name: 'init',
  description:
    "wire lro into an agent harness's settings (Claude Code, Codex, Gemini CLI, Cursor, VS Code, Claude Desktop, " +
    'opencode): large and failing shell output and large MCP results reach the model as descriptors',
  arguments: [{ name: 'harness', description: 'the harness to wire lro into', choices: HARNESSES }],
  options: [
    { flags: '--user', description: 'edit the user settings (the default), e.g. ~/.claude/settings.json' },
    {
      flags: '--project',
      description: "edit this project's settings, e.g. .claude/settings.local.json, .gemini/settings.json, .cursor/mcp.json",
    },
    {
      flags: '--mcp',
      description: "codex, gemini: also register lro's MCP server ([mcp_servers.lro] in config.toml, mcpServers.lro)",
    },
    {
      flags: '--wrap',
      description: "cursor, vscode, claude-desktop, opencode: also put your stdio MCP servers behind lro's proxy",
    },
    { flags: '--dry-run', description: 'print the change as a unified diff and change nothing' },
    {
      flags: '--force',
      description: "write the user settings even when the harness does not look installed (no command on PATH, no settings folder)",
    },
    {
      flags: '--uninstall',
      description: "remove lro's entries (and nothing else); the file comes back byte for byte if nothing else changed",
    },
    {
      flags: '--restore',
      description: 'put back the bytes each file had before lro first edited it (the copy init kept), whatever happened since',
    },
  ],
  examples: [
    'lro init claude-code                 every Bash call goes through lro; lro doctor checks it',
    'lro init claude-code --dry-run       the change, as a diff',
    'lro init claude-code --uninstall     lro out again',
    "lro init claude-code --project       this project only: .claude/settings.local.json (yours, not committed)",
    'lro init --restore codex             the files exactly as they were before lro init',
    'lro init codex --mcp                 Codex: the shell hook, and lro mcp as an MCP server',
    "lro init gemini --project            Gemini CLI: this project's .gemini/settings.json",
    'lro init cursor --wrap               Cursor: lro mcp, and your MCP servers behind lro mcp proxy',
    'lro init vscode --project            VS Code: lro mcp in .vscode/mcp.json',
  ],
  notes: INIT_HELP,
  run: (o, io) => runInit(o, io),
};
