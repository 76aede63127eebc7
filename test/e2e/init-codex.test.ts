// `lro init codex` and `lro doctor codex` on scratch CODEX_HOME folders: the hook written, a user's config.toml
// (comments, order) kept while lro's MCP table goes in and out, refusal, idempotence, the trust gate.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { BIN, cleanup, lro, tempDir } from '../helpers/cli.js';

const root = tempDir();
afterAll(() => cleanup(root));
const pathDir = join(root, 'bin');
mkdirSync(pathDir);
symlinkSync(BIN, join(pathDir, 'lro'));

function home(name: string): { env: Record<string, string>; codex: string; hooks: string; config: string } {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const codex = join(dir, '.codex');
  const env = { HOME: dir, XDG_STATE_HOME: join(dir, 'state'), CODEX_HOME: codex, PATH: `${dirname(process.execPath)}:/usr/bin:/bin` };
  return { env, codex, hooks: join(codex, 'hooks.json'), config: join(codex, 'config.toml') };
}

const USER_CONFIG = [
  '# my Codex settings',
  'model = "gpt-5.1"   # the one I like',
  '',
  '[profiles.fast]',
  'model = "gpt-5.1-mini"',
  '',
  '# servers',
  '[mcp_servers.docs]',
  'command = "docs-server"',
  'args = ["--stdio"]',
  '',
].join('\n');

test('no CODEX_HOME: init writes the hook by absolute paths and says how to trust it; uninstall removes it all', async () => {
  const h = home('fresh');
  const dry = await lro(['init', 'codex', '--dry-run', '--force'], { env: h.env });
  expect(dry.code).toBe(0);
  expect(dry.out).toMatch(/^--- \/dev\/null\n\+\+\+ .*\.codex\/hooks\.json\n@@ -0,0 \+1,\d+ @@\n\+\{\n/);
  expect(existsSync(h.codex)).toBe(false);
  const r = await lro(['init', 'codex', '--force'], { env: h.env });
  expect(r.code, r.stderr).toBe(0);
  expect(r.out).toContain('trust it: start Codex (`codex`); at "hooks need review" choose "2. Trust all and continue" (press 2, then Enter), or type /hooks');
  const written = JSON.parse(readFileSync(h.hooks, 'utf8'));
  expect(Object.keys(written)).toEqual(['hooks']);
  const [group] = written.hooks.PreToolUse;
  expect(group.matcher).toBe('^Bash$');
  expect(group.hooks[0]).toEqual({ type: 'command', command: expect.stringMatching(/^LRO_NODE=\/.* \/.*\/bin\/lro-hook __codex-hook$/), timeout: 30 });
  expect(existsSync(h.config)).toBe(false); // config.toml only with --mcp
  expect((await lro(['init', 'codex', '--force'], { env: h.env })).out).toContain('nothing to change');
  const un = await lro(['init', 'codex', '--uninstall'], { env: h.env });
  expect(un.code, un.stderr).toBe(0);
  expect(un.out).toContain('as it was before lro init');
  expect(existsSync(h.codex)).toBe(false);
});

test("--mcp: a user's config.toml keeps its comments and order, gains [mcp_servers.lro] before its first table, and comes back byte for byte", async () => {
  const h = home('mcp');
  mkdirSync(h.codex);
  writeFileSync(h.config, USER_CONFIG, { mode: 0o600 });
  const dry = await lro(['init', 'codex', '--mcp', '--dry-run'], { env: h.env });
  expect(dry.out).toContain('+[mcp_servers.lro]');
  expect(readFileSync(h.config, 'utf8')).toBe(USER_CONFIG);
  const r = await lro(['init', 'codex', '--mcp'], { env: h.env });
  expect(r.code, r.stderr).toBe(0);
  const after = readFileSync(h.config, 'utf8');
  const head = '# my Codex settings\nmodel = "gpt-5.1"   # the one I like\n\n';
  expect(after.startsWith(head)).toBe(true);
  expect(after.endsWith(USER_CONFIG.slice(head.length))).toBe(true);
  expect(after.slice(head.length, after.length - USER_CONFIG.length + head.length)).toMatch(
    /^\[mcp_servers\.lro\]\ncommand = "\/[^"]+"\nargs = \["\/[^"]+\/bin\/lro\.js", "mcp"\]\n\n$/,
  );
  expect(statSync(h.config).mode & 0o777).toBe(0o600);
  expect((await lro(['init', 'codex', '--mcp'], { env: h.env })).out).toContain('already registered');
  expect((await lro(['init', 'codex', '--uninstall'], { env: h.env })).code).toBe(0);
  expect(readFileSync(h.config, 'utf8')).toBe(USER_CONFIG);
  expect(existsSync(h.hooks)).toBe(false);
});

test("a file changed since init loses only lro's entries; another tool's hook stays", async () => {
  const h = home('changed');
  mkdirSync(h.codex);
  const theirs = '{\n    "hooks": {\n        "PreToolUse": [\n            { "matcher": "^Bash$", "hooks": [{ "type": "command", "command": "audit" }] }\n        ]\n    }\n}\n';
  writeFileSync(h.hooks, theirs);
  writeFileSync(h.config, USER_CONFIG);
  expect((await lro(['init', 'codex', '--mcp'], { env: h.env })).code).toBe(0);
  const hooks = JSON.parse(readFileSync(h.hooks, 'utf8'));
  expect(hooks.hooks.PreToolUse).toHaveLength(2);
  expect(hooks.hooks.PreToolUse[0].hooks[0].command).toBe('audit'); // theirs first: its trust record stays valid
  // the user edits both files after init
  writeFileSync(h.config, readFileSync(h.config, 'utf8').replace('model = "gpt-5.1"', 'model = "gpt-5.2"'));
  writeFileSync(h.hooks, readFileSync(h.hooks, 'utf8').replace('"audit"', '"audit --v2"'));
  const un = await lro(['init', 'codex', '--uninstall'], { env: h.env });
  expect(un.code, un.stderr).toBe(0);
  expect(readFileSync(h.hooks, 'utf8')).toBe(theirs.replace('"audit"', '"audit --v2"'));
  expect(readFileSync(h.config, 'utf8')).toBe(USER_CONFIG.replace('model = "gpt-5.1"', 'model = "gpt-5.2"'));
});

test('a hooks.json Codex cannot read is refused (exit 2, untouched); so is an lro MCP entry written another way', async () => {
  const h = home('refused');
  mkdirSync(h.codex);
  const text = '{\n  // mine\n  "hooks": {}\n}\n';
  writeFileSync(h.hooks, text);
  const r = await lro(['init', 'codex'], { env: h.env });
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/^lro: .*hooks\.json is not strict JSON \(a comment at line 2\): fix it first, lro leaves it untouched\n$/);
  expect(readFileSync(h.hooks, 'utf8')).toBe(text);
  writeFileSync(h.hooks, '{}\n');
  const inline = 'mcp_servers.lro.command = "lro"\n';
  writeFileSync(h.config, inline);
  const m = await lro(['init', 'codex', '--mcp'], { env: h.env });
  expect(m.code).toBe(2);
  expect(readFileSync(h.config, 'utf8')).toBe(inline);
  expect(readFileSync(h.hooks, 'utf8')).toBe('{}\n'); // nothing written when one file is refused
});

/** Codex's trust hash of a hooks.json command handler (as Codex 0.169.0 computes it; the harness test proves it). */
function trustHash(command: string): string {
  const identity = `{"event_name":"pre_tool_use","hooks":[{"async":false,"command":${JSON.stringify(command)},"timeout":30,"type":"command"}],"matcher":"^Bash$"}`;
  return `sha256:${createHash('sha256').update(identity).digest('hex')}`;
}

test('lro doctor codex: untrusted said with the step to trust it; trusted, modified and disabled told apart', async () => {
  const h = home('doctor');
  mkdirSync(h.codex);
  writeFileSync(join(root, 'doctor', '.bash_profile'), `export PATH="${pathDir}:$PATH"\n`);
  const none = await lro(['doctor', 'codex'], { env: h.env });
  expect(none.code).toBe(1);
  expect(none.out).toContain('fix: lro init codex');
  expect((await lro(['init', 'codex'], { env: h.env })).code).toBe(0);
  const untrusted = await lro(['doctor', 'codex', '--json'], { env: h.env });
  expect(untrusted.code).toBe(1);
  const report = JSON.parse(untrusted.out) as { checks: { name: string; ok: boolean; detail: string; fix?: string }[] };
  const trust = report.checks.find((c) => c.name === 'trust')!;
  expect(trust).toMatchObject({ ok: false, detail: expect.stringContaining('skips the hook without a word'), fix: expect.stringContaining('/hooks') });
  expect(report.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['trust']);
  const command = JSON.parse(readFileSync(h.hooks, 'utf8')).hooks.PreToolUse[0].hooks[0].command as string;
  const key = `${h.hooks}:pre_tool_use:0:0`;
  writeFileSync(h.config, `model = "gpt-5.1"\n\n[hooks.state."${key}"]\ntrusted_hash = "${trustHash(command)}"\n`);
  const trusted = await lro(['doctor', 'codex'], { env: h.env });
  expect(trusted.out).toContain("ok  trust: Codex trusts lro's hook");
  expect(trusted.code, trusted.out).toBe(0);
  expect(trusted.out).toContain('lro works in Codex.');
  writeFileSync(h.config, `[hooks.state."${key}"]\ntrusted_hash = "${trustHash('something else')}"\n`);
  expect((await lro(['doctor', 'codex'], { env: h.env })).out).toContain('X  trust: the hook changed since it was trusted');
  writeFileSync(h.config, `[hooks.state."${key}"]\nenabled = false\ntrusted_hash = "${trustHash(command)}"\n`);
  expect((await lro(['doctor', 'codex'], { env: h.env })).out).toContain("X  trust: lro's hook is disabled");
});

test('__codex-hook: a shell command is rewritten through the prefix; one Codex might call dangerous is left alone', async () => {
  const hook = (input: unknown) => lro(['__codex-hook'], { input: JSON.stringify(input) });
  const r = await hook({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: "echo 'hi'" } });
  const out = JSON.parse(r.out).hookSpecificOutput;
  expect(out.permissionDecision).toBe('allow');
  expect(out.updatedInput.command).toMatch(/^LRO_NODE=\/\S+ LRO_SHELL_PREFIX_WRAP=codex \/\S+\/bin\/lro-shell-prefix 'echo '\\''hi'\\'''$/);
  expect(out.updatedInput.command).not.toMatch(/rm -f|\{ /);
  for (const command of ['rm -rf build', 'sudo ls', 'cd x && git reset --hard', out.updatedInput.command]) {
    const same = await hook({ tool_name: 'Bash', tool_input: { command } });
    expect(same.code).toBe(0);
    expect(same.out).toBe('');
  }
  expect((await hook({ tool_name: 'apply_patch', tool_input: { command: 'x' } })).out).toBe('');
  expect((await hook({ tool_name: 'Bash', tool_input: { command: 'git log --stat' } })).out).toContain('updatedInput');
  // a word the user's prompt/forbidden rules start with: left to Codex's exec policy
  const h = home('rules');
  mkdirSync(join(h.codex, 'rules'), { recursive: true });
  writeFileSync(join(h.codex, 'rules', 'mine.rules'), 'prefix_rule(pattern = [["curl", "wget"], "-X"], decision = "prompt")\n' +
    'prefix_rule(pattern = ["ls"], decision = "allow")\n');
  const ruled = (command: string) => lro(['__codex-hook'], { input: JSON.stringify({ tool_name: 'Bash', cwd: root, tool_input: { command } }), env: h.env });
  expect((await ruled('cd x && /usr/bin/wget -X y')).out).toBe('');
  expect((await ruled('ls -la')).out).toContain('updatedInput');
  expect((await lro(['__codex-hook'], { input: 'not json' })).code).toBe(0);
});
