// lro in Gemini CLI: which settings file, what lro puts there, how it comes out again, and whether Gemini CLI will
// run it. lro adds to a settings.json (the user's ~/.gemini/settings.json, $GEMINI_CLI_HOME moving the home, or
// a project's ./.gemini/settings.json):
//   - an AfterTool group for the shell tool (matcher run_shell_command) whose handler, named "lro", runs
//     `lro __gemini-hook` through bin/lro-hook (harness/gemini/hook.ts): by absolute paths in the user's file,
//     by PATH in a project's, which a team commits (a teammate's paths differ; without lro there, it steps aside). Gemini CLI hands an AfterTool hook the
//     command's whole output (it cuts it only later), so a large output is stored whole there and the model gets
//     the descriptor. A BeforeTool rewrite of the command was measured and not used: Gemini CLI judges its policy
//     rules on the rewritten command (a user's `deny rm` rule no longer matched, and `rm` ran), and it tells the
//     model of every rewrite, so even a small output would no longer reach the model unchanged.
//   - a second AfterTool group for MCP tools (matcher ^mcp_: Gemini CLI names a server's tool mcp_<server>_<tool>,
//     and a matcher is a regular expression tried on that name) with the same handler: a large MCP result is
//     stored and the model gets the descriptor. Gemini CLI runs a handler once per call even where both match
//     (it drops a second handler of the same name and command).
//   - with --mcp, mcpServers.lro: lro's MCP server (`lro mcp` by PATH in a project's file).
// Gemini CLI reads settings.json as JSON with comments (strip-json-comments, then JSON.parse): a comment is kept
// where it is, a trailing comma or a syntax error makes Gemini CLI reject the file, and lro refuses to edit it.
// Gemini CLI runs hooks from settings only in a trusted folder (or with security.folderTrust.enabled false):
// trustOf() reads trustedFolders.json the way Gemini CLI 0.61.0 does, so `lro doctor gemini` can say so.
import { homedir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { shellQuote } from '../../shell-quote.js';
import { binDir } from '../lro-bin.js';
import { removeAt, setAt, treeOf, valueAt } from '../json-edit.js';
import { at, difference, EditRefused, hasHandler, isObject as isPlainObject, prune, stripHandlers, type Verifier } from '../verified-edit.js';
import { realFile } from '../settings-file.js';

export type GeminiScope = 'user' | 'project';

/** Gemini CLI's folder in the home: $GEMINI_CLI_HOME/.gemini, else ~/.gemini. */
export function geminiDir(env: NodeJS.ProcessEnv): string {
  return join(env.GEMINI_CLI_HOME || env.HOME || homedir(), '.gemini');
}

/** The settings file of a scope. */
export function geminiSettingsPath(scope: GeminiScope, env: NodeJS.ProcessEnv, cwd: string): string {
  return scope === 'project' ? join(cwd, '.gemini', 'settings.json') : join(geminiDir(env), 'settings.json');
}

/** The hidden command Gemini CLI's AfterTool hook runs (harness/gemini/hook.ts). */
export const GEMINI_HOOK_SUBCOMMAND = '__gemini-hook';
export const SHELL_MATCHER = 'run_shell_command';
export const MCP_MATCHER = '^mcp_';
/** lro's groups, one per matcher, each with lro's handler. */
export const MATCHERS = [SHELL_MATCHER, MCP_MATCHER];
/** The hook's name: what hooksConfig.disabled would list to turn it off. */
export const HOOK_NAME = 'lro';
/** In milliseconds: storing a very large output takes seconds; Gemini CLI's default is 60 s. */
export const HOOK_TIMEOUT_MS = 120_000;

/** The hook script npm puts on PATH beside `lro` (package.json "bin"). */
export const HOOK_BIN = 'lro-hook';

/**
 * The hook command of a project's settings, shared by a team: lro-hook found on PATH (Node from PATH too), no path
 * of this machine. Where there is no lro-hook it steps aside as if lro were not installed: nothing on stderr (Gemini
 * CLI would show it), exit 0 (2 blocks the call, others warn), and the tool's result read to its end (so that
 * Gemini CLI's write of it never fails).
 */
export const PORTABLE_HOOK_COMMAND =
  `command -v ${HOOK_BIN} >/dev/null 2>&1 && exec ${HOOK_BIN} ${GEMINI_HOOK_SUBCOMMAND}; cat >/dev/null || true`;

/**
 * The hook command: lro's bin/lro-hook (bash: a small output is left as it is without starting Node) with this Node
 * for the larger ones, by absolute paths in the user's settings; by PATH in a project's (PORTABLE_HOOK_COMMAND).
 */
export function geminiHookCommand(scope: GeminiScope = 'user', nodePath = process.execPath): string {
  if (scope === 'project') return PORTABLE_HOOK_COMMAND;
  return `LRO_NODE=${shellQuote(nodePath)} ${shellQuote(join(binDir(), HOOK_BIN))} ${GEMINI_HOOK_SUBCOMMAND}`;
}

/** Whether a hook command is the portable one (lro-hook by PATH), not one naming lro by paths. */
export const isPortableHook = (command: string): boolean => command === PORTABLE_HOOK_COMMAND;

/** lro's MCP server entry: this Node and lro.js by absolute paths for the user, `lro mcp` by PATH for a project. */
export function mcpServer(scope: GeminiScope = 'user', nodePath = process.execPath): { command: string; args: string[] } {
  if (scope === 'project') return { command: 'lro', args: ['mcp'] };
  return { command: nodePath, args: [join(binDir(), 'lro.js'), 'mcp'] };
}

/** Whether an mcpServers entry is lro's server (`node …/lro.js mcp` wherever lro is installed, or `lro mcp`). */
export function isLroServerEntry(v: unknown): boolean {
  const args = isPlainObject(v) ? v.args : undefined;
  if (!Array.isArray(args)) return false;
  if (typeof args[0] === 'string' && /(^|[\\/])lro\.js$/.test(args[0]) && args[1] === 'mcp') return true;
  const command = isPlainObject(v) ? v.command : undefined;
  return typeof command === 'string' && /(^|[\\/])lro$/.test(command) && args[0] === 'mcp' && args.length === 1;
}

/** Whether the AfterTool list holds a group of this matcher with a handler that `mine` accepts. */
function hasGroup(doc: unknown, matcher: string, mine: (h: unknown) => boolean): boolean {
  const groups = at(doc, ['hooks', 'AfterTool']);
  return Array.isArray(groups) &&
    groups.some((g) => isPlainObject(g) && g.matcher === matcher && Array.isArray(g.hooks) && g.hooks.some(mine));
}

/** Which values of settings.json are lro's: its AfterTool handlers, and mcpServers.lro when it is lro's server. */
export function geminiVerifier(command: string, server: { command: string; args: string[] } | null): Verifier {
  return {
    syntax: 'jsonc',
    needs: [
      [['hooks'], 'object'],
      [['hooks', 'AfterTool'], 'array'],
      ...(server ? ([[['mcpServers'], 'object']] as Verifier['needs']) : []),
    ],
    strip(doc) {
      stripHandlers(doc, 'AfterTool', isLroGeminiHandler);
      const servers = at(doc, ['mcpServers']);
      if (isPlainObject(servers) && isLroServerEntry(servers.lro)) delete servers.lro;
      prune(doc, ['mcpServers']);
      return doc;
    },
    installed: (doc) =>
      MATCHERS.every((m) => hasGroup(doc, m, (h) => isPlainObject(h) && h.command === command)) &&
      (!server || difference(at(doc, ['mcpServers', 'lro']), server) === null),
    absent: (doc) => !hasHandler(doc, 'AfterTool', isLroGeminiHandler) && !isLroServerEntry(at(doc, ['mcpServers', 'lro'])),
  };
}

/** Whether a hook handler is lro's. */
export const isLroGeminiHandler = (h: unknown): boolean =>
  !!h && typeof h === 'object' && typeof (h as { command?: unknown }).command === 'string' &&
  (h as { command: string }).command.includes(GEMINI_HOOK_SUBCOMMAND);

interface Group {
  matcher?: string;
  hooks?: unknown[];
}

/** Why Gemini CLI would reject `text` (comments are fine; a trailing comma or a syntax error is not), or null. */
export function settingsProblem(text: string): string | null {
  const errors: ParseError[] = [];
  parse(text, errors, { allowTrailingComma: false, disallowComments: false, allowEmptyContent: false });
  if (!errors.length) return null;
  const e = errors[0];
  return `${printParseErrorCode(e.error)} at line ${text.slice(0, e.offset).split('\n').length}`;
}

function checkSettings(text: string, path: string): void {
  if (text.trim() === '') return;
  const problem = settingsProblem(text);
  if (problem) {
    throw new EditRefused(
      `${path} is not valid JSON (${problem}): Gemini CLI rejects it too; fix it first, lro leaves it untouched`,
    );
  }
  if (treeOf(text)?.type !== 'object') {
    throw new EditRefused(`${path} is not a JSON object: fix it first, lro leaves it untouched`);
  }
  // lro adds to these; one of another shape would have to be replaced, and what is in it lost
  const shapes: [string[], string][] = [
    [['hooks'], 'object'],
    [['hooks', 'AfterTool'], 'array'],
    [['mcpServers'], 'object'],
  ];
  for (const [at, shape] of shapes) {
    const v = valueAt(text, at);
    if (v === undefined || (shape === 'array' ? Array.isArray(v) : isObject(v))) continue;
    throw new EditRefused(`${path}: ${at.join('.')} is not an ${shape}: fix it first, lro leaves it untouched`);
  }
}

const isObject = (v: unknown): boolean => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * The settings text with lro's AfterTool groups, one per matcher (the same text when they are there already): lro's
 * handlers where they are get this command; a group missing (an install from before lro offloaded MCP results) is
 * added at the end.
 */
export function installHook(text: string, command: string, path: string): string {
  checkSettings(text, path);
  let out = text;
  const groups = (): Group[] | null => {
    const g = valueAt(out, ['hooks', 'AfterTool']);
    return Array.isArray(g) ? (g as Group[]) : null;
  };
  (groups() ?? []).forEach((g, i) => {
    if (!g || !Array.isArray(g.hooks)) return;
    g.hooks.forEach((h, j) => {
      if (isLroGeminiHandler(h) && (h as { command: string }).command !== command) {
        out = setAt(out, ['hooks', 'AfterTool', i, 'hooks', j, 'command'], command);
      }
    });
  });
  for (const matcher of MATCHERS) {
    const list = groups();
    if (list?.some((g) => g && g.matcher === matcher && Array.isArray(g.hooks) && g.hooks.some(isLroGeminiHandler))) continue;
    const group = { matcher, hooks: [{ name: HOOK_NAME, type: 'command', command, timeout: HOOK_TIMEOUT_MS }] };
    out = list ? setAt(out, ['hooks', 'AfterTool', -1], group) : setAt(out, ['hooks', 'AfterTool'], [group]);
  }
  return out;
}

/** The settings text with mcpServers.lro (replaced when it is there in another form). */
export function installMcp(text: string, server: { command: string; args: string[] }, path: string): string {
  checkSettings(text, path);
  const current = valueAt(text, ['mcpServers', 'lro']);
  if (JSON.stringify(current) === JSON.stringify(server)) return text;
  if (current !== undefined && !isLroServerEntry(current)) {
    throw new EditRefused(
      `${path} already has an MCP server named "lro" (mcpServers.lro) that is not lro's: rename it, lro leaves the file untouched`,
    );
  }
  return setAt(text, ['mcpServers', 'lro'], server);
}

const isEmptyObject = (v: unknown): boolean =>
  !!v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0;

/** The settings text without lro's hook handlers and MCP server, and what their removal leaves empty. */
export function uninstallAll(text: string, path: string): string {
  checkSettings(text, path);
  let out = text;
  for (;;) {
    const groups = valueAt(out, ['hooks', 'AfterTool']);
    if (!Array.isArray(groups)) break;
    const g = (groups as Group[]).findIndex((x) => x && Array.isArray(x.hooks) && x.hooks.some(isLroGeminiHandler));
    if (g < 0) break;
    const hooks = (groups as Group[])[g].hooks!;
    if (hooks.every(isLroGeminiHandler)) out = removeAt(out, ['hooks', 'AfterTool', g]);
    else out = removeAt(out, ['hooks', 'AfterTool', g, 'hooks', hooks.findIndex(isLroGeminiHandler)]);
    const after = valueAt(out, ['hooks', 'AfterTool']);
    if (Array.isArray(after) && after.length === 0) {
      out = removeAt(out, ['hooks', 'AfterTool']);
      if (isEmptyObject(valueAt(out, ['hooks']))) out = removeAt(out, ['hooks']);
    }
  }
  if (isLroServerEntry(valueAt(out, ['mcpServers', 'lro']))) {
    out = removeAt(out, ['mcpServers', 'lro']);
    if (isEmptyObject(valueAt(out, ['mcpServers']))) out = removeAt(out, ['mcpServers']);
  }
  return out;
}

/** lro's handlers in a settings text: each one's command and group's matcher, in order (none: an invalid file). */
export function findLroHooks(text: string): { command: string; matcher?: string; name?: string }[] {
  if (settingsProblem(text)) return [];
  const groups = valueAt(text, ['hooks', 'AfterTool']);
  const found: { command: string; matcher?: string; name?: string }[] = [];
  for (const g of Array.isArray(groups) ? (groups as Group[]) : []) {
    for (const h of Array.isArray(g?.hooks) ? g.hooks.filter(isLroGeminiHandler) : []) {
      found.push({ ...(h as { command: string; name?: string }), matcher: g.matcher });
    }
  }
  return found;
}

/** lro's first handler in a settings text, or null. */
export function findLroHook(text: string): { command: string; matcher?: string; name?: string } | null {
  return findLroHooks(text)[0] ?? null;
}

/**
 * Whether Gemini CLI 0.61.0 runs a group of this matcher for a tool of this name: a matcher is a regular expression
 * tried anywhere in the name (a matcher that is no valid expression: the same name), none or `*` every tool.
 */
export function matcherMatches(matcher: string | undefined, tool: string): boolean {
  const m = (matcher ?? '').trim();
  if (m === '' || m === '*') return true;
  try {
    return new RegExp(m).test(tool);
  } catch {
    return m === tool;
  }
}

// ---- folder trust ----

/** Where Gemini CLI records trusted folders: $GEMINI_CLI_TRUSTED_FOLDERS_PATH, else ~/.gemini/trustedFolders.json. */
export function trustedFoldersPath(env: NodeJS.ProcessEnv): string {
  return env.GEMINI_CLI_TRUSTED_FOLDERS_PATH || join(geminiDir(env), 'trustedFolders.json');
}

const within = (parent: string, child: string): boolean =>
  child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);

/**
 * Whether Gemini CLI 0.61.0 trusts `folder` by its trustedFolders.json (an object of path → TRUST_FOLDER,
 * TRUST_PARENT or DO_NOT_TRUST; the longest rule that holds the folder decides): true, false, or undefined when
 * no rule says (Gemini CLI then asks in its terminal, and refuses to run headless).
 */
export function folderTrust(trustedFolders: string | null, folder: string): boolean | undefined {
  let rules: Record<string, unknown>;
  try {
    rules = trustedFolders ? (parse(trustedFolders) as Record<string, unknown>) : {};
  } catch {
    return undefined;
  }
  const target = realFile(resolve(folder));
  let best = -1;
  let level: unknown;
  for (const [path, trust] of Object.entries(rules ?? {})) {
    const effective = realFile(resolve(trust === 'TRUST_PARENT' ? dirname(path) : path));
    if (within(effective, target) && path.length > best) {
      best = path.length;
      level = trust;
    }
  }
  if (level === 'DO_NOT_TRUST') return false;
  if (level === 'TRUST_FOLDER' || level === 'TRUST_PARENT') return true;
  return undefined;
}

/** The user's step to trust a folder, so that Gemini CLI runs the hooks from its settings there. */
export const TRUST_STEP =
  'start `gemini` in the project folder and choose to trust it (or /permissions later); headless runs: ' +
  '`gemini --skip-trust` or GEMINI_CLI_TRUST_WORKSPACE=true. Until then Gemini CLI runs no hook from settings in it';
