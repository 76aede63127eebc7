// `lro init claude-code`: wires lro into Claude Code's settings (harness/claude-code.ts says what and why), or
// takes it out again (--uninstall), or shows the change (--dry-run). The file is edited in place, atomically, and
// its original bytes are kept aside so that an uninstall with nothing else changed gives them back exactly.
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { CommandDef } from './command.js';
import { LroError, UsageError } from '../errors.js';
import type { IO } from '../io.js';
import { install, installation, SettingsRefused, settingsPath, uninstall, type Scope } from '../harness/claude-code.js';
import { readRecord, readSettings, realFile, removeCreated, removeRecord, sha256, writeAtomic, writeRecord } from '../harness/settings-file.js';
import { unifiedDiff } from '../render/diff.js';

export interface InitOptions {
  harness: string;
  user?: boolean;
  project?: boolean;
  dryRun?: boolean;
  uninstall?: boolean;
}

/** The scope the options name (--user is the default). */
export function scopeOf(o: { user?: boolean; project?: boolean }): Scope {
  if (o.user && o.project) throw new UsageError('--user and --project cannot be used together: choose one');
  return o.project ? 'project' : 'user';
}

export async function runInit(o: InitOptions, io: IO): Promise<number> {
  if (o.harness !== 'claude-code') throw new UsageError(`unknown harness '${o.harness}': lro init claude-code`);
  const scope = scopeOf(o);
  const shown = settingsPath(scope, io.env, '.');
  const path = realFile(resolve(shown));
  const before = readSettings(path);
  let after: string;
  try {
    after = o.uninstall ? uninstall(before ?? '', shown) : install(before ?? '', installation(), shown);
  } catch (e) {
    if (e instanceof SettingsRefused) throw new LroError(e.message);
    throw e;
  }
  const record = readRecord(path, io.env);
  // uninstall with nothing changed since init: the original bytes, exactly
  const restore = !!(o.uninstall && record && before !== null && sha256(before) === record.written);
  if (restore) after = record!.original ?? '';
  if (o.dryRun) {
    const diff = unifiedDiff(before ?? '', after, before === null ? '/dev/null' : shown, restore && record!.original === null ? '/dev/null' : shown);
    await io.stdout.write(diff || `${shown}: no change\n`);
    return 0;
  }
  if (o.uninstall) {
    if (restore && record!.original === null) removeCreated(path, record!.createdDir);
    else if (after !== (before ?? '')) writeAtomic(path, after);
    removeRecord(path, io.env);
    const did = after !== (before ?? '') || (restore && record!.original === null);
    await io.stdout.write(did ? `lro: removed from ${shown}${restore ? ' (the file is as it was before lro init)' : ''}\n` : `lro: not installed in ${shown}: nothing to remove\n`);
    return 0;
  }
  if (after === before) {
    await io.stdout.write(`lro: already installed in ${shown}: nothing to change (lro doctor checks it works)\n`);
    return 0;
  }
  // the original is the file before lro first touched it: kept from an earlier init when the file is still what
  // that init wrote (an upgrade that moved lro)
  const keep = !!record && before !== null && sha256(before) === record.written;
  writeRecord(
    {
      path,
      original: keep ? record!.original : before,
      createdDir: keep ? record!.createdDir : before === null && !existsSync(dirname(path)),
      written: sha256(after),
    },
    io.env,
  );
  writeAtomic(path, after);
  await io.stdout.write(
    `lro: installed in ${shown}: Bash calls run through lro's shell prefix (env.CLAUDE_CODE_SHELL_PREFIX), large MCP results go through lro's PostToolUse hook (mcp__.*)\n` +
      `check it: lro doctor claude-code; undo it: lro init claude-code${scope === 'project' ? ' --project' : ''} --uninstall\n`,
  );
  return 0;
}

/** `lro init`. */
export const initCommand: CommandDef<InitOptions> = {
  name: 'init',
  description: "wire lro into an agent harness's settings (Claude Code): large and failing Bash output and large MCP results reach the model as descriptors",
  arguments: [{ name: 'harness', description: 'the harness to wire lro into', choices: ['claude-code'] }],
  options: [
    { flags: '--user', description: 'edit the user settings, ~/.claude/settings.json (the default)' },
    { flags: '--project', description: "edit this project's settings, ./.claude/settings.json" },
    { flags: '--dry-run', description: 'print the change as a unified diff and change nothing' },
    { flags: '--uninstall', description: "remove lro's entries (and nothing else); the file comes back byte for byte when nothing else changed" },
  ],
  examples: [
    'lro init claude-code                 every Bash call goes through lro; lro doctor checks it',
    'lro init claude-code --dry-run       the change, as a diff',
    'lro init claude-code --uninstall     lro out again',
  ],
  notes: `What it writes: env.CLAUDE_CODE_SHELL_PREFIX (lro's shell prefix, by absolute path) and a PostToolUse hook
for mcp__.* tools. The settings file must be strict JSON (Claude Code ignores a file holding a comment); one that
is not is refused (exit 2) and left untouched. The write is atomic and keeps the file's mode; init twice changes
nothing the second time. Exit status: 0 done (or nothing to do), 2 refused or failed.`,
  run: (o, io) => runInit(o, io),
};
