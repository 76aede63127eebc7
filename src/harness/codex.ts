// lro in Codex: which files, what lro puts there, how it comes out again, and how to tell whether Codex trusts it.
// lro adds to $CODEX_HOME (default ~/.codex):
//   - hooks.json: a PreToolUse group for the shell tool (matcher ^Bash$) whose handler is `lro __codex-hook`. It
//     rewrites each shell command to run through lro's shell prefix (bin/lro-shell-prefix, by absolute path, since
//     Codex runs commands with `bash -lc` and a login PATH): small output unchanged, large or failing output stored
//     whole, the command's exit code kept (src/commands/codex-hook.ts). Codex reads hooks.json as strict JSON.
//     The group is appended last: Codex keys its trust records by the group's index, so the user's own hooks keep
//     theirs.
//   - config.toml, only with --mcp: a [mcp_servers.lro] table appended at the end, by exact text edits (the user's
//     comments and order are kept; the file is never re-serialised), and taken out again the same way.
// Codex skips a hook without a word until the user trusts it (/hooks in the TUI). Its record is a table
// [hooks.state."<hooks.json path>:pre_tool_use:<group>:<handler>"] in config.toml holding trusted_hash, the sha256
// of the handler's normalised identity (codex-rs/hooks/src/engine/discovery.rs, codex-rs/config/src/fingerprint.rs):
// trustOf() reads it, so `lro doctor codex` can say whether Codex will run lro's hook.
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { shellQuote } from '../describe/shell.js';
import { EditRefused } from './installer.js';
import { binDir } from './claude-code.js';
import { removeAt, setAt, strictJsonProblem, treeOf, valueAt } from './json-edit.js';

/** $CODEX_HOME, else ~/.codex. */
export function codexHome(env: NodeJS.ProcessEnv): string {
  return env.CODEX_HOME || join(env.HOME || homedir(), '.codex');
}

/** The hidden command Codex's PreToolUse hook runs (src/commands/codex-hook.ts). */
export const CODEX_HOOK_SUBCOMMAND = '__codex-hook';
export const BASH_MATCHER = '^Bash$';
export const HOOK_TIMEOUT = 30;

/** The hook command: this Node and lro's bin/lro.js, by absolute paths. */
export function codexHookCommand(nodePath = process.execPath): string {
  return `${shellQuote(nodePath)} ${shellQuote(join(binDir(), 'lro.js'))} ${CODEX_HOOK_SUBCOMMAND}`;
}

/** Whether a hook handler is lro's. */
export const isLroCodexHandler = (h: unknown): boolean =>
  !!h && typeof h === 'object' && typeof (h as { command?: unknown }).command === 'string' &&
  (h as { command: string }).command.includes(CODEX_HOOK_SUBCOMMAND);

interface Group {
  matcher?: string;
  hooks?: unknown[];
}

function checkHooksJson(text: string, path: string): void {
  if (text.trim() === '') return;
  const problem = strictJsonProblem(text);
  if (problem) throw new EditRefused(`${path} is not strict JSON (${problem}): fix it first, lro leaves it untouched`);
  if (treeOf(text)?.type !== 'object') {
    throw new EditRefused(`${path} is not a JSON object: fix it first, lro leaves it untouched`);
  }
}

/** hooks.json with lro's PreToolUse group (the same text when it is there already). */
export function installHooks(text: string, command: string, path: string): string {
  checkHooksJson(text, path);
  const groups = valueAt(text, ['hooks', 'PreToolUse']);
  const list = Array.isArray(groups) ? (groups as Group[]) : [];
  const at = list.findIndex((g) => g && Array.isArray(g.hooks) && g.hooks.some(isLroCodexHandler));
  if (at >= 0) {
    const h = list[at].hooks!.findIndex(isLroCodexHandler);
    if ((list[at].hooks![h] as { command: string }).command === command) return text;
    return setAt(text, ['hooks', 'PreToolUse', at, 'hooks', h, 'command'], command);
  }
  const group = { matcher: BASH_MATCHER, hooks: [{ type: 'command', command, timeout: HOOK_TIMEOUT }] };
  return Array.isArray(groups)
    ? setAt(text, ['hooks', 'PreToolUse', -1], group)
    : setAt(text, ['hooks', 'PreToolUse'], [group]);
}

const isEmptyObject = (v: unknown): boolean =>
  !!v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0;

/** hooks.json without lro's handlers, and what their removal leaves empty. Other hooks stay. */
export function uninstallHooks(text: string, path: string): string {
  checkHooksJson(text, path);
  let out = text;
  for (;;) {
    const groups = valueAt(out, ['hooks', 'PreToolUse']);
    if (!Array.isArray(groups)) break;
    const g = (groups as Group[]).findIndex((x) => x && Array.isArray(x.hooks) && x.hooks.some(isLroCodexHandler));
    if (g < 0) break;
    const hooks = (groups as Group[])[g].hooks!;
    if (hooks.every(isLroCodexHandler)) out = removeAt(out, ['hooks', 'PreToolUse', g]);
    else out = removeAt(out, ['hooks', 'PreToolUse', g, 'hooks', hooks.findIndex(isLroCodexHandler)]);
    const after = valueAt(out, ['hooks', 'PreToolUse']);
    if (Array.isArray(after) && after.length === 0) {
      out = removeAt(out, ['hooks', 'PreToolUse']);
      if (isEmptyObject(valueAt(out, ['hooks']))) out = removeAt(out, ['hooks']);
    }
  }
  return out;
}

/** Where lro's handler is in hooks.json: group and handler index, the handler, the group's matcher. */
export interface LroHook {
  group: number;
  handler: number;
  command: string;
  timeout?: number;
  matcher?: string;
}

export function findLroHook(text: string): LroHook | null {
  if (strictJsonProblem(text)) return null;
  const groups = valueAt(text, ['hooks', 'PreToolUse']);
  if (!Array.isArray(groups)) return null;
  for (let g = 0; g < groups.length; g++) {
    const hooks = (groups[g] as Group)?.hooks;
    if (!Array.isArray(hooks)) continue;
    const h = hooks.findIndex(isLroCodexHandler);
    if (h < 0) continue;
    const handler = hooks[h] as { command: string; timeout?: number };
    const matcher = (groups[g] as Group).matcher;
    return { group: g, handler: h, command: handler.command, timeout: handler.timeout, matcher };
  }
  return null;
}

// ---- config.toml: [mcp_servers.lro], by exact text edits ----

const MCP_HEADER = /^[ \t]*\[[ \t]*mcp_servers[ \t]*\.[ \t]*(?:lro|"lro")[ \t]*\][ \t]*(?:#.*)?$/;
const ANY_HEADER = /^[ \t]*\[/;

/** The lines of lro's MCP table. */
export function mcpTable(nodePath = process.execPath): string[] {
  return [
    '[mcp_servers.lro]',
    `command = ${JSON.stringify(nodePath)}`,
    `args = [${JSON.stringify(join(binDir(), 'lro.js'))}, "mcp"]`,
  ];
}

/** The [mcp_servers.lro] table's line range [start, end) in `lines`, or null. */
function mcpRange(lines: string[]): [number, number] | null {
  const start = lines.findIndex((l) => MCP_HEADER.test(l));
  if (start < 0) return null;
  let end = start + 1;
  while (end < lines.length && !ANY_HEADER.test(lines[end])) end++;
  // the blank lines and comments before the next table are not the table's
  while (end > start + 1 && (lines[end - 1].trim() === '' || /^[ \t]*#/.test(lines[end - 1]))) end--;
  return [start, end];
}

/** Refuses a config.toml where lro would need more than appending a table (an lro entry written another way). */
function checkToml(text: string, path: string): void {
  const elsewhere = /^[ \t]*(\[[^\]]*mcp_servers[ \t]*\.[ \t]*"?lro"?\b|mcp_servers[ \t]*[.=])/;
  const other = text.split(/\r?\n/).find((l) => !MCP_HEADER.test(l) && elsewhere.test(l));
  if (other !== undefined) {
    throw new EditRefused(
      `${path} already names MCP servers as '${other.trim()}': add lro by hand ([mcp_servers.lro]), ` +
        'lro leaves it untouched',
    );
  }
}

/**
 * config.toml with [mcp_servers.lro]: put before the user's first table (so a key they later append at the end of
 * the file goes to their own last table, not to lro's), at the end when there is none; replaced in place when it is
 * there in another form.
 */
export function installMcp(text: string, table: string[], path: string): string {
  checkToml(text, path);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  const range = mcpRange(lines);
  if (range) {
    const current = lines.slice(range[0], range[1]);
    if (current.join('\n') === table.join('\n')) return text;
    return [...lines.slice(0, range[0]), ...table, ...lines.slice(range[1])].join(eol);
  }
  const first = firstTable(lines);
  if (first >= 0) return [...lines.slice(0, first), ...table, '', ...lines.slice(first)].join(eol);
  if (text === '') return table.join(eol) + eol;
  const body = text.endsWith('\n') ? text : text + eol;
  return `${body}${eol}${table.join(eol)}${eol}`;
}

/** The line where the first table starts, with the comment lines right above its header; -1 when there is none. */
function firstTable(lines: string[]): number {
  let i = lines.findIndex((l) => ANY_HEADER.test(l));
  while (i > 0 && /^[ \t]*#/.test(lines[i - 1])) i--;
  return i;
}

/** A line init writes in [mcp_servers.lro]. */
const LRO_KEY = /^[ \t]*(?:command|args)[ \t]*=/;

/**
 * config.toml without [mcp_servers.lro] and the blank line init put with it. A key the user added to that table is
 * kept where it is (only lro's header, command and args go): their line is never lost.
 */
export function uninstallMcp(text: string, path: string): string {
  checkToml(text, path);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  const range = mcpRange(lines);
  if (!range) return text;
  let [start, end] = range;
  const body = lines.slice(start + 1, end);
  if (body.some((l) => l.trim() !== '' && !LRO_KEY.test(l))) {
    const kept = body.filter((l) => !LRO_KEY.test(l));
    return [...lines.slice(0, start), ...kept, ...lines.slice(end)].join(eol);
  }
  if (end < lines.length - 1 && lines[end] === '') {
    end++; // the blank line init put before the next table
  } else {
    if (end === lines.length - 1 && lines[end] === '') end = lines.length; // the last line break
    if (start > 0 && lines[start - 1] === '') start--; // the blank line init put before a table at the end
  }
  const rest = [...lines.slice(0, start), ...lines.slice(end)];
  if (end === lines.length && start > 0) return rest.join(eol) + eol;
  return rest.join(eol);
}

// ---- trust ----

/** Codex's trust hash of a command handler: sha256 of its normalised identity as compact JSON with sorted keys. */
export function codexHookHash(
  event: string,
  matcher: string | undefined,
  handler: { command: string; timeout?: number },
): string {
  const identity: Record<string, unknown> = {
    event_name: event,
    hooks: [{ async: false, command: handler.command, timeout: Math.max(1, handler.timeout ?? 600), type: 'command' }],
  };
  if (matcher !== undefined) identity.matcher = matcher;
  return `sha256:${createHash('sha256').update(canonicalJson(identity)).digest('hex')}`;
}

function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** The key of a hooks.json handler's trust record. */
export const trustKey = (hooksJson: string, group: number, handler: number): string =>
  `${hooksJson}:pre_tool_use:${group}:${handler}`;

/** What config.toml says about one hook: its trust record's trusted_hash and enabled, if any. */
export function hookState(configToml: string, key: string): { trustedHash?: string; enabled?: boolean } | null {
  const lines = configToml.split(/\r?\n/);
  const quoted = JSON.stringify(key);
  const header = lines.findIndex((l) => {
    const m = /^[ \t]*\[[ \t]*hooks[ \t]*\.[ \t]*state[ \t]*\.[ \t]*("(?:[^"\\]|\\.)*"|'[^']*')[ \t]*\]/.exec(l);
    if (!m) return false;
    const k = m[1].startsWith("'") ? m[1].slice(1, -1) : (JSON.parse(m[1]) as string);
    return k.trim() === key || m[1] === quoted;
  });
  if (header < 0) return null;
  const out: { trustedHash?: string; enabled?: boolean } = {};
  for (let i = header + 1; i < lines.length && !ANY_HEADER.test(lines[i]); i++) {
    const hash = /^[ \t]*trusted_hash[ \t]*=[ \t]*["']([^"']*)["']/.exec(lines[i]);
    if (hash) out.trustedHash = hash[1];
    const enabled = /^[ \t]*enabled[ \t]*=[ \t]*(true|false)\b/.exec(lines[i]);
    if (enabled) out.enabled = enabled[1] === 'true';
  }
  return out;
}

export type Trust = 'trusted' | 'untrusted' | 'modified' | 'disabled';

/** Whether Codex will run lro's hook as config.toml records it. */
export function trustOf(configToml: string | null, hooksJson: string, hook: LroHook): Trust {
  const state = configToml === null ? null : hookState(configToml, trustKey(hooksJson, hook.group, hook.handler));
  if (state?.enabled === false) return 'disabled';
  if (!state?.trustedHash) return 'untrusted';
  return state.trustedHash === codexHookHash('pre_tool_use', hook.matcher, hook) ? 'trusted' : 'modified';
}

/** The user's step to trust lro's hook (there is no other way that is not a bypass). */
export const TRUST_STEP =
  'start Codex (`codex`); at "hooks need review" press t to trust all (or type /hooks and trust the PreToolUse ' +
  'hook whose command ends in `__codex-hook`); until then Codex skips it without a word';
