// `lro init` cannot damage a file (issue 37): the reproductions outside testers found, each run through the built
// binary. A value lro would have to replace is refused in one line, the file byte for byte untouched; a TOML file
// is edited where TOML puts things, not where its lines look like it; a symlink stays a symlink; --restore gives
// back the original lro kept, whatever happened since; uninstall leaves no empty state folder behind.
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterAll, expect, test } from 'vitest';
import { cleanup, lro, tempDir } from '../helpers/cli.js';

const root = tempDir();
afterAll(() => cleanup(root));

let n = 0;
function home(): { dir: string; env: Record<string, string>; claude: string; codex: string; state: string } {
  const dir = join(root, `h${n++}`);
  mkdirSync(join(dir, '.claude'), { recursive: true });
  mkdirSync(join(dir, '.codex'), { recursive: true });
  const state = join(dir, 'state');
  return {
    dir,
    state,
    env: { HOME: dir, XDG_STATE_HOME: state, CODEX_HOME: join(dir, '.codex') },
    claude: join(dir, '.claude', 'settings.json'),
    codex: join(dir, '.codex'),
  };
}

/** A refusal: exit 2, one line on stderr naming the file, every file as it was. */
function refused(r: { code: number | null; stderr: string }, file: string, what: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr.split('\n')).toHaveLength(2);
  expect(r.stderr).toContain(file);
  expect(r.stderr).toMatch(what);
}

test.each(['{"env": 42}', '{"env": null}', '{"env": true}', '{"env": "x"}', '{"hooks": 7}', '{"hooks": {"PostToolUse": {"matcher": "x"}}}'])(
  'Claude Code settings %s: refused, untouched, and the installer says what to do',
  async (text) => {
    const h = home();
    writeFileSync(h.claude, text);
    for (const args of [['init', 'claude-code'], ['init', 'claude-code', '--dry-run']]) {
      const r = await lro(args, { env: h.env });
      refused(r, h.claude, / is (a number|null|a boolean|a string|an object)\b.*not an (object|array).*make it an/);
      expect(readFileSync(h.claude, 'utf8')).toBe(text);
    }
    expect(existsSync(h.state)).toBe(false);
  },
);

test('Codex hooks.json {"hooks": 5}: refused, hooks.json and config.toml untouched', async () => {
  const h = home();
  writeFileSync(join(h.codex, 'hooks.json'), '{"hooks": 5}');
  const r = await lro(['init', 'codex', '--mcp'], { env: h.env });
  refused(r, join(h.codex, 'hooks.json'), /hooks is a number \(5\), not an object/);
  expect(readFileSync(join(h.codex, 'hooks.json'), 'utf8')).toBe('{"hooks": 5}');
  expect(existsSync(join(h.codex, 'config.toml'))).toBe(false);
});

test('a dangling symlink as settings file: written through (the link stays), and after uninstall still a link', async () => {
  const h = home();
  mkdirSync(join(h.dir, 'dotfiles'));
  symlinkSync('../dotfiles/claude.json', h.claude);
  const r = await lro(['init', 'claude-code'], { env: h.env });
  expect(r.code, r.stderr).toBe(0);
  expect(lstatSync(h.claude).isSymbolicLink()).toBe(true);
  expect(JSON.parse(readFileSync(join(h.dir, 'dotfiles', 'claude.json'), 'utf8')).env.CLAUDE_CODE_SHELL_PREFIX).toMatch(/lro-shell-prefix$/);
  const un = await lro(['init', 'claude-code', '--uninstall'], { env: h.env });
  expect(un.code, un.stderr).toBe(0);
  expect(lstatSync(h.claude).isSymbolicLink()).toBe(true); // dangling again, as it was
  expect(readlinkSync(h.claude)).toBe('../dotfiles/claude.json');
  expect(existsSync(join(h.dir, 'dotfiles', 'claude.json'))).toBe(false);
  // a link to a file that is there: the file is edited, the link kept, even after the user changed the file
  writeFileSync(join(h.dir, 'dotfiles', 'claude.json'), '{"model": "opus"}\n');
  expect((await lro(['init', 'claude-code'], { env: h.env })).code).toBe(0);
  const target = join(h.dir, 'dotfiles', 'claude.json');
  writeFileSync(target, readFileSync(target, 'utf8').replace('"opus"', '"sonnet"'));
  expect((await lro(['init', 'claude-code', '--uninstall'], { env: h.env })).code).toBe(0);
  expect(lstatSync(h.claude).isSymbolicLink()).toBe(true);
  expect(readFileSync(target, 'utf8')).toBe('{"model": "sonnet"}\n');
});

const NOTE = ['model = "x"', 'instructions = """', 'Be brief.', '[note]', 'command = "not a key"', '"""', '', '[profiles.fast]', 'model = "m"', ''].join('\n');

test("codex --mcp: a multi-line string holding '[note]' stays the user's; lro's server is registered, and comes out again", async () => {
  const h = home();
  const config = join(h.codex, 'config.toml');
  writeFileSync(config, NOTE);
  const r = await lro(['init', 'codex', '--mcp'], { env: h.env });
  expect(r.code, r.stderr).toBe(0);
  const doc = parseToml(readFileSync(config, 'utf8')) as Record<string, any>;
  expect(doc.instructions).toBe('Be brief.\n[note]\ncommand = "not a key"\n');
  expect(doc.mcp_servers.lro).toEqual({ command: process.execPath, args: [expect.stringMatching(/\/bin\/lro\.js$/), 'mcp'] });
  expect(doc.profiles).toEqual({ fast: { model: 'm' } });
  // changed since (so no byte-for-byte restore): lro's table alone goes
  writeFileSync(config, readFileSync(config, 'utf8').replace('model = "m"', 'model = "n"'));
  expect((await lro(['init', 'codex', '--uninstall'], { env: h.env })).code).toBe(0);
  expect(readFileSync(config, 'utf8')).toBe(NOTE.replace('model = "m"', 'model = "n"'));
});

test.each([
  ['dotted keys in [mcp_servers]', '[mcp_servers]\nlro.command = "node"\nlro.args = ["/x/lro.js", "mcp"]\n', /dotted keys or an inline table/],
  ["a quoted key naming another server 'lro'", "['mcp_servers'.'lro']\ncommand = \"mine\"\n", /not lro's: rename it/],
  ['an inline mcp_servers', 'mcp_servers = { docs = { command = "d" } }\n', /dotted keys or an inline table/],
])('codex --mcp with %s: refused, untouched', async (_, text, why) => {
  const h = home();
  const config = join(h.codex, 'config.toml');
  writeFileSync(config, text);
  const r = await lro(['init', 'codex', '--mcp'], { env: h.env });
  refused(r, config, why);
  expect(readFileSync(config, 'utf8')).toBe(text);
  expect(existsSync(join(h.codex, 'hooks.json'))).toBe(false);
});

test("codex --mcp: a quoted-key table of an earlier lro and a multi-line array are edited into valid TOML", async () => {
  const h = home();
  const config = join(h.codex, 'config.toml');
  const text = "matrix = [\n  [1, 2],\n  [3, 4],\n]\n\n['mcp_servers'.\"lro\"]\ncommand = \"/old/node\"\nargs = [\n  \"/old/lro.js\",\n  \"mcp\",\n]\n";
  writeFileSync(config, text);
  const r = await lro(['init', 'codex', '--mcp'], { env: h.env });
  expect(r.code, r.stderr).toBe(0);
  const doc = parseToml(readFileSync(config, 'utf8')) as Record<string, any>;
  expect(doc.matrix).toEqual([[1, 2], [3, 4]]);
  expect(doc.mcp_servers.lro.command).toBe(process.execPath);
  const fresh = home();
  const plain = join(fresh.codex, 'config.toml');
  writeFileSync(plain, 'matrix = [\n  [1, 2],\n]\n');
  expect((await lro(['init', 'codex', '--mcp'], { env: fresh.env })).code).toBe(0);
  expect((parseToml(readFileSync(plain, 'utf8')) as Record<string, any>).matrix).toEqual([[1, 2]]);
});

test("a key the user put in lro's [mcp_servers.lro]: uninstall refuses rather than make it a top-level key", async () => {
  const h = home();
  const config = join(h.codex, 'config.toml');
  writeFileSync(config, 'model = "x"\n');
  expect((await lro(['init', 'codex', '--mcp'], { env: h.env })).code).toBe(0);
  const changed = `${readFileSync(config, 'utf8')}startup_timeout_sec = 30\n`;
  writeFileSync(config, changed);
  const r = await lro(['init', 'codex', '--uninstall'], { env: h.env });
  refused(r, config, /holds what lro did not write \(startup_timeout_sec\).*lro init --restore codex/);
  expect(readFileSync(config, 'utf8')).toBe(changed);
});

test('--restore puts back the bytes lro kept, whatever happened since; with nothing kept it says so (exit 2)', async () => {
  const h = home();
  const original = '{\n  "model": "opus"\n}\n';
  writeFileSync(h.claude, original);
  const none = await lro(['init', '--restore', 'claude-code'], { env: h.env });
  expect(none.code).toBe(2);
  expect(none.stderr).toMatch(/^lro: nothing to restore for claude-code: lro kept no original of .*settings\.json/);
  expect((await lro(['init', 'claude-code'], { env: h.env })).code).toBe(0);
  writeFileSync(h.claude, '{ "broken": ');
  const r = await lro(['init', '--restore', 'claude-code'], { env: h.env });
  expect(r.code, r.stderr).toBe(0);
  expect(r.out).toMatch(/^lro: restored .*settings\.json: byte for byte as it was before lro init \(its text until now is kept in .*\)\n$/);
  expect(readFileSync(h.claude, 'utf8')).toBe(original);
  const kept = /kept in (.*)\)\n$/.exec(r.out)![1];
  expect(readFileSync(kept, 'utf8')).toBe('{ "broken": ');
  expect((await lro(['init', '--restore', 'claude-code'], { env: h.env })).code).toBe(2);
});

test('a file an earlier lro damaged (the record says lro wrote it): --uninstall gives the original back', async () => {
  const h = home();
  writeFileSync(h.claude, '{"env": 42}');
  // what lro 0.1.0 wrote for {"env": 42}, and its record of it
  const damaged = '{"env": 4 "/opt/lro/bin/lro-shell-prefix" 2}';
  writeFileSync(h.claude, damaged);
  const real = realpathSync(h.claude);
  const sha = (t: string) => createHash('sha256').update(t, 'utf8').digest('hex');
  mkdirSync(join(h.state, 'lro', 'init'), { recursive: true });
  const record = { path: real, original: '{"env": 42}', createdDir: false, written: sha(damaged) };
  writeFileSync(join(h.state, 'lro', 'init', `${sha(real).slice(0, 24)}.json`), JSON.stringify(record));
  const r = await lro(['init', 'claude-code', '--uninstall'], { env: h.env });
  expect(r.code, r.stderr).toBe(0);
  expect(readFileSync(h.claude, 'utf8')).toBe('{"env": 42}');
});

test.each(['cursor', 'codex', 'gemini'])('lro init %s then --uninstall on a machine without it: no file, no folder, no state left', async (harness) => {
  const dir = join(root, `bare-${harness}`);
  mkdirSync(dir);
  const env = { HOME: dir, XDG_STATE_HOME: join(dir, '.local', 'state') };
  expect((await lro(['init', harness, '--force'], { env })).code).toBe(0);
  const un = await lro(['init', harness, '--uninstall'], { env });
  expect(un.code, un.stderr).toBe(0);
  expect(existsSync(join(dir, '.local'))).toBe(false);
  expect(existsSync(join(dir, `.${harness}`))).toBe(false);
});
