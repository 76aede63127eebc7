// One installer for every harness: an adapter names the files lro edits in a harness's settings and how each is
// edited (a text in, a text out); this module does the rest the same way for all of them: the real file behind a
// symlink, the refusal of a file lro will not edit, the --dry-run diff, the atomic write that keeps the mode, and
// the record of what the file was before, so that --uninstall with nothing else changed gives its bytes back.
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { unifiedDiff } from '../render/diff.js';
import type { Scope } from './claude-code.js';
import {
  readRecord,
  readSettings,
  realFile,
  removeCreated,
  removeRecord,
  sha256,
  writeAtomic,
  writeRecord,
} from './settings-file.js';

/** One file an adapter edits: where it is (as shown to the user) and its two edits. */
export interface FileEdit {
  shown: string;
  /** The text with lro in it (the same text when it is there already); throws EditRefused to refuse. */
  install(text: string): string;
  /** The text without lro's entries (and nothing else changed). */
  uninstall(text: string): string;
}

/** A refusal: a file lro will not edit (exit 2, the file untouched). */
export class EditRefused extends Error {}

/** What became of one file. */
export type Outcome = 'installed' | 'unchanged' | 'removed' | 'restored' | 'absent';

export interface Planned {
  edit: FileEdit;
  path: string;
  before: string | null;
  after: string;
  /** Uninstall with nothing changed since init: the original bytes (or no file) come back. */
  restore: boolean;
  original: string | null | undefined;
  createdDir: boolean;
}

/** Works out one file's change without touching anything (a refusal throws before any file is written). */
export function plan(edit: FileEdit, uninstall: boolean, env: NodeJS.ProcessEnv): Planned {
  const path = realFile(resolve(edit.shown));
  const before = readSettings(path);
  let after = uninstall ? edit.uninstall(before ?? '') : edit.install(before ?? '');
  const record = readRecord(path, env);
  const restore = !!(uninstall && record && before !== null && sha256(before) === record.written);
  if (restore) after = record!.original ?? '';
  return { edit, path, before, after, restore, original: record?.original, createdDir: record?.createdDir ?? false };
}

/** The change as a unified diff ('' when there is none). */
export function diffOf(p: Planned): string {
  const gone = p.restore && p.original === null;
  const from = p.before === null ? '/dev/null' : p.edit.shown;
  return unifiedDiff(p.before ?? '', p.after, from, gone ? '/dev/null' : p.edit.shown);
}

/** What an uninstall did to one file, as told to the user (`what`: what was removed, when said). */
export function removalLine(outcome: Outcome, shown: string, what = ''): string {
  if (outcome === 'restored') return `lro: removed from ${shown} (the file is as it was before lro init)`;
  if (outcome === 'removed') return `lro: removed from ${shown}${what ? ` (${what})` : ''}`;
  return `lro: not installed in ${shown}: nothing to remove`;
}

/** Makes the planned change; says what became of the file. */
export function apply(p: Planned, uninstall: boolean, env: NodeJS.ProcessEnv): Outcome {
  if (uninstall) {
    const gone = p.restore && p.original === null;
    if (gone) removeCreated(p.path, p.createdDir);
    else if (p.after !== (p.before ?? '')) writeAtomic(p.path, p.after);
    removeRecord(p.path, env);
    if (!(p.after !== (p.before ?? '') || gone)) return 'absent';
    return p.restore ? 'restored' : 'removed';
  }
  if (p.after === p.before) return 'unchanged';
  // the original is the file before lro first touched it: kept from an earlier init when the file is still what
  // that init wrote (an upgrade that moved lro)
  const record = readRecord(p.path, env);
  const keep = !!record && p.before !== null && sha256(p.before) === record.written;
  writeRecord(
    {
      path: p.path,
      original: keep ? record!.original : p.before,
      createdDir: keep ? record!.createdDir : p.before === null && !existsSync(dirname(p.path)),
      written: sha256(p.after),
    },
    env,
  );
  writeAtomic(p.path, p.after);
  return 'installed';
}

// ---- what `lro init` hands an adapter, and what an adapter gives back ----

export interface InitOptions {
  harness: string;
  user?: boolean;
  project?: boolean;
  dryRun?: boolean;
  uninstall?: boolean;
  mcp?: boolean;
  wrap?: boolean;
}

/** The scope the options name (--user is the default). */
export function scopeOf(o: { user?: boolean; project?: boolean }): Scope {
  if (o.user && o.project) throw new UsageError('--user and --project cannot be used together: choose one');
  return o.project ? 'project' : 'user';
}

/** What an adapter gives the installer: the files to edit, and what to say once they are edited. */
export interface Adapter {
  edits: FileEdit[];
  /** The lines printed after the files were edited (each file's outcome, in the order of `edits`). */
  report(outcomes: Outcome[]): string;
}
