// lro init cannot damage a file: random settings files of every harness, of the shapes a user may have (a value of
// another type at every key lro touches, comments and trailing commas in JSONC, keys given twice, unicode, nested
// tables, multi-line strings and arrays holding `[x]` and `# x` lines, dotted and quoted keys, CRLF, a BOM), run
// through init and uninstall as `lro init` runs them (installer.verifiedEdit, in-process). Each run is either a
// refusal, or: the result parses with a real parser (JSON.parse, jsonc-parser, smol-toml), lro's entries are there,
// every other value is deep-equal to the original's, init again changes nothing, and uninstall gives back the
// original's values (its bytes, when lro's entries were the only change).
import fc from 'fast-check';
import { parseTree, type Node, type ParseError } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, test } from 'vitest';
import { claudeVerifier, install, uninstall, type Installation } from '../../src/harness/claude-code/settings.js';
import { codexHooksVerifier, codexTomlVerifier, installHooks, installMcp, uninstallHooks, uninstallMcp } from '../../src/harness/codex/settings.js';
import { geminiVerifier, installHook, installMcp as installGeminiMcp, uninstallAll } from '../../src/harness/gemini/settings.js';
import { EditRefused, verifiedEdit, type FileEdit } from '../../src/harness/installer.js';
import { installMcpConfig, mcpConfigVerifier, uninstallMcpConfig, type McpHarness } from '../../src/harness/mcp-config/settings.js';
import { difference } from '../../src/harness/verified-edit.js';
import { seeded } from '../helpers/seeded.js';

const P = 'settings';
const NODE = '/opt/node/bin/node';
const LRO_JS = '/opt/lro/bin/lro.js';
const INST: Installation = { prefix: '/opt/lro/bin/lro-shell-prefix', hookCommand: `${NODE} ${LRO_JS} __claude-code-hook` };
const CODEX_CMD = `${NODE} ${LRO_JS} __codex-hook`;
const GEMINI_CMD = `${NODE} ${LRO_JS} __gemini-hook`;
const SERVER = { command: NODE, args: [LRO_JS, 'mcp'] };
const TABLE = ['[mcp_servers.lro]', `command = ${JSON.stringify(NODE)}`, `args = [${JSON.stringify(LRO_JS)}, "mcp"]`];
/** Runs per harness: a few seconds in all (LRO_FUZZ_RUNS=5000 for a longer hunt). */
const RUNS = Number(process.env.LRO_FUZZ_RUNS) || 250;

// ---- JSON and JSONC texts ----

/** A JSON value whose objects are lists of entries, so a key may be given twice. */
type J = null | boolean | number | string | J[] | { entries: [string, J][] };

const KEYS = ['env', 'hooks', 'model', 'PostToolUse', 'PreToolUse', 'AfterTool', 'mcpServers', 'servers', 'mcp', 'lro', 'command', 'args', 'type', 'matcher', '__proto__', 'é', '🔥 k', ''];
const key = fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 5 }));
const scalar: fc.Arbitrary<J> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 8, unit: 'grapheme' }),
  fc.constantFrom('[x]', '# c', '// c', '/* c */', '"q"', '\\', 'lro-shell-prefix', LRO_JS, 'mcp'),
);
const value: fc.Arbitrary<J> = fc.letrec<{ v: J }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('v'), { maxLength: 3 }),
    fc.array(fc.tuple(key, tie('v')), { maxLength: 3 }).map((entries) => ({ entries })),
  ),
})).v;
const obj = (entries: [string, J][]): J => ({ entries });
/** A value lro meets where it wants an object or an array: of the right type or not. */
const either = (right: fc.Arbitrary<J>): fc.Arbitrary<J> => fc.oneof({ arbitrary: right, weight: 3 }, { arbitrary: value, weight: 1 });

const handler = (lroCommands: string[]): fc.Arbitrary<J> =>
  either(
    fc
      .tuple(fc.constantFrom('prettier --write', 'echo hi', ...lroCommands), fc.option(fc.integer({ min: 1, max: 600 })))
      .map(([command, timeout]) => obj([['type', 'command'], ['command', command], ...(timeout ? ([['timeout', timeout]] as [string, J][]) : [])])),
  );
const groups = (lroCommands: string[]): fc.Arbitrary<J> =>
  either(
    fc.array(
      either(
        fc
          .tuple(fc.constantFrom('Edit', 'mcp__.*', '^Bash$', 'run_shell_command', '^mcp_'), fc.array(handler(lroCommands), { maxLength: 3 }))
          .map(([matcher, hs]) => obj([['matcher', matcher], ['hooks', hs]])),
      ),
      { maxLength: 3 },
    ),
  );

/** A document: the user's own keys, with the keys lro touches placed among them (each maybe twice). */
function doc(special: fc.Arbitrary<[string, J]>[]): fc.Arbitrary<J> {
  return fc
    .tuple(fc.array(fc.tuple(key, value), { maxLength: 4 }), ...special.map((s) => fc.option(s, { freq: 3 })), fc.nat(), fc.boolean())
    .map(([own, ...rest]) => {
      const [seed, twice] = rest.slice(-2) as [number, boolean];
      const entries = [...(own as [string, J][])];
      for (const s of rest.slice(0, -2) as ([string, J] | null)[]) {
        if (!s) continue;
        entries.splice(seed % (entries.length + 1), 0, s);
        if (twice && seed % 7 === 0) entries.push(s);
      }
      return obj(entries);
    });
}

/** How a text is laid out: indentation (null: on one line), line end, BOM, comments and trailing commas (JSONC). */
interface Style {
  indent: string | null;
  eol: string;
  bom: boolean;
  comments: boolean;
  trailing: boolean;
  seed: number;
}
const style = (jsonc: boolean): fc.Arbitrary<Style> =>
  fc.record({
    indent: fc.constantFrom(null, '  ', '    ', '\t'),
    eol: fc.constantFrom('\n', '\r\n'),
    bom: fc.boolean().map((b) => b && Math.random() < 0.2),
    comments: fc.boolean().map((b) => jsonc && b),
    trailing: fc.boolean().map((b) => jsonc && b),
    seed: fc.nat(),
  });

function serialize(v: J, s: Style): string {
  const draw = seeded(s.seed || 1);
  const rand = () => draw.next() % 4 === 0;
  const comment = () => (s.comments && rand() ? '/* [x] é */ ' : '');
  const line = (d: number) => (s.indent === null ? '' : s.eol + s.indent.repeat(d));
  const lineComment = (d: number) => (s.comments && s.indent !== null && rand() ? `// c [y]${line(d)}` : '');
  const go = (x: J, d: number): string => {
    if (x === null || typeof x !== 'object') return JSON.stringify(x);
    const items = Array.isArray(x) ? x.map((e) => go(e, d + 1)) : x.entries.map(([k, e]) => `${comment()}${JSON.stringify(k)}: ${go(e, d + 1)}`);
    const [open, close] = Array.isArray(x) ? ['[', ']'] : ['{', '}'];
    if (!items.length) return `${open}${comment()}${close}`;
    const sep = s.indent === null ? ', ' : `,${line(d + 1)}`;
    const trail = s.trailing && rand() ? ',' : '';
    return `${open}${line(d + 1)}${lineComment(d + 1)}${items.join(sep)}${trail}${line(d)}${close}`;
  };
  return `${s.bom ? '\ufeff' : ''}${go(v, 0)}${s.indent === null && rand() ? '' : s.eol}`;
}

const strict = (t: string): unknown => JSON.parse(t === '' ? '{}' : t);
/** jsonc-parser's tree as data (its parse() would take a key "__proto__" for the object's prototype). */
function jsonc(t: string): unknown {
  const errors: ParseError[] = [];
  const root = parseTree(t, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true });
  if (errors.length) throw new Error(`not JSONC: ${JSON.stringify(errors[0])}`);
  const data = (n: Node): unknown => {
    if (n.type === 'array') return (n.children ?? []).map(data);
    if (n.type !== 'object') return n.value;
    const o = {};
    for (const p of n.children ?? []) {
      Object.defineProperty(o, p.children![0].value as string, { value: data(p.children![1]), enumerable: true, writable: true, configurable: true });
    }
    return o;
  };
  return root ? data(root) : {};
}

// ---- the harnesses' files ----

interface Case {
  name: string;
  edit: FileEdit;
  texts: fc.Arbitrary<string>;
  /** The real parser the harness reads the file with. */
  parse(text: string): unknown;
}

const claudeDoc = doc([
  fc.tuple(fc.constant('env'), either(doc([fc.tuple(fc.constant('CLAUDE_CODE_SHELL_PREFIX'), fc.constantFrom<J>(INST.prefix, '/old/bin/lro-shell-prefix', 'mine', 3))]))),
  fc.tuple(fc.constant('hooks'), either(doc([fc.tuple(fc.constant('PostToolUse'), groups([INST.hookCommand, 'node /old/lro.js __claude-code-hook']))]))),
]);
const codexDoc = doc([fc.tuple(fc.constant('hooks'), either(doc([fc.tuple(fc.constant('PreToolUse'), groups([CODEX_CMD, 'x __codex-hook']))])))]);
const geminiDoc = doc([
  fc.tuple(fc.constant('hooks'), either(doc([fc.tuple(fc.constant('AfterTool'), groups([GEMINI_CMD]))]))),
  fc.tuple(fc.constant('mcpServers'), either(doc([fc.tuple(fc.constant('lro'), fc.constantFrom<J>(obj([['command', NODE], ['args', [LRO_JS, 'mcp']]]), obj([['command', 'mine']]), 5))]))),
]);
const server: fc.Arbitrary<J> = either(
  fc
    .tuple(fc.constantFrom('npx', 'srv', NODE), fc.option(fc.array(fc.constantFrom('-y', 'pkg', '[x]', LRO_JS, 'mcp', 'proxy', '--no-tools', '--'), { maxLength: 7 })), fc.boolean())
    .map(([command, args, env]) =>
      obj([['command', command], ...(args ? ([['args', args]] as [string, J][]) : []), ...(env ? ([['env', obj([['K', 'v']])]] as [string, J][]) : [])]),
    ),
);
const opencodeServer: fc.Arbitrary<J> = either(
  fc.tuple(fc.array(fc.constantFrom('npx', 'srv', NODE, LRO_JS, 'mcp', 'proxy', '--'), { minLength: 1, maxLength: 6 }), fc.boolean()).map(([command, enabled]) =>
    obj([['type', 'local'], ['command', command], ['enabled', enabled]]),
  ),
);
const serversOf = (s: fc.Arbitrary<J>) => either(fc.array(fc.tuple(fc.constantFrom('fs', 'git', 'lro', 'é', 'docs'), s), { maxLength: 3 }).map((e) => obj(e)));

const mcpCase = (h: McpHarness, wrap: boolean, keyName: string, entry: fc.Arbitrary<J>, isJsonc: boolean): Case => ({
  name: `${h}${wrap ? ' --wrap' : ''}`,
  edit: {
    shown: P,
    verify: mcpConfigVerifier(h, wrap, [NODE, LRO_JS]),
    install: (t) => installMcpConfig(h, t, P, wrap, [NODE, LRO_JS]),
    uninstall: (t) => uninstallMcpConfig(h, t, P),
  },
  texts: fc.tuple(doc([fc.tuple(fc.constant(keyName), serversOf(entry))]), style(isJsonc)).map(([d, s]) => serialize(d, s)),
  parse: isJsonc ? jsonc : strict,
});

// ---- TOML texts ----

const tomlString = fc.oneof(
  fc.string({ maxLength: 8, unit: 'grapheme' }).map((s) => JSON.stringify(s)),
  fc.constantFrom('"[x]"', '"a # b"', "'lit [x]'", '"""\n[note]\n# not a comment\nk = 1\n"""', "'''\n[x]\n'''", '"""a""""', '"""\\\n  [y] \\"\\"\\" """'),
);
const tomlValue = fc.oneof(
  tomlString,
  fc.integer().map(String),
  fc.constantFrom('true', '1979-05-27T07:32:00Z', '1979-05-27', 'inf', 'nan', '1_000', '0x1f'),
  fc.constantFrom('[\n  "a",\n  [1, 2],\n  "[x]", # ]\n]', '[ [1], [2] ]', '{ a = 1, b = "[y]" }', '[\n  { a = 1 },\n]', '[]'),
);
/** A table's keys: bare, quoted and dotted, each name once. */
const tomlBody = fc
  .array(fc.tuple(fc.constantFrom('k', '"q k"', "'é'", 'd.e', 'x'), tomlValue, fc.constantFrom('', ' # c [x]', '')), { maxLength: 4 })
  .map((kvs) => kvs.map(([k, v, c], i) => `${k.includes('.') ? `${k}${i}` : k.startsWith('"') || k.startsWith("'") ? `${k.slice(0, -1)}${i}${k.slice(-1)}` : `${k}${i}`} = ${v}${c}`));
const LRO_TABLES = [
  `[mcp_servers.lro]\ncommand = "/old/node"\nargs = ["/old/lro.js", "mcp"]`,
  `['mcp_servers'."lro"] # an earlier lro's\ncommand = "/old/node"\nargs = [\n  "/old/lro.js",\n  "mcp",\n]`,
  `[mcp_servers.lro]\ncommand = "mine"`,
  `[mcp_servers.lro]\ncommand = "/old/node"\nargs = ["/old/lro.js", "mcp"]\nstartup_timeout_sec = 30`,
  `[mcp_servers]\nlro.command = "x"`,
  `[mcp_servers]\ndocs.command = "d"`,
  `[mcp_servers.docs]\ncommand = "d"\nargs = [\n  "[x]",\n]`,
  `[mcp_servers.lro.env]\nK = "v"`,
  `[[mcp_servers]]\nname = "x"`,
];
const HEADERS = ['[profiles.fast]', '[a]', '["a b".c]', "[ 'x' . y ]", '[[arr]]', '[hooks.state."/h.json:pre_tool_use:0:0"]', '[tui] # c'];
const tomlText = fc
  .record({
    root: tomlBody,
    rootExtra: fc.constantFrom('', '', 'mcp_servers.lro.command = "x"', 'mcp_servers = { docs = { command = "d" } }', 'mcp_servers.docs.command = "d"', '# [mcp_servers.lro]'),
    tables: fc.uniqueArray(fc.constantFrom(...HEADERS), { maxLength: 3 }),
    bodies: fc.array(tomlBody, { minLength: 3, maxLength: 3 }),
    lro: fc.option(fc.constantFrom(...LRO_TABLES), { freq: 2 }),
    at: fc.nat(3),
    eol: fc.constantFrom('\n', '\r\n'),
    bom: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
    end: fc.constantFrom('\n', '', '\n\n'),
    comment: fc.constantFrom('', '# my config\n', '# above [a]\n'),
  })
  .map((t) => {
    const tables = t.tables.map((h, i) => [h, ...t.bodies[i]].join('\n'));
    if (t.lro) tables.splice(Math.min(t.at, tables.length), 0, t.lro);
    const root = [...t.root, ...(t.rootExtra ? [t.rootExtra] : [])].join('\n');
    const text = [root, ...tables.map((x, i) => (i === 0 ? t.comment : '') + x)].filter((x) => x !== '').join('\n\n');
    return `${t.bom ? '\ufeff' : ''}${(text + (text ? t.end : '')).replace(/\n/g, t.eol)}`;
  });

const CASES: Case[] = [
  {
    name: 'claude-code',
    edit: { shown: P, verify: claudeVerifier(INST), install: (t) => install(t, INST, P), uninstall: (t) => uninstall(t, P) },
    texts: fc.tuple(claudeDoc, style(false)).map(([d, s]) => serialize(d, s)),
    parse: strict,
  },
  {
    name: 'codex hooks.json',
    edit: { shown: P, verify: codexHooksVerifier(CODEX_CMD), install: (t) => installHooks(t, CODEX_CMD, P), uninstall: (t) => uninstallHooks(t, P) },
    texts: fc.tuple(codexDoc, style(false)).map(([d, s]) => serialize(d, s)),
    parse: strict,
  },
  {
    name: 'gemini --mcp',
    edit: {
      shown: P,
      verify: geminiVerifier(GEMINI_CMD, SERVER),
      install: (t) => installGeminiMcp(installHook(t, GEMINI_CMD, P), SERVER, P),
      uninstall: (t) => uninstallAll(t, P),
    },
    texts: fc.tuple(geminiDoc, style(true)).map(([d, s]) => serialize(d, s)),
    parse: jsonc,
  },
  mcpCase('cursor', true, 'mcpServers', server, false),
  mcpCase('claude-desktop', false, 'mcpServers', server, false),
  mcpCase('vscode', true, 'servers', server, true),
  mcpCase('opencode', true, 'mcp', opencodeServer, true),
  {
    name: 'codex config.toml',
    edit: { shown: P, verify: codexTomlVerifier(TABLE), install: (t) => installMcp(t, TABLE, P), uninstall: (t) => uninstallMcp(t, P) },
    texts: tomlText,
    parse: (t) => parseToml(t),
  },
];

/** Runs an edit as `lro init` does; null when it is refused. */
function attempt(edit: FileEdit, text: string, uninstalling: boolean): string | null {
  try {
    return verifiedEdit(edit, text, uninstalling);
  } catch (e) {
    if (e instanceof EditRefused) {
      expect(e.message.includes('\n'), e.message).toBe(false);
      expect(e.message.startsWith(P), e.message).toBe(true);
      return null;
    }
    throw e;
  }
}

describe.each(CASES)('$name', (c) => {
  test('init then uninstall: refused, or every value not lro\'s kept and the original given back', () => {
    const seen = { refused: 0, installed: 0, exact: 0 };
    fc.assert(
      fc.property(c.texts, (text) => {
        const after = attempt(c.edit, text, false);
        if (after === null) {
          seen.refused++;
          return;
        }
        seen.installed++;
        const v = c.edit.verify;
        const parse = (t: string) => (t.trim() === '' ? {} : c.parse(t));
        const stripped = (t: string) => v.strip(parse(t)); // (strip changes what it is given: a parse of its own)
        const installed = parse(after); // throws when lro wrote what its harness cannot read
        expect(v.installed(installed)).toBe(true);
        expect(difference(stripped(text), stripped(after))).toBeNull();
        expect(attempt(c.edit, after, false)).toBe(after); // init twice changes nothing
        const back = attempt(c.edit, after, true);
        if (back === null) return; // lro's entry holds what the user put there before (an earlier lro's, with their keys)
        expect(v.absent(parse(back))).toBe(true);
        expect(difference(stripped(text), stripped(back))).toBeNull();
        // lro's entries the only change (none in the original, nothing there strip would tidy): the bytes come back
        // (a comment inside a container lro fills from empty may not: the record gives those bytes back)
        if (difference(parse(text), stripped(text)) === null && text.trim() !== '' && !/\/[*/]/.test(text)) {
          expect(back).toBe(text);
          seen.exact++;
        }
      }),
      { numRuns: RUNS },
    );
    // the generators reach both outcomes
    expect(seen.installed, JSON.stringify(seen)).toBeGreaterThan(RUNS / 10);
    expect(seen.refused, JSON.stringify(seen)).toBeGreaterThan(0);
  });
});
