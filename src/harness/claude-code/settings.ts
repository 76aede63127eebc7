// lro in Claude Code: which settings file, what lro puts there, and how it comes out again.
// lro adds two things to a settings.json and nothing else:
//   - env.CLAUDE_CODE_SHELL_PREFIX: the absolute path of bin/lro-shell-prefix, through which Claude Code runs
//     every Bash call (small output unchanged, large or failing output stored whole, see the script);
//   - a PostToolUse group for MCP tools (matcher mcp__.*) whose handler is lro's hook: a large result becomes
//     the descriptor.
// Claude Code reads settings as strict JSON and ignores a file holding a comment, so lro refuses to edit one
// (doctor says so), and the text it writes is strict JSON.
import { spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { binDir } from '../lro-bin.js';
import { shellQuote } from '../../shell-quote.js';
import { removeAt, setAt, strictJsonProblem, treeOf, valueAt } from '../json-edit.js';
import { at, EditRefused, hasHandler, isObject, prune, stripHandlers, type Verifier } from '../verified-edit.js';

export type Scope = 'user' | 'project';

/**
 * The settings file of a scope: ~/.claude/settings.json ($CLAUDE_CONFIG_DIR moves it), or, for a project,
 * ./.claude/settings.local.json: Claude Code's personal file for one project (it outranks the shared
 * .claude/settings.json, and is kept out of git). What lro writes names this machine's Node and lro by absolute
 * paths; in the shared file a teammate without lro there would have every Bash call fail.
 */
export function settingsPath(scope: Scope, env: NodeJS.ProcessEnv, cwd: string): string {
  if (scope === 'project') return join(cwd, '.claude', 'settings.local.json');
  const config = env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), '.claude');
  return join(config, 'settings.json');
}


/**
 * What lro installs, by absolute paths: the prefix script, and the hook command for MCP results (lro's bin/lro-hook
 * with this Node: a small result is left as it is without a Node start, about 100 ms a call before).
 */
export interface Installation {
  prefix: string;
  hookCommand: string;
}

export function installation(nodePath = process.execPath): Installation {
  const bin = binDir();
  return {
    prefix: join(bin, 'lro-shell-prefix'),
    hookCommand: `LRO_NODE=${shellQuote(nodePath)} ${shellQuote(join(bin, 'lro-hook'))} ${HOOK_SUBCOMMAND}`,
  };
}

/** The hidden command Claude Code's PostToolUse hook runs (harness/claude-code/hook.ts). */
export const HOOK_SUBCOMMAND = '__claude-code-hook';
export const MCP_MATCHER = 'mcp__.*';
export const PREFIX_PATH: (string | number)[] = ['env', 'CLAUDE_CODE_SHELL_PREFIX'];

/** Whether a prefix value is lro's (wherever lro is installed). */
export const isLroPrefix = (v: unknown): boolean => typeof v === 'string' && /(^|\/)lro-shell-prefix$/.test(v);
/** Whether a hook handler is lro's. */
export const isLroHandler = (h: unknown): boolean =>
  !!h && typeof h === 'object' && typeof (h as { command?: unknown }).command === 'string' && (h as { command: string }).command.includes(HOOK_SUBCOMMAND);

interface Group {
  matcher?: string;
  hooks?: unknown[];
}

/** A refusal: a file lro will not edit (exit 2). */
export class SettingsRefused extends EditRefused {}

/** Which values of a settings file are lro's (verified-edit.ts checks every edit with it). */
export function claudeVerifier(inst: Installation): Verifier {
  const isMine = (h: unknown) => isLroHandler(h);
  return {
    syntax: 'json',
    needs: [
      [['env'], 'object'],
      [['hooks'], 'object'],
      [['hooks', 'PostToolUse'], 'array'],
    ],
    strip(doc) {
      const env = at(doc, ['env']);
      if (isObject(env) && isLroPrefix(env.CLAUDE_CODE_SHELL_PREFIX)) delete env.CLAUDE_CODE_SHELL_PREFIX;
      prune(doc, ['env']);
      stripHandlers(doc, 'PostToolUse', isMine);
      return doc;
    },
    installed: (doc) =>
      at(doc, PREFIX_PATH) === inst.prefix &&
      hasHandler(doc, 'PostToolUse', (h) => isObject(h) && h.command === inst.hookCommand),
    absent: (doc) => !isLroPrefix(at(doc, PREFIX_PATH)) && !hasHandler(doc, 'PostToolUse', isMine),
  };
}

/** The project's shared, committed settings file, where an earlier lro wrote `--project` (see settingsPath). */
export function sharedProjectSettingsPath(cwd: string): string {
  return join(cwd, '.claude', 'settings.json');
}

/**
 * The check of the edit that takes an earlier lro's entries out of the shared project file when `--project`
 * installs into settings.local.json: installing there means lro's entries are gone.
 */
export function sharedFileVerifier(inst: Installation): Verifier {
  const v = claudeVerifier(inst);
  return { ...v, installed: v.absent };
}

/** Whether git ignores `path` (git check-ignore); null when that cannot be told (no git, not in a repository). */
export function gitIgnored(path: string): boolean | null {
  const r = spawnSync('git', ['check-ignore', '-q', '--', path], { stdio: 'ignore', timeout: 5000 });
  return r.status === 0 ? true : r.status === 1 ? false : null;
}

/** Checks that `text` is a settings file lro may edit: strict JSON, an object. */
export function checkSettings(text: string, path: string): void {
  if (text.trim() === '') return;
  const problem = strictJsonProblem(text);
  if (problem) throw new SettingsRefused(`${path} is not strict JSON (${problem}): fix it first, lro leaves it untouched`);
  if (treeOf(text)?.type !== 'object') throw new SettingsRefused(`${path} is not a JSON object: fix it first, lro leaves it untouched`);
}

/** The settings text with lro installed (the same text when it is already there). */
export function install(text: string, inst: Installation, path: string): string {
  checkSettings(text, path);
  let out = text;
  const prefix = valueAt(out, PREFIX_PATH);
  if (prefix !== undefined && !isLroPrefix(prefix)) {
    throw new SettingsRefused(
      `${path} already sets env.CLAUDE_CODE_SHELL_PREFIX to ${JSON.stringify(prefix)} (not lro's): remove it or combine them by hand`,
    );
  }
  if (prefix !== inst.prefix) out = setAt(out, PREFIX_PATH, inst.prefix);
  const groups = valueAt(out, ['hooks', 'PostToolUse']);
  const list = Array.isArray(groups) ? (groups as Group[]) : [];
  const handler = { type: 'command', command: inst.hookCommand, timeout: 60 };
  const at = list.findIndex((g) => g && Array.isArray(g.hooks) && g.hooks.some(isLroHandler));
  if (at < 0) {
    out = setAt(out, ['hooks', 'PostToolUse', ...(Array.isArray(groups) ? [-1] : [])], Array.isArray(groups) ? { matcher: MCP_MATCHER, hooks: [handler] } : [{ matcher: MCP_MATCHER, hooks: [handler] }]);
  } else {
    const h = list[at].hooks!.findIndex(isLroHandler);
    if ((list[at].hooks![h] as { command: string }).command !== inst.hookCommand) {
      out = setAt(out, ['hooks', 'PostToolUse', at, 'hooks', h, 'command'], inst.hookCommand);
    }
  }
  return out;
}

/**
 * The settings text without lro's entries: the prefix, lro's hook handlers, and what is left empty by their
 * removal (a group with no handler, PostToolUse with no group, hooks or env with nothing in them). Other tools'
 * entries, even in the same group, stay.
 */
export function uninstall(text: string, path: string): string {
  checkSettings(text, path);
  let out = text;
  if (isLroPrefix(valueAt(out, PREFIX_PATH))) {
    out = removeAt(out, PREFIX_PATH);
    if (isEmptyObject(valueAt(out, ['env']))) out = removeAt(out, ['env']);
  }
  for (;;) {
    const groups = valueAt(out, ['hooks', 'PostToolUse']);
    if (!Array.isArray(groups)) break;
    const g = (groups as Group[]).findIndex((x) => x && Array.isArray(x.hooks) && x.hooks.some(isLroHandler));
    if (g < 0) break;
    const hooks = (groups as Group[])[g].hooks!;
    if (hooks.every(isLroHandler)) out = removeAt(out, ['hooks', 'PostToolUse', g]);
    else out = removeAt(out, ['hooks', 'PostToolUse', g, 'hooks', hooks.findIndex(isLroHandler)]);
    const after = valueAt(out, ['hooks', 'PostToolUse']);
    if (Array.isArray(after) && after.length === 0) {
      out = removeAt(out, ['hooks', 'PostToolUse']);
      if (isEmptyObject(valueAt(out, ['hooks']))) out = removeAt(out, ['hooks']);
    }
  }
  return out;
}

const isEmptyObject = (v: unknown): boolean => !!v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0;

/** What of lro a settings text holds. */
export function installedIn(text: string): { prefix?: string; hook?: string } {
  const out: { prefix?: string; hook?: string } = {};
  const prefix = valueAt(text, PREFIX_PATH);
  if (isLroPrefix(prefix)) out.prefix = prefix as string;
  const groups = valueAt(text, ['hooks', 'PostToolUse']);
  for (const g of Array.isArray(groups) ? (groups as Group[]) : []) {
    const h = Array.isArray(g?.hooks) ? g.hooks.find(isLroHandler) : undefined;
    if (h) out.hook = (h as { command: string }).command;
  }
  return out;
}
