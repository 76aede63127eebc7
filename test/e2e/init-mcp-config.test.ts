// `lro init cursor | vscode | claude-desktop | opencode` on scratch homes: the file each harness reads, written
// exactly; --wrap putting the user's stdio servers behind `lro mcp proxy` and --uninstall taking them out again
// byte for byte; comments of JSONC files kept; unparsable files refused untouched; and the proof that matters: an
// MCP client started from the written config (as the harness would start it) gets lro's descriptor for a large
// upstream result, the small one unchanged, and lro's own entry answers tools/list.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parse } from 'jsonc-parser';
import { afterAll, describe, expect, test } from 'vitest';
import { BIN, cleanup, lro, tempDir } from '../helpers/cli.js';
import { mcpEnv, NODE } from '../helpers/mcp.js';

const root = tempDir();
afterAll(() => cleanup(root));
const FAKE = resolve(__dirname, '../helpers/fake-upstream.mjs');
const PROXY = [BIN, 'mcp', 'proxy', '--no-tools', '--'];
/** What the fake upstream answers to `lines` {lines: 3} given the environment the config names. */
const SMALL = ['greeting: hello from the config', ...[1, 2, 3].map((i) => `line ${i} of the fake upstream`)].join('\n');

type Entry = Record<string, unknown>;

/** What differs between the four harnesses, as the test sees them. */
interface Case {
  h: string;
  /** The init options beyond the harness (the scope). */
  scope: string[];
  file(dir: string): string;
  key: string[];
  jsonc: boolean;
  lro: Entry;
  stdio(argv: string[], env?: Record<string, string>): Entry;
  remote: Entry;
  /** The user's own top-level keys, kept as they are. */
  other: Entry;
  argv(e: Entry): string[];
  env(e: Entry): Record<string, string>;
}

/** A Cursor-like entry: `command` and, when there are any, `args`; `env` when given. */
const splitEntry = (first: Entry, argv: string[], env?: Record<string, string>): Entry => ({
  ...first,
  command: argv[0],
  ...(argv.length > 1 ? { args: argv.slice(1) } : {}),
  ...(env ? { env } : {}),
});

const split = {
  argv: (e: Entry) => [e.command as string, ...((e.args as string[] | undefined) ?? [])],
  env: (e: Entry) => (e.env ?? {}) as Record<string, string>,
};

const CASES: Case[] = [
  {
    h: 'cursor',
    scope: [],
    file: (d) => join(d, '.cursor', 'mcp.json'),
    key: ['mcpServers'],
    jsonc: false,
    lro: { command: NODE, args: [BIN, 'mcp'] },
    stdio: (argv, env) => splitEntry({}, argv, env),
    remote: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer x' } },
    other: {},
    ...split,
  },
  {
    h: 'vscode',
    scope: [],
    file: (d) => join(d, '.config', 'Code', 'User', 'mcp.json'),
    key: ['servers'],
    jsonc: true,
    lro: { type: 'stdio', command: NODE, args: [BIN, 'mcp'] },
    stdio: (argv, env) => splitEntry({ type: 'stdio' }, argv, env),
    remote: { type: 'http', url: 'https://mcp.example.com/mcp' },
    other: { inputs: [{ type: 'promptString', id: 'key', password: true }] },
    ...split,
  },
  {
    h: 'claude-desktop',
    scope: [],
    file: (d) => join(d, '.config', 'Claude', 'claude_desktop_config.json'),
    key: ['mcpServers'],
    jsonc: false,
    lro: { command: NODE, args: [BIN, 'mcp'] },
    stdio: (argv, env) => splitEntry({}, argv, env),
    remote: { url: 'https://mcp.example.com/mcp' },
    other: { globalShortcut: 'Ctrl+Space' },
    ...split,
  },
  {
    h: 'opencode',
    scope: [],
    file: (d) => join(d, '.config', 'opencode', 'opencode.json'),
    key: ['mcp'],
    jsonc: true,
    lro: { type: 'local', command: [NODE, BIN, 'mcp'], enabled: true },
    stdio: (argv, env) => ({ type: 'local', command: argv, enabled: true, ...(env ? { environment: env } : {}) }),
    remote: { type: 'remote', url: 'https://mcp.example.com/mcp', enabled: false },
    other: { $schema: 'https://opencode.ai/config.json', model: 'anthropic/claude-sonnet-4-5' },
    argv: (e) => e.command as string[],
    env: (e) => (e.environment ?? {}) as Record<string, string>,
  },
];

let homes = 0;
/** A fresh home; init runs in <home>/work (a project's folder). */
function home(c: Case) {
  const dir = join(root, `${c.h}-${++homes}`);
  mkdirSync(join(dir, 'work'), { recursive: true });
  const env = { HOME: dir, XDG_STATE_HOME: join(dir, 'state'), XDG_CONFIG_HOME: join(dir, '.config') };
  const run = (...args: string[]) =>
    lro(['init', c.h, ...c.scope, ...args], { env, shellPrefix: `cd '${join(dir, 'work')}' &&` });
  return { dir, env, file: c.file(dir), run };
}

const nest = (key: string[], value: unknown): Entry => ({
  [key[0]]: key.length > 1 ? nest(key.slice(1), value) : value,
});
const read = (path: string) => parse(readFileSync(path, 'utf8')) as Entry;
const servers = (c: Case, doc: Entry) => c.key.reduce((o, k) => (o as Entry)[k], doc as unknown) as Entry;

/** The user's file: two stdio servers (one with args and env, one bare), a remote one, and keys of their own. */
function userConfig(c: Case): Entry {
  return {
    ...c.other,
    ...nest(c.key, {
      fake: c.stdio([NODE, FAKE], { FAKE_GREETING: 'hello from the config' }),
      bare: c.stdio(['my-server']),
      web: c.remote,
    }),
  };
}

/** What --wrap makes of a stdio entry: lro's proxy in front of its command, everything else kept. */
function wrapped(c: Case, e: Entry): Entry {
  const argv = c.argv(e);
  if (c.h === 'opencode') return { ...e, command: [NODE, ...PROXY, ...argv] };
  return { ...e, command: NODE, args: [...PROXY, ...argv] };
}

describe.each(CASES)('lro init $h', (c) => {
  test('a fresh home: --dry-run shows it, init writes it exactly, twice nothing, uninstall removes it', async () => {
    const { file, run } = home(c);
    if (!c.scope.includes('--project')) {
      // the harness is not on this machine (no command, no settings folder): nothing is written without --force
      const refused = await run();
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(new RegExp(`^lro: ${c.h} does not look installed here \\(.*\\): nothing written; install it first, or lro init ${c.h} --force writes .* anyway\n$`));
      expect(existsSync(dirname(file))).toBe(false);
    }
    const dry = await run('--dry-run', '--force');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.out).toMatch(/^--- \/dev\/null\n\+\+\+ .*\n@@ -0,0 \+1,\d+ @@\n\+\{\n/);
    expect(existsSync(file)).toBe(false);
    const r = await run('--force');
    expect(r.code, r.stderr).toBe(0);
    expect(r.out).toContain(`lro's MCP server registered in`);
    expect(readFileSync(file, 'utf8')).toBe(`${JSON.stringify(nest(c.key, { lro: c.lro }), null, 2)}\n`);
    const again = await run('--force');
    expect(again.out).toContain('nothing to change');
    const un = await run('--uninstall');
    expect(un.code, un.stderr).toBe(0);
    expect(un.out).toContain('as it was before lro init');
    expect(existsSync(file)).toBe(false);
    expect(existsSync(dirname(file))).toBe(false);
  });

  test('--wrap: stdio servers behind lro mcp proxy, remote and other keys untouched, mode kept; undo', async () => {
    const { file, run } = home(c);
    mkdirSync(dirname(file), { recursive: true });
    const original = `${JSON.stringify(userConfig(c), null, 2)}\n`;
    writeFileSync(file, original);
    chmodSync(file, 0o600);
    const r = await run('--wrap');
    expect(r.code, r.stderr).toBe(0);
    expect(r.out).toContain("behind lro's proxy, large results offloaded: fake, bare");
    expect(r.out).toContain('left as they are: web (remote');
    const before = userConfig(c);
    const s = servers(c, before);
    expect(read(file)).toEqual({
      ...c.other,
      ...nest(c.key, {
        fake: wrapped(c, s.fake as Entry),
        bare: wrapped(c, s.bare as Entry),
        web: c.remote,
        lro: c.lro,
      }),
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const written = readFileSync(file, 'utf8');
    const again = await run('--wrap');
    expect(again.out).toContain('nothing to change');
    expect(readFileSync(file, 'utf8')).toBe(written);
    expect((await run('--uninstall')).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(original);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  test('uninstall after the user changed the file: only lro comes out, their change stays', async () => {
    const { file, run } = home(c);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(userConfig(c), null, 2)}\n`);
    expect((await run('--wrap')).code).toBe(0);
    const last = c.key[c.key.length - 1];
    const added = JSON.stringify(c.stdio(['added-server', '--flag']));
    const text = readFileSync(file, 'utf8').replace(`"${last}": {`, `"${last}": {\n    "added": ${added},`);
    writeFileSync(file, text);
    const un = await run('--uninstall');
    expect(un.code, un.stderr).toBe(0);
    expect(un.out).toContain('removed from');
    const want = userConfig(c);
    const kept = { added: c.stdio(['added-server', '--flag']), ...servers(c, want) };
    expect(read(file)).toEqual({ ...c.other, ...nest(c.key, kept) });
  });

  test('an unparsable file is refused (exit 2, one line naming it) and left untouched', async () => {
    const { file, run } = home(c);
    mkdirSync(dirname(file), { recursive: true });
    const broken = `{"${c.key[0]}": {"a": }\n`;
    writeFileSync(file, broken);
    const r = await run('--wrap');
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`${file} is not`);
    expect(r.stderr).toContain('lro leaves it untouched');
    expect(readFileSync(file, 'utf8')).toBe(broken);
  });

  test("a client started from the written config: large result → lro's descriptor, small as it was", async () => {
    const { dir, file, run } = home(c);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(userConfig(c), null, 2)}\n`);
    expect((await run('--wrap')).code).toBe(0);
    const store = join(dir, 'store');
    const s = servers(c, read(file));
    const fake = await connect(c, s.fake as Entry, store);
    try {
      const small = await fake.callTool({ name: 'lines', arguments: { lines: 3 } });
      expect(small.content).toEqual([
        { type: 'text', text: SMALL },
      ]);
      const large = await fake.callTool({ name: 'lines', arguments: { lines: 5000 } });
      const text = (large.content as { text: string }[])[0].text;
      expect(text.length).toBeLessThan(12_000);
      const id = /\bid: ([0-9A-Z]{26})\b/.exec(text)?.[1];
      expect(id, text).toBeDefined();
      const found = await lro(['grep', id!, 'line 4999 of'], { env: { LRO_DIR: store } });
      expect(found.out).toContain('line 4999 of the fake upstream');
      // lro's tools come from lro's own entry, once, not again from every wrapped server
      const listed = (await fake.listTools()).tools.map((t) => t.name);
      expect(listed).toContain('lines');
      expect(listed.filter((n) => n.startsWith('lro_'))).toEqual([]);
    } finally {
      await fake.close();
    }
    const own = await connect(c, s.lro as Entry, store);
    try {
      const names = (await own.listTools()).tools.map((t) => t.name);
      expect(names).toContain('lro_read');
    } finally {
      await own.close();
    }
  });
});

/** A client started as the harness starts a server: the entry's command, its args, its environment over ours. */
async function connect(c: Case, entry: Entry, store: string, extra: Record<string, string> = {}): Promise<Client> {
  const [command, ...args] = c.argv(entry);
  const env = { ...mcpEnv(store, extra), ...c.env(entry) };
  const transport = new StdioClientTransport({ command, args, env, stderr: 'pipe' });
  const client = new Client({ name: `${c.h}-as-configured`, version: '1.0.0' });
  await client.connect(transport);
  return client;
}

describe('JSONC files (VS Code, opencode): comments stay', () => {
  const JSONC: Record<string, string> = {
    vscode: [
      '{',
      '  // my servers',
      '  "servers": {',
      '    /* the fake one */',
      '    "fake": {',
      '      "type": "stdio",',
      `      "command": ${JSON.stringify(NODE)},`,
      `      "args": [${JSON.stringify(FAKE)}], // its script`,
      '    },',
      '  },',
      '}',
      '',
    ].join('\n'),
    opencode: [
      '{',
      '  "$schema": "https://opencode.ai/config.json",',
      '  // my servers',
      '  "mcp": {',
      '    "fake": {',
      '      "type": "local",',
      `      "command": [${JSON.stringify(NODE)}, ${JSON.stringify(FAKE)}], // its script`,
      '      "enabled": true,',
      '    },',
      '  },',
      '}',
      '',
    ].join('\n'),
  };
  test.each(CASES.filter((c) => c.jsonc))('$h: init --wrap keeps every comment; uninstall: same bytes', async (c) => {
    const { file, run } = home(c);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSONC[c.h]);
    const r = await run('--wrap');
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    for (const comment of ['// my servers', '// its script', ...(c.h === 'vscode' ? ['/* the fake one */'] : [])]) {
      expect(text).toContain(comment);
    }
    expect(c.argv(servers(c, read(file)).fake as Entry)).toEqual([NODE, ...PROXY, NODE, FAKE]);
    expect((await run('--uninstall')).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(JSONC[c.h]);
  });

  test('cursor and claude-desktop read strict JSON: a comment is refused, the file untouched', async () => {
    for (const c of CASES.filter((x) => !x.jsonc)) {
      const { file, run } = home(c);
      mkdirSync(dirname(file), { recursive: true });
      const text = `// mine\n{"${c.key[0]}": {}}\n`;
      writeFileSync(file, text);
      const r = await run();
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('is not strict JSON (a comment at line 1)');
      expect(readFileSync(file, 'utf8')).toBe(text);
    }
  });
});

describe('lro doctor for the MCP-configured harnesses', () => {
  test('finds the file, names the wrapped servers, and starts lro\'s entry as the harness would', async () => {
    const c = CASES[0];
    const { env, file, run } = home(c);
    const none = await lro(['doctor', c.h], { env });
    expect(none.code).toBe(1);
    expect(none.out).toContain('fix: lro init cursor');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(userConfig(c), null, 2)}\n`);
    expect((await run()).code).toBe(0);
    const plain = await lro(['doctor', c.h, '--json'], { env });
    const checks = JSON.parse(plain.out).checks as { name: string; ok: boolean; detail: string; fix?: string }[];
    expect(checks[0].detail).toContain('not behind lro\'s proxy: fake, bare; remote, left as they are: web');
    expect(checks[0].fix).toBe('lro init cursor --wrap');
    expect((await run('--wrap')).code).toBe(0);
    const r = await lro(['doctor', c.h], { env });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain("behind lro's proxy: fake, bare");
    expect(r.out).toMatch(/ok {2}live: lro's server answered initialize and tools\/list \(\d+ tools\) in \d+ ms/);
    expect(r.out).toContain('lro works in Cursor.');
    // lro moved since: the wrapped servers name a lro.js that is gone; init --wrap puts the new paths in
    const proxy = (js: string) => `${JSON.stringify(js)}, "mcp", "proxy"`;
    writeFileSync(file, readFileSync(file, 'utf8').replace(proxy(BIN), proxy('/gone/lro.js')));
    const stale = await lro(['doctor', c.h], { env });
    expect(stale.code).toBe(1);
    expect(stale.out).toContain('X  paths: server fake names a path that is gone (lro or Node moved)');
    expect(stale.out).toContain('fix: lro init cursor --wrap');
    expect((await run('--wrap')).code).toBe(0);
    expect((await lro(['doctor', c.h], { env })).code).toBe(0);
  });
});

test('usage errors say what to run instead (exit 2): --project for Claude Desktop, --wrap for Codex', async () => {
  const env = { HOME: join(root, 'usage'), XDG_STATE_HOME: join(root, 'usage', 'state') };
  const desktop = await lro(['init', 'claude-desktop', '--project'], { env });
  expect(desktop.code).toBe(2);
  expect(desktop.stderr).toContain('--project is not for claude-desktop: Claude Desktop has one settings file');
  const codex = await lro(['init', 'codex', '--wrap'], { env });
  expect(codex.code).toBe(2);
  expect(codex.stderr).toContain('--wrap is for cursor, vscode, claude-desktop, opencode');
  expect(existsSync(join(root, 'usage'))).toBe(false);
});

describe('--project: a file the team commits names lro by PATH, never this machine', () => {
  /** A folder on PATH with `lro` as npm links it (a symlink to bin/lro.js). */
  const pathDir = join(root, 'path-bin');
  mkdirSync(pathDir);
  symlinkSync(BIN, join(pathDir, 'lro'));
  const REPO = resolve(BIN, '../..');
  /** Every file under `dir`, with its text. */
  const filesUnder = (dir: string): [string, string][] =>
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile())
      .map((d) => join(d.parentPath, d.name))
      .map((f) => [f, readFileSync(f, 'utf8')]);
  const project = (h: string, PATH: string) => {
    const dir = join(root, `${h}-project-${++homes}`);
    const work = join(dir, 'work');
    mkdirSync(work, { recursive: true });
    const env = { HOME: dir, XDG_STATE_HOME: join(dir, 'state'), XDG_CONFIG_HOME: join(dir, '.config'), PATH };
    const run = (...args: string[]) => lro(['init', h, '--project', ...args], { env, shellPrefix: `cd '${work}' &&` });
    return { dir, work, env, run };
  };
  const withLro = `${pathDir}:${dirname(NODE)}:/usr/bin:/bin`;
  const FILES: Record<string, string> = { cursor: '.cursor/mcp.json', vscode: '.vscode/mcp.json', opencode: 'opencode.json' };

  test.each(Object.keys(FILES))('%s: lro mcp by name, no path of the machine in any file; a client starts it; undo exact', async (h) => {
    const p = project(h, withLro);
    const r = await p.run();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(''); // lro is on this PATH: nothing to warn of
    expect(r.out).toContain('lro: the entry names lro by PATH ("command": "lro"), no path of this machine');
    const written = filesUnder(p.work);
    expect(written.map(([f]) => f)).toEqual([join(p.work, FILES[h])]);
    for (const [, text] of written) {
      for (const path of [NODE, dirname(NODE), REPO, p.dir, root]) expect(text).not.toContain(path);
      expect(text).toMatch(/"lro"/);
    }
    // started as the harness starts it: `lro` found on PATH, lro's tools listed
    const c = CASES.find((x) => x.h === h)!;
    const entry = servers(c, read(join(p.work, FILES[h]))).lro as Entry;
    expect(c.argv(entry)).toEqual(['lro', 'mcp']);
    const client = await connect(c, entry, join(p.dir, 'store'), { PATH: withLro });
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('lro_read');
    } finally {
      await client.close();
    }
    const doctor = await lro(['doctor', h], { env: p.env, shellPrefix: `cd '${p.work}' &&` });
    expect(doctor.out).toContain(`ok  paths: lro mcp (lro on PATH: ${join(pathDir, 'lro')})`);
    const un = await p.run('--uninstall');
    expect(un.code, un.stderr).toBe(0);
    expect(filesUnder(p.work)).toEqual([]);
  });

  test('lro not on this PATH: the file is written all the same, one stderr line says so and what to run; doctor too', async () => {
    const p = project('cursor', `${dirname(NODE)}:/usr/bin:/bin`);
    const r = await p.run();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^lro: warning: lro is not on PATH: the project's file names lro by PATH, so Cursor cannot start lro's MCP server on this machine; fix: npm install -g \S+ \(puts lro and lro-hook on PATH\), or ln -s \S+\/bin\/lro\.js ~\/\.local\/bin\/lro and .*\n$/);
    expect(JSON.parse(readFileSync(join(p.work, FILES.cursor), 'utf8'))).toEqual({ mcpServers: { lro: { command: 'lro', args: ['mcp'] } } });
    const doctor = await lro(['doctor', 'cursor'], { env: p.env, shellPrefix: `cd '${p.work}' &&` });
    expect(doctor.code).toBe(1);
    expect(doctor.out).toContain('X  paths: lro is not on PATH: Cursor cannot start lro\'s server from the entry "lro mcp"');
    expect(doctor.out).toContain('fix: npm install -g');
  });

  test('--wrap with --project is refused in one line (exit 2), the file untouched; uninstall still works', async () => {
    const p = project('vscode', withLro);
    const file = join(p.work, FILES.vscode);
    mkdirSync(dirname(file), { recursive: true });
    const mine = '{\n  "servers": { "fs": { "type": "stdio", "command": "npx", "args": ["server-fs"] } }\n}\n';
    writeFileSync(file, mine);
    const r = await p.run('--wrap');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "lro: --wrap is for user settings: .vscode/mcp.json is shared, and a teammate without lro would lose the servers " +
        'wrapped there; lro init vscode --wrap wraps the servers of your own file (the project\'s file is left untouched)\n',
    );
    expect(readFileSync(file, 'utf8')).toBe(mine);
    expect((await p.run()).code).toBe(0);
    expect((await p.run('--uninstall', '--wrap')).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(mine);
  });

  test("an earlier lro's project file (this Node and lro.js by path, servers wrapped): init rewrites it, undo gives it back", async () => {
    // what an earlier lro wrote there: the user-scope form (`init --wrap`), moved into the project
    const c = CASES[0];
    const u = home(c);
    mkdirSync(dirname(u.file), { recursive: true });
    const mine = `${JSON.stringify(userConfig(c), null, 2)}\n`;
    writeFileSync(u.file, mine);
    expect((await u.run('--wrap')).code).toBe(0);
    const earlier = readFileSync(u.file, 'utf8');
    expect(earlier).toContain(BIN);
    const p = project('cursor', withLro);
    const file = join(p.work, FILES.cursor);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, earlier);
    const r = await p.run();
    expect(r.code, r.stderr).toBe(0);
    expect(r.out).toContain("not behind lro's proxy: fake, bare (a project's servers are not wrapped");
    const now = readFileSync(file, 'utf8');
    // (the user's own server names its script by path: theirs to keep)
    expect(now).not.toContain(BIN);
    expect(now).not.toContain('"mcp", "proxy"');
    expect(servers(c, read(file))).toEqual({ ...servers(c, userConfig(c)), lro: { command: 'lro', args: ['mcp'] } });
    expect((await p.run()).out).toContain('nothing to change');
    // uninstall: the record init kept gives back what was there before it (the earlier lro's file)
    expect((await p.run('--uninstall')).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(earlier);
    // and without a record (a teammate's clone): lro's entry and wrapping out, the user's servers as they were
    writeFileSync(file, now);
    expect((await p.run('--uninstall')).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(mine);
  });
});
