// lro in Codex: which files, what lro puts there, how it comes out again, and how to tell whether Codex trusts it.
// lro adds to $CODEX_HOME (default ~/.codex):
//   - hooks.json: a PreToolUse group for the shell tool (matcher ^Bash$) whose handler is `lro __codex-hook`. It
//     rewrites each shell command to run through lro's shell prefix (bin/lro-shell-prefix, by absolute path, since
//     Codex runs commands with `bash -lc` and a login PATH): small output unchanged, large or failing output stored
//     whole, the command's exit code kept (harness/codex/hook.ts). Codex reads hooks.json as strict JSON.
//     The group is appended last: Codex keys its trust records by the group's index, so the user's own hooks keep
//     theirs.
//   - config.toml, only with --mcp: a [mcp_servers.lro] table before the user's first table, by exact line edits
//     (the user's comments and order are kept; the file is never re-serialised) placed by the file's structure as
//     TOML reads it (toml-lines.ts: a `[note]` line inside a multi-line string is no table), and taken out again
//     the same way. A file defining lro's server another way (dotted keys, an inline table) is refused.
// Codex skips a hook without a word until the user trusts it (/hooks in the TUI). Its record is a table
// [hooks.state."<hooks.json path>:pre_tool_use:<group>:<handler>"] in config.toml holding trusted_hash, the sha256
// of the handler's normalised identity (codex-rs/hooks/src/engine/discovery.rs, codex-rs/config/src/fingerprint.rs):
// trustOf() reads it, so `lro doctor codex` can say whether Codex will run lro's hook.
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { shellQuote } from '../../shell-quote.js';
import { binDir } from '../lro-bin.js';
import { removeAt, setAt, strictJsonProblem, treeOf, valueAt } from '../json-edit.js';
import { keyPath, statementEnd, tomlLines, type TomlLine } from '../toml-lines.js';
import {
  at,
  difference,
  EditRefused,
  hasHandler,
  isObject,
  parseAs,
  prune,
  stripHandlers,
  type Verifier,
} from '../verified-edit.js';

/** $CODEX_HOME, else ~/.codex. */
export function codexHome(env: NodeJS.ProcessEnv): string {
  return env.CODEX_HOME || join(env.HOME || homedir(), '.codex');
}

/** The hidden command Codex's PreToolUse hook runs (harness/codex/hook.ts). */
export const CODEX_HOOK_SUBCOMMAND = '__codex-hook';
export const BASH_MATCHER = '^Bash$';
export const HOOK_TIMEOUT = 30;

/**
 * The hook command: lro's bin/lro-hook (bash: no Node start on a call its resident helper answers) with this Node
 * for the calls it does not, by absolute paths.
 */
export function codexHookCommand(nodePath = process.execPath): string {
  return `LRO_NODE=${shellQuote(nodePath)} ${shellQuote(join(binDir(), 'lro-hook'))} ${CODEX_HOOK_SUBCOMMAND}`;
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

/** Which values of hooks.json are lro's: its PreToolUse handlers. */
export function codexHooksVerifier(command: string): Verifier {
  return {
    syntax: 'json',
    needs: [
      [['hooks'], 'object'],
      [['hooks', 'PreToolUse'], 'array'],
    ],
    strip(doc) {
      stripHandlers(doc, 'PreToolUse', isLroCodexHandler);
      return doc;
    },
    installed: (doc) => hasHandler(doc, 'PreToolUse', (h) => isObject(h) && h.command === command),
    absent: (doc) => !hasHandler(doc, 'PreToolUse', isLroCodexHandler),
  };
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

const ANY_HEADER = /^[ \t]*\[/;

/** The lines of lro's MCP table. */
export function mcpTable(nodePath = process.execPath): string[] {
  return [
    '[mcp_servers.lro]',
    `command = ${JSON.stringify(nodePath)}`,
    `args = [${JSON.stringify(join(binDir(), 'lro.js'))}, "mcp"]`,
  ];
}

/** Whether a value of mcp_servers.lro is lro's server (`node …/lro.js mcp`, wherever lro is installed). */
export function isLroMcpEntry(v: unknown): boolean {
  const args = isObject(v) ? v.args : undefined;
  return Array.isArray(args) && typeof args[0] === 'string' && basename(args[0]) === 'lro.js' && args[1] === 'mcp';
}

/** The keys init writes in [mcp_servers.lro]. */
const LRO_KEYS = ['command', 'args'];

/** Which values of config.toml are lro's: command and args of mcp_servers.lro, when they are lro's server. */
export function codexTomlVerifier(table: string[]): Verifier {
  const want = at(parseToml(table.join('\n')), ['mcp_servers', 'lro']) as Record<string, unknown>;
  return {
    syntax: 'toml',
    needs: [
      [['mcp_servers'], 'object'],
      [['mcp_servers', 'lro'], 'object'],
    ],
    strip(doc) {
      const entry = at(doc, ['mcp_servers', 'lro']);
      if (isObject(entry) && isLroMcpEntry(entry)) for (const k of LRO_KEYS) delete entry[k];
      prune(doc, ['mcp_servers', 'lro']);
      return doc;
    },
    installed(doc) {
      const entry = at(doc, ['mcp_servers', 'lro']);
      return isObject(entry) && LRO_KEYS.every((k) => difference(entry[k], want[k]) === null);
    },
    absent: (doc) => !isLroMcpEntry(at(doc, ['mcp_servers', 'lro'])),
  };
}

/** config.toml as lines, their line ending, and what each line is (toml-lines.ts). */
function structure(text: string): { lines: string[]; eol: string; kinds: TomlLine[] } {
  const lines = text.split(/\r?\n/);
  return { lines, eol: text.includes('\r\n') ? '\r\n' : '\n', kinds: tomlLines(lines) };
}

const samePath = (a: string[] | undefined, b: string[]): boolean => !!a && a.length === b.length && a.every((k, i) => k === b[i]);
const under = (a: string[] | undefined, b: string[]): boolean => !!a && a.length > b.length && b.every((k, i) => a[i] === k);

/** The [mcp_servers.lro] table's line range [start, end) (its trailing blank lines and comments not in it), or null. */
function mcpRange(kinds: TomlLine[]): [number, number] | null {
  const start = kinds.findIndex((k) => k.kind === 'header' && !k.array && samePath(k.path, ['mcp_servers', 'lro']));
  if (start < 0) return null;
  let end = start + 1;
  while (end < kinds.length && kinds[end].kind !== 'header') end++;
  // the blank lines and comments before the next table are not the table's
  while (end > start + 1 && (kinds[end - 1].kind === 'blank' || kinds[end - 1].kind === 'comment')) end--;
  return [start, end];
}

/**
 * Refuses a config.toml lro cannot edit by its lines: one that does not parse, or that defines mcp_servers.lro some
 * other way than as a [mcp_servers.lro] table (dotted keys, an inline table), or mcp_servers as an inline table.
 */
function checkToml(text: string, path: string): TomlLine[] {
  const parsed = parseAs('toml', text);
  if ('problem' in parsed) throw new EditRefused(`${path} is not TOML (${parsed.problem}): fix it first, lro leaves it untouched`);
  const { kinds } = structure(text);
  let table: string[] = [];
  for (const k of kinds) {
    if (k.kind === 'header') table = k.path ?? [];
    if (k.kind !== 'key' || !k.path) continue;
    const full = [...table, ...k.path];
    if (samePath(full, ['mcp_servers']) || under(full, ['mcp_servers', 'lro']) || samePath(full, ['mcp_servers', 'lro'])) {
      if (samePath(table, ['mcp_servers', 'lro'])) continue; // a key of lro's table
      throw new EditRefused(
        `${path} defines ${full.slice(0, 2).join('.')} with dotted keys or an inline table: write lro's server as a ` +
          '[mcp_servers.lro] table by hand (or take it out), lro leaves the file untouched',
      );
    }
  }
  return kinds;
}

/**
 * config.toml with [mcp_servers.lro]: put before the user's first table (so a key they later append at the end of
 * the file goes to their own last table, not to lro's), at the end when there is none. When the table is there
 * (an earlier lro's), its command and args are replaced in place and any other key of it stays.
 */
export function installMcp(text: string, table: string[], path: string): string {
  const kinds = checkToml(text, path);
  const { lines, eol } = structure(text);
  const range = mcpRange(kinds);
  if (range) {
    const current = at(parseToml(text), ['mcp_servers', 'lro']);
    if (!isLroMcpEntry(current)) {
      throw new EditRefused(
        `${path} already has an MCP server named "lro" ([mcp_servers.lro]) that is not lro's: rename it, ` +
          'lro leaves the file untouched',
      );
    }
    if (codexTomlVerifier(table).installed(parseToml(text))) return text;
    const out = lines.slice(0, range[0] + 1);
    const wanted = new Map(table.slice(1).map((l) => [keyPath(l.slice(0, l.indexOf('=')))![0], l]));
    for (let i = range[0] + 1; i < range[1]; ) {
      const end = kinds[i].kind === 'key' ? statementEnd(kinds, i) : i + 1;
      const key = kinds[i].kind === 'key' && kinds[i].path?.length === 1 ? kinds[i].path![0] : undefined;
      if (key !== undefined && wanted.has(key)) {
        out.push(wanted.get(key)!);
        wanted.delete(key);
      } else {
        out.push(...lines.slice(i, end));
      }
      i = end;
    }
    out.splice(range[0] + 1, 0, ...wanted.values()); // a key of lro's that was missing
    return [...out, ...lines.slice(range[1])].join(eol);
  }
  const first = firstTable(kinds);
  if (first >= 0) return [...lines.slice(0, first), ...table, '', ...lines.slice(first)].join(eol);
  if (text === '') return table.join(eol) + eol;
  // a file without a last line break stays without one (so that uninstall can give its bytes back)
  return text.endsWith('\n') ? `${text}${eol}${table.join(eol)}${eol}` : `${text}${eol}${eol}${table.join(eol)}`;
}

/** The line where the first table starts, with the comment lines right above its header; -1 when there is none. */
function firstTable(kinds: TomlLine[]): number {
  let i = kinds.findIndex((k) => k.kind === 'header');
  while (i > 0 && kinds[i - 1].kind === 'comment') i--;
  return i;
}

/**
 * config.toml without [mcp_servers.lro] and the blank line init put with it. A table holding more than lro wrote
 * (a key or a sub-table of the user's) is refused: its lines would become keys of the table above.
 */
export function uninstallMcp(text: string, path: string): string {
  const kinds = checkToml(text, path);
  const { lines, eol } = structure(text);
  const range = mcpRange(kinds);
  if (!range) return text;
  if (!isLroMcpEntry(at(parseToml(text), ['mcp_servers', 'lro']))) return text; // the user's own server named lro
  let [start, end] = range;
  const theirs = kinds
    .slice(start + 1, end)
    .filter((k) => k.kind === 'key' && !(k.path?.length === 1 && LRO_KEYS.includes(k.path[0])))
    .map((k) => (k.path ?? ['?']).join('.'));
  theirs.push(...kinds.filter((k) => k.kind === 'header' && under(k.path, ['mcp_servers', 'lro'])).map((k) => `[${k.path!.join('.')}]`));
  if (theirs.length) {
    throw new EditRefused(
      `${path}: [mcp_servers.lro] holds what lro did not write (${theirs.join(', ')}): move it out of lro's table ` +
        '(or delete the table by hand), lro leaves the file untouched',
    );
  }
  if (end < lines.length - 1 && lines[end] === '') {
    end++; // the blank line init put before the next table
  } else {
    if (end === lines.length - 1 && lines[end] === '') end = lines.length; // the last line break
    if (start > 0 && lines[start - 1] === '') start--; // the blank line init put before a table at the end
  }
  const rest = [...lines.slice(0, start), ...lines.slice(end)];
  if (end === lines.length && start > 0) return rest.join(eol) + (text.endsWith('\n') ? eol : '');
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
  'start Codex (`codex`); at "hooks need review" choose "2. Trust all and continue" (press 2, then Enter), or type ' +
  '/hooks and trust the PreToolUse hook whose command ends in `__codex-hook`; until then Codex skips it without a word';
