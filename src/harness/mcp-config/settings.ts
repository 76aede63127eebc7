// lro in the harnesses configured by an MCP server list alone: Cursor, VS Code, Claude Desktop, opencode. One
// adapter, parametrised by a small table of where each keeps its list, under which key, and how an entry names its
// command. lro adds its own server (entry `lro`: `lro mcp`, by the absolute paths of this Node and lro's
// bin/lro.js in the user's file; by PATH, `lro mcp`, in a project's, which a team commits) and, with --wrap (user
// files only), puts each of the user's stdio servers behind `lro mcp proxy -- <their command>`,
// so a large result of theirs reaches the model as a descriptor. Every edit is a surgical text edit (json-edit.ts):
// comments (VS Code and opencode read JSONC), order and layout stay; --uninstall is the exact inverse.
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { existsSync } from 'node:fs';
import { applyEdits, findNodeAtLocation, parse, printParseErrorCode } from 'jsonc-parser';
import type { JSONPath, ParseError } from 'jsonc-parser';
import { binDir } from '../lro-bin.js';
import { removeAt, setAt, strictJsonProblem, treeOf, valueAt } from '../json-edit.js';
import { at, EditRefused, isObject, prune, type Path, type Verifier } from '../verified-edit.js';

export const MCP_HARNESSES = ['cursor', 'vscode', 'claude-desktop', 'opencode'] as const;
export type McpHarness = (typeof MCP_HARNESSES)[number];
export type McpScope = 'user' | 'project';

/** What differs from one harness to the next. */
interface Shape {
  title: string;
  /** Whether the harness reads its file as JSONC (comments, trailing commas). */
  jsonc: boolean;
  /** 'split': `command` a string and `args` an array; 'array': `command` the whole argv (opencode). */
  style: 'split' | 'array';
  /** The file for a scope (relative for a project), or null when the harness has no such scope. */
  file(scope: McpScope, env: NodeJS.ProcessEnv): string | null;
  /** The key holding the servers, as this file's text has it. */
  key(text: string): JSONPath;
  /** A new stdio entry running argv. */
  entry(argv: string[], text: string): Record<string, unknown>;
  /** Whether an entry is a local (stdio) server the harness starts itself. */
  local(e: Record<string, unknown>): boolean;
}

const home = (env: NodeJS.ProcessEnv): string => env.HOME || homedir();
const xdgConfig = (env: NodeJS.ProcessEnv): string => env.XDG_CONFIG_HOME || join(home(env), '.config');

/** Where an Electron app keeps its user data folder: ~/Library/Application Support, %APPDATA%, else XDG. */
function appData(env: NodeJS.ProcessEnv): string {
  if (process.platform === 'darwin') return join(home(env), 'Library', 'Application Support');
  if (process.platform === 'win32' && env.APPDATA) return env.APPDATA;
  return xdgConfig(env);
}

/** The first of `names` that exists in `dir`, else the first. */
function firstExisting(dir: string, names: string[]): string {
  return join(dir, names.find((n) => existsSync(join(dir, n))) ?? names[0]);
}

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** opencode 2 lists servers under mcp.servers; opencode 1 (read by 2 as well) right under mcp. */
function opencodeV2(text: string): boolean {
  const servers = valueAt(text, ['mcp', 'servers']);
  return !!servers && typeof servers === 'object' && !Array.isArray(servers) && !('type' in servers);
}

const SHAPES: Record<McpHarness, Shape> = {
  cursor: {
    title: 'Cursor',
    jsonc: false,
    style: 'split',
    file: (scope, env) => (scope === 'project' ? join('.cursor', 'mcp.json') : join(home(env), '.cursor', 'mcp.json')),
    key: () => ['mcpServers'],
    entry: (argv) => ({ command: argv[0], args: argv.slice(1) }),
    local: (e) => typeof e.command === 'string',
  },
  vscode: {
    title: 'VS Code',
    jsonc: true,
    style: 'split',
    file: (scope, env) =>
      scope === 'project' ? join('.vscode', 'mcp.json') : join(appData(env), 'Code', 'User', 'mcp.json'),
    key: () => ['servers'],
    entry: (argv) => ({ type: 'stdio', command: argv[0], args: argv.slice(1) }),
    local: (e) => typeof e.command === 'string' && (e.type === undefined || e.type === 'stdio'),
  },
  'claude-desktop': {
    title: 'Claude Desktop',
    jsonc: false,
    style: 'split',
    file: (scope, env) => (scope === 'project' ? null : join(appData(env), 'Claude', 'claude_desktop_config.json')),
    key: () => ['mcpServers'],
    entry: (argv) => ({ command: argv[0], args: argv.slice(1) }),
    local: (e) => typeof e.command === 'string',
  },
  opencode: {
    title: 'opencode',
    jsonc: true,
    style: 'array',
    file: (scope, env) =>
      firstExisting(scope === 'project' ? '.' : join(xdgConfig(env), 'opencode'), ['opencode.json', 'opencode.jsonc']),
    key: (text) => (opencodeV2(text) ? ['mcp', 'servers'] : ['mcp']),
    // opencode 2 has no `enabled` (it has `disabled`); opencode 1 wants it
    entry: (argv, text) =>
      opencodeV2(text) ? { type: 'local', command: argv } : { type: 'local', command: argv, enabled: true },
    local: (e) => (e.type === undefined || e.type === 'local') && isStringArray(e.command) && e.command.length > 0,
  },
};

export const mcpTitle = (h: McpHarness): string => SHAPES[h].title;
export const isMcpHarness = (h: string): h is McpHarness => (MCP_HARNESSES as readonly string[]).includes(h);

/** The file lro edits for a harness and scope, or null when the harness has no such scope. */
export function mcpConfigPath(h: McpHarness, scope: McpScope, env: NodeJS.ProcessEnv): string | null {
  return SHAPES[h].file(scope, env);
}

/**
 * lro's own server, and the start of every wrapped server: this Node and lro's bin/lro.js, by absolute paths, in
 * the user's file; `lro` by PATH in a project's, which a team shares (no path of this machine in it).
 */
export function lroArgv(scope: McpScope = 'user', nodePath = process.execPath): string[] {
  if (scope === 'project') return ['lro'];
  return [nodePath, join(binDir(), 'lro.js')];
}

/** What init --wrap puts after lro's paths: the proxy adds no tools of lro's (init registers lro's own server). */
const PROXY = ['mcp', 'proxy', '--no-tools', '--'];
/** The wrapping of an earlier lro (lro's tools added by each proxy): still recognised, and brought up to date. */
const OLD_PROXY = ['mcp', 'proxy', '--'];
const startsWith = (argv: string[], at: number, words: string[]) => words.every((w, i) => argv[at + i] === w);
const isLroJs = (p: string | undefined): boolean => !!p && basename(p) === 'lro.js';
const isLroBin = (p: string | undefined): boolean => !!p && basename(p) === 'lro';

/** How many leading words of argv are lro's wrapping (node lro.js mcp proxy --no-tools --), 0 when it is not lro's. */
function lroWrapLength(argv: string[]): number {
  if (!isLroJs(argv[1])) return 0;
  for (const words of [PROXY, OLD_PROXY]) {
    if (startsWith(argv, 2, words) && argv.length > 2 + words.length) return 2 + words.length;
  }
  return 0;
}

/** Whether argv is lro's wrapping of a server (the one init --wrap writes, with lro's paths in front). */
export const isLroWrapped = (argv: string[]): boolean => lroWrapLength(argv) > 0;

/** Whether argv already runs behind `lro mcp proxy` (lro's wrapping, or one written by hand with `lro`). */
export function isWrapped(argv: string[]): boolean {
  return lroWrapLength(argv) > 0 || (isLroBin(argv[0]) && startsWith(argv, 1, ['mcp', 'proxy']));
}

/** Whether argv is lro's own MCP server (`lro mcp`, not a proxy). */
function isLroServer(argv: string[]): boolean {
  if (isLroJs(argv[1])) return argv[2] === 'mcp' && argv[3] !== 'proxy';
  return isLroBin(argv[0]) && argv[1] === 'mcp' && argv[2] !== 'proxy';
}

/** The argv an entry starts, or null for a server the harness does not start (remote, or not understood). */
export function argvOf(h: McpHarness, entry: unknown): string[] | null {
  if (!entry || typeof entry !== 'object' || Array.isArray(entry)) return null;
  const e = entry as Record<string, unknown>;
  if (!SHAPES[h].local(e)) return null;
  if (SHAPES[h].style === 'array') return e.command as string[];
  if (e.args !== undefined && !isStringArray(e.args)) return null;
  return [e.command as string, ...((e.args as string[] | undefined) ?? [])];
}

/** Refuses a file lro will not edit: not JSON (or JSONC where the harness reads it), not an object, odd servers. */
export function checkConfig(h: McpHarness, text: string, path: string): void {
  if (text.trim() === '') return;
  const shape = SHAPES[h];
  const problem = shape.jsonc ? jsoncProblem(text) : strictJsonProblem(text);
  if (problem) {
    const kind = shape.jsonc ? 'JSON with comments' : 'strict JSON';
    throw new EditRefused(`${path} is not ${kind} (${problem}): fix it first, lro leaves it untouched`);
  }
  if (treeOf(text)?.type !== 'object') {
    throw new EditRefused(`${path} is not a JSON object: fix it first, lro leaves it untouched`);
  }
  const servers = valueAt(text, shape.key(text));
  if (servers !== undefined && (!servers || typeof servers !== 'object' || Array.isArray(servers))) {
    const key = shape.key(text).join('.');
    throw new EditRefused(`${path}: "${key}" is not an object of servers: fix it first, lro leaves it untouched`);
  }
}

/** Why `text` is not JSONC (comments and trailing commas allowed), or null. */
function jsoncProblem(text: string): string | null {
  const errors: ParseError[] = [];
  parse(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  if (!errors.length) return null;
  const line = text.slice(0, errors[0].offset).split('\n').length;
  return `${printParseErrorCode(errors[0].error)} at line ${line}`;
}

/** The servers of a file: name and entry, in the file's order. */
export function serversOf(h: McpHarness, text: string): [string, unknown][] {
  const servers = text.trim() === '' ? undefined : valueAt(text, SHAPES[h].key(text));
  return servers && typeof servers === 'object' && !Array.isArray(servers) ? Object.entries(servers) : [];
}

// ---- surgical edits of one entry ----

const nodeAt = (text: string, path: JSONPath) => {
  const root = treeOf(text);
  return root && findNodeAtLocation(root, path);
};

/** A string or an array of strings as JSON on one line, spaced as people write it. */
const oneLine = (v: unknown): string =>
  Array.isArray(v) ? `[${v.map((x) => JSON.stringify(x)).join(', ')}]` : JSON.stringify(v);

/** Replaces the value at an existing path (an array element too) with `value`, on one line. */
function replaceAt(text: string, path: JSONPath, value: unknown): string {
  const node = nodeAt(text, path)!;
  return applyEdits(text, [{ offset: node.offset, length: node.length, content: oneLine(value) }]);
}

/** Puts `words` at the start of the array at `path` (on the first element's line), or makes it. */
function prepend(text: string, path: JSONPath, words: string[]): string {
  const node = nodeAt(text, path);
  if (!node) return addAfterCommand(text, path, words);
  const first = node.children?.[0];
  if (!first) return replaceAt(text, path, words);
  const content = words.map((w) => `${JSON.stringify(w)}, `).join('');
  return applyEdits(text, [{ offset: first.offset, length: 0, content }]);
}

/** Adds the property `path` names (on one line) right after its object's `command`, as that one is laid out. */
function addAfterCommand(text: string, path: JSONPath, value: unknown): string {
  const command = nodeAt(text, [...path.slice(0, -1), 'command'])!.parent!;
  const end = command.offset + command.length;
  const lineStart = text.lastIndexOf('\n', command.offset - 1) + 1;
  const own = text.slice(lineStart, command.offset).trim() === '';
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const sep = own ? `,${eol}${text.slice(lineStart, command.offset)}` : ', ';
  const content = `${sep}${JSON.stringify(path[path.length - 1])}: ${oneLine(value)}`;
  return applyEdits(text, [{ offset: end, length: 0, content }]);
}

/** Takes the first `n` elements out of the array at `path` (the array itself when nothing would be left). */
function dropFirst(text: string, path: JSONPath, n: number): string {
  const node = nodeAt(text, path)!;
  const children = node.children ?? [];
  if (children.length <= n) return removeAt(text, path);
  const start = children[0].offset;
  return applyEdits(text, [{ offset: start, length: children[n].offset - start, content: '' }]);
}

/** The entry at `at` now starts `lro mcp proxy -- <its argv>`. */
function wrapEntry(h: McpHarness, text: string, at: JSONPath, argv: string[], lro: string[]): string {
  if (SHAPES[h].style === 'array') return prepend(text, [...at, 'command'], [...lro, ...PROXY]);
  const out = replaceAt(text, [...at, 'command'], lro[0]);
  return prepend(out, [...at, 'args'], [lro[1], ...PROXY, argv[0]]);
}

/** The entry at `at` starts its own argv again (the inverse of wrapEntry). */
function unwrapEntry(h: McpHarness, text: string, at: JSONPath, argv: string[]): string {
  const n = lroWrapLength(argv);
  if (SHAPES[h].style === 'array') return dropFirst(text, [...at, 'command'], n);
  const out = replaceAt(text, [...at, 'command'], argv[n]);
  return dropFirst(out, [...at, 'args'], n);
}

/** A wrapped entry whose node or lro.js moved (lro reinstalled elsewhere), or of an earlier lro: brought up to date. */
function repathEntry(h: McpHarness, text: string, at: JSONPath, argv: string[], lro: string[]): string {
  if (lroWrapLength(argv) !== 2 + PROXY.length) {
    // an earlier lro's wrapping: unwrapped, then wrapped as this lro does it
    const inner = argv.slice(lroWrapLength(argv));
    return wrapEntry(h, unwrapEntry(h, text, at, argv), at, inner, lro);
  }
  let out = text;
  const array = SHAPES[h].style === 'array';
  const [node, js] = array ? [[...at, 'command', 0], [...at, 'command', 1]] : [[...at, 'command'], [...at, 'args', 0]];
  if (argv[0] !== lro[0]) out = replaceAt(out, node, lro[0]);
  if (argv[1] !== lro[1]) out = replaceAt(out, js, lro[1]);
  return out;
}

// ---- install, uninstall ----

export const LRO_ENTRY = 'lro';

/**
 * The file with lro's server in it and, with wrap, every stdio server of the user's behind lro's proxy. A project's
 * file (lro named by PATH: `lro`) is never wrapped, as a teammate without lro would lose those servers: a wrapping
 * an earlier lro put there, by this machine's paths, is taken out.
 */
export function installMcpConfig(h: McpHarness, text: string, path: string, wrap: boolean, lro = lroArgv()): string {
  checkConfig(h, text, path);
  let out = installLroEntry(h, text, path, lro);
  if (lro.length === 1) return unwrapAll(h, out);
  if (!wrap) return out;
  for (const [name] of serversOf(h, out)) {
    if (name === LRO_ENTRY) continue;
    const at = [...SHAPES[h].key(out), name];
    const argv = argvOf(h, valueAt(out, at));
    if (!argv || isLroServer(argv)) continue;
    if (lroWrapLength(argv)) out = repathEntry(h, out, at, argv, lro);
    else if (!isWrapped(argv)) out = wrapEntry(h, out, at, argv, lro);
  }
  return out;
}

/** Every server lro wrapped, unwrapped. */
function unwrapAll(h: McpHarness, text: string): string {
  let out = text;
  for (const [name, entry] of serversOf(h, text)) {
    const argv = argvOf(h, entry);
    if (argv && lroWrapLength(argv)) out = unwrapEntry(h, out, [...SHAPES[h].key(out), name], argv);
  }
  return out;
}

function installLroEntry(h: McpHarness, text: string, path: string, lro: string[]): string {
  const shape = SHAPES[h];
  const key = shape.key(text);
  const want = shape.entry([...lro, 'mcp'], text);
  const current = text.trim() === '' ? undefined : valueAt(text, [...key, LRO_ENTRY]);
  if (current === undefined) return setAt(text, [...key, LRO_ENTRY], want);
  const argv = argvOf(h, current);
  if (!argv || !isLroServer(argv)) {
    throw new EditRefused(
      `${path} already has a server named "${LRO_ENTRY}" that is not lro's MCP server: rename it, ` +
        'lro leaves the file untouched',
    );
  }
  if (JSON.stringify(current) === JSON.stringify(want)) return text;
  return setAt(text, [...key, LRO_ENTRY], want);
}

/** The file without lro's server and with every server lro wrapped unwrapped; nothing else changes. */
export function uninstallMcpConfig(h: McpHarness, text: string, path: string): string {
  checkConfig(h, text, path);
  let out = text;
  let removed = false;
  for (const [name, entry] of serversOf(h, text)) {
    const at = [...SHAPES[h].key(out), name];
    const argv = argvOf(h, entry);
    if (!argv) continue;
    if (name === LRO_ENTRY && isLroServer(argv)) {
      out = removeAt(out, at);
      removed = true;
    } else if (lroWrapLength(argv)) out = unwrapEntry(h, out, at, argv);
  }
  // the list lro's entry leaves empty goes, as init made it (and opencode 2's mcp around it)
  const key = SHAPES[h].key(out);
  for (let i = key.length; removed && i > 0; i--) {
    const v = valueAt(out, key.slice(0, i));
    if (!v || typeof v !== 'object' || Array.isArray(v) || Object.keys(v).length) break;
    out = removeAt(out, key.slice(0, i));
  }
  return out;
}

/**
 * Which values of the file are lro's: the entry "lro" when it is lro's server, and lro's words in front of each
 * server it wrapped. An empty `args` counts as none (unwrapping a server lro gave args to takes them out again).
 */
export function mcpConfigVerifier(h: McpHarness, wrap: boolean, lro = lroArgv()): Verifier {
  const shape = SHAPES[h];
  const serversIn = (doc: unknown): [Path, unknown] => {
    // the key as the text has it: opencode 2's mcp.servers when it is an object of servers
    const v2 = at(doc, ['mcp', 'servers']);
    const key = h === 'opencode' && isObject(v2) && !('type' in v2) ? ['mcp', 'servers'] : shape.key('');
    return [key, at(doc, key)];
  };
  return {
    syntax: shape.jsonc ? 'jsonc' : 'json',
    needs: [[shape.key(''), 'object']],
    strip(doc) {
      const [key, servers] = serversIn(doc);
      if (!isObject(servers)) return doc;
      for (const name of Object.keys(servers)) {
        const entry = servers[name];
        const argv = argvOf(h, entry);
        if (argv && name === LRO_ENTRY && isLroServer(argv)) {
          delete servers[name];
          continue;
        }
        if (!isObject(entry)) continue;
        const n = argv ? lroWrapLength(argv) : 0;
        if (n && shape.style === 'array') entry.command = argv!.slice(n);
        else if (n) {
          entry.command = argv![n];
          entry.args = argv!.slice(n + 1);
        }
        if (shape.style === 'split' && Array.isArray(entry.args) && entry.args.length === 0) delete entry.args;
      }
      prune(doc, key);
      return doc;
    },
    installed(doc) {
      const [, servers] = serversIn(doc);
      if (!isObject(servers)) return false;
      const mine = argvOf(h, servers[LRO_ENTRY]);
      if (!mine || mine.join('\0') !== [...lro, 'mcp'].join('\0')) return false;
      // a project's file: lro by PATH, and no wrapping by this machine's paths left in it
      if (lro.length === 1) return Object.values(servers).every((e) => !lroWrapLength(argvOf(h, e) ?? []));
      if (!wrap) return true;
      return Object.entries(servers).every(([name, e]) => {
        const argv = argvOf(h, e);
        return name === LRO_ENTRY || !argv || isLroServer(argv) || isWrapped(argv);
      });
    },
    absent(doc) {
      const [, servers] = serversIn(doc);
      if (!isObject(servers)) return true;
      return Object.entries(servers).every(([name, e]) => {
        const argv = argvOf(h, e);
        return !argv || (!(name === LRO_ENTRY && isLroServer(argv)) && lroWrapLength(argv) === 0);
      });
    },
  };
}

/** What a file holds, for the report and lro doctor. */
export interface Survey {
  /** lro's server's argv, when there is one. */
  lro: string[] | null;
  wrapped: string[];
  /** Stdio servers not behind lro's proxy. */
  unwrapped: string[];
  /** Servers the harness does not start (remote): lro cannot put its proxy in front of them. */
  remote: string[];
}

export function survey(h: McpHarness, text: string): Survey {
  const s: Survey = { lro: null, wrapped: [], unwrapped: [], remote: [] };
  for (const [name, entry] of serversOf(h, text)) {
    const argv = argvOf(h, entry);
    if (!argv) s.remote.push(name);
    else if (isLroServer(argv)) {
      if (name === LRO_ENTRY || !s.lro) s.lro = argv;
    } else (isWrapped(argv) ? s.wrapped : s.unwrapped).push(name);
  }
  return s;
}

/** The environment an entry gives its command (`env`, or opencode's `environment`). */
export function envOf(entry: unknown): Record<string, string> {
  const e = (entry ?? {}) as Record<string, unknown>;
  const env = e.env ?? e.environment;
  return env && typeof env === 'object' ? (env as Record<string, string>) : {};
}
