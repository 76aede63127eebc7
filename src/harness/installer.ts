// One installer for every harness: an adapter names the files lro edits in a harness's settings and how each is
// edited (a text in, a text out); this module does the rest the same way for all of them: the real file behind a
// symlink, the refusal of a file lro will not edit, the check of every edit before it is written (verified-edit.ts),
// the --dry-run diff, the atomic write that keeps the mode, and the record of what the file was before, so that
// --uninstall with nothing else changed gives its bytes back, and --restore gives them back whatever happened since.
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { unifiedDiff } from '../render/diff.js';
import type { Scope } from './claude-code/settings.js';
import {
  linkTarget,
  readRecord,
  readSettings,
  recordPath,
  removeCreated,
  removeRecord,
  sha256,
  writeAtomic,
  writeRecord,
  type InitRecord,
} from './settings-file.js';
import { checkOriginal, EditRefused, verifyEdit, type Verifier } from './verified-edit.js';

export { EditRefused } from './verified-edit.js';

/** One file an adapter edits: where it is (as shown to the user), its two edits, and how to check them. */
export interface FileEdit {
  shown: string;
  /** The text with lro in it (the same text when it is there already); throws EditRefused to refuse. */
  install(text: string): string;
  /** The text without lro's entries (and nothing else changed). */
  uninstall(text: string): string;
  /** Which values are lro's: every edit is parsed back and checked against the original before it is written. */
  verify: Verifier;
}

/** What became of one file. */
export type Outcome = 'installed' | 'unchanged' | 'removed' | 'restored' | 'absent';

/**
 * The edit of `before` (a file's text, '' for no file), checked: the original parses, lro needs no value of the
 * user's replaced, the result parses, lro's entries are there (install) or gone (uninstall), and every other value
 * is deep-equal to the original's. Anything else throws EditRefused: nothing is written.
 */
export function verifiedEdit(edit: FileEdit, before: string, uninstall: boolean): string {
  let after: string;
  try {
    // the harness's own checks first: they say best what is wrong with its file
    after = uninstall ? edit.uninstall(before) : edit.install(before);
  } catch (e) {
    if (!(e instanceof EditRefused)) checkOriginal(edit.verify, before, edit.shown, uninstall);
    throw e;
  }
  const original = checkOriginal(edit.verify, before, edit.shown, uninstall);
  verifyEdit(edit.verify, original, after, edit.shown, uninstall);
  return after;
}

/** The file behind a settings path (through symlinks, a dangling one too); a loop of links is refused. */
export function targetOf(shown: string): string {
  const path = linkTarget(resolve(shown));
  if (path === null) throw new EditRefused(`${shown} is a loop of symlinks: fix the link, lro leaves it untouched`);
  return path;
}

export interface Planned {
  edit: FileEdit;
  path: string;
  before: string | null;
  after: string;
  /** Uninstall with nothing changed since init: the original bytes (or no file) come back. */
  restore: boolean;
  original: string | null | undefined;
  createdDir: boolean;
  createdFrom?: string;
}

/** Works out one file's change without touching anything (a refusal throws before any file is written). */
export function plan(edit: FileEdit, uninstall: boolean, env: NodeJS.ProcessEnv): Planned {
  const path = targetOf(edit.shown);
  const before = readSettings(path);
  const record = readRecord(path, env);
  // nothing changed since init: the original comes back as it was (even a file the edit itself would refuse)
  const restore = !!(uninstall && record && before !== null && sha256(before) === record.written);
  const after = restore ? (record!.original ?? '') : verifiedEdit(edit, before ?? '', uninstall);
  const created = { createdDir: record?.createdDir ?? false, createdFrom: record?.createdFrom };
  return { edit, path, before, after, restore, original: record?.original, ...created };
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
    if (gone) removeCreated(p.path, p.createdDir, p.createdFrom);
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
  const made = highestMissing(dirname(p.path));
  const fresh: InitRecord = { path: p.path, original: p.before, createdDir: p.before === null && !!made, written: sha256(p.after) };
  if (fresh.createdDir) fresh.createdFrom = made!;
  writeRecord(keep ? { ...record!, written: fresh.written } : fresh, env);
  writeAtomic(p.path, p.after);
  return 'installed';
}

/** The highest folder of `dir` and its parents that does not exist (what mkdir -p would make), or null. */
function highestMissing(dir: string): string | null {
  let top: string | null = null;
  for (let d = dir; !existsSync(d); d = dirname(d)) {
    top = d;
    if (dirname(d) === d) break;
  }
  return top;
}

// ---- --restore: the original back, whatever happened since ----

/** One file --restore gives back: its text now and the original lro kept (null: there was no file). */
export interface RestorePlan {
  edit: FileEdit;
  path: string;
  before: string | null;
  record: InitRecord;
}

/** The file's restore, or null when lro kept nothing for it. */
export function planRestore(edit: FileEdit, env: NodeJS.ProcessEnv): RestorePlan | null {
  const path = targetOf(edit.shown);
  const record = readRecord(path, env);
  return record ? { edit, path, before: readSettings(path), record } : null;
}

/** The restore as a unified diff. */
export function restoreDiff(r: RestorePlan): string {
  const to = r.record.original;
  return unifiedDiff(r.before ?? '', to ?? '', r.before === null ? '/dev/null' : r.edit.shown, to === null ? '/dev/null' : r.edit.shown);
}

/**
 * Puts the original back (or removes the file when there was none) and forgets the record. Text changed since lro
 * last wrote the file is kept beside the record first; its path is returned (null when there was nothing to keep).
 */
export function applyRestore(r: RestorePlan, env: NodeJS.ProcessEnv): string | null {
  let kept: string | null = null;
  if (r.before !== null && sha256(r.before) !== r.record.written && r.before !== r.record.original) {
    kept = recordPath(r.path, env).replace(/\.json$/, '.before-restore');
    writeAtomic(kept, r.before);
  }
  if (r.record.original === null) removeCreated(r.path, r.record.createdDir, r.record.createdFrom);
  else if (r.before !== r.record.original) writeAtomic(r.path, r.record.original);
  removeRecord(r.path, env); // a text kept beside it keeps the folder
  return kept;
}

// ---- what `lro init` hands an adapter, and what an adapter gives back ----

export interface InitOptions {
  harness: string;
  user?: boolean;
  project?: boolean;
  dryRun?: boolean;
  uninstall?: boolean;
  restore?: boolean;
  mcp?: boolean;
  wrap?: boolean;
  /** Write the settings of a harness that does not look installed. */
  force?: boolean;
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
  /** Lines for stderr once the files are written (a project's file that will not find lro on this machine). */
  warnings?(): string[];
}
