// `lro init claude-code` on real files: scopes, dry run, refusal, idempotence, mode, the original back.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { cleanup, lro, tempDir } from '../helpers/cli.js';

const root = tempDir();
afterAll(() => cleanup(root));

function home(name: string): { env: Record<string, string>; dir: string; settings: string } {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  return { dir, env: { HOME: dir, XDG_STATE_HOME: join(dir, 'state') }, settings: join(dir, '.claude', 'settings.json') };
}

test('no settings file: init creates it, uninstall removes it and the folder it made', async () => {
  const h = home('fresh');
  const dry = await lro(['init', 'claude-code', '--dry-run', '--force'], { env: h.env });
  expect(dry.code).toBe(0);
  expect(dry.out).toMatch(/^--- \/dev\/null\n\+\+\+ .*settings\.json\n@@ -0,0 \+1,\d+ @@\n\+\{\n/);
  expect(existsSync(h.settings)).toBe(false);
  expect((await lro(['init', 'claude-code', '--force'], { env: h.env })).code).toBe(0);
  const written = JSON.parse(readFileSync(h.settings, 'utf8'));
  expect(written.env.CLAUDE_CODE_SHELL_PREFIX).toMatch(/^\/.*\/bin\/lro-shell-prefix$/);
  expect(written.hooks.PostToolUse[0].hooks[0].command).toMatch(/^LRO_NODE=\/.* \/.*\/bin\/lro-hook __claude-code-hook$/);
  const un = await lro(['init', 'claude-code', '--uninstall'], { env: h.env });
  expect(un.out).toContain('as it was before lro init');
  expect(existsSync(join(h.dir, '.claude'))).toBe(false);
});

test("--project writes .claude/settings.local.json, never the shared settings.json; a file changed since init loses only lro's entries", async () => {
  const h = home('project');
  const cwd = join(h.dir, 'repo');
  mkdirSync(join(cwd, '.claude'), { recursive: true });
  const shared = join(cwd, '.claude', 'settings.json');
  const sharedText = '{\n  "model": "opus"\n}\n';
  writeFileSync(shared, sharedText);
  const file = join(cwd, '.claude', 'settings.local.json');
  const run = (args: string[]) => lro(args, { env: h.env, shellPrefix: `cd '${cwd}' &&` });
  const r = await run(['init', 'claude-code', '--project']);
  expect(r.code, r.stderr).toBe(0);
  expect(r.out).toContain('installed in .claude/settings.local.json');
  expect(JSON.parse(readFileSync(file, 'utf8')).env.CLAUDE_CODE_SHELL_PREFIX).toMatch(/\/lro-shell-prefix$/);
  // the file a team commits is not touched: no path of this machine goes into it
  expect(readFileSync(shared, 'utf8')).toBe(sharedText);
  expect(existsSync(h.settings)).toBe(false);
  // the user adds something after init
  writeFileSync(file, readFileSync(file, 'utf8').replace(/^\{\n/, '{\n  "theme": "dark",\n'));
  expect((await run(['init', 'claude-code', '--project', '--uninstall'])).code).toBe(0);
  expect(readFileSync(file, 'utf8')).toBe('{\n  "theme": "dark"\n}\n');
  expect(readFileSync(shared, 'utf8')).toBe(sharedText);
});

test("--project takes an earlier lro's entries out of the shared settings.json; git not ignoring the local file is said", async () => {
  const h = home('project-moved');
  const cwd = join(h.dir, 'repo');
  mkdirSync(join(cwd, '.claude'), { recursive: true });
  const shared = join(cwd, '.claude', 'settings.json');
  // what an earlier lro's `init --project` left in the committed file, beside the team's own values
  const earlier = {
    model: 'opus',
    env: { CLAUDE_CODE_SHELL_PREFIX: '/home/someone/lro/bin/lro-shell-prefix', TEAM_FLAG: '1' },
    hooks: { PostToolUse: [{ matcher: 'mcp__.*', hooks: [{ type: 'command', command: "'/usr/bin/node' '/home/someone/lro/bin/lro.js' __claude-code-hook", timeout: 60 }] }] },
  };
  writeFileSync(shared, `${JSON.stringify(earlier, null, 2)}\n`);
  const run = (args: string[]) => lro(args, { env: h.env, shellPrefix: `cd '${cwd}' &&` });
  const git = spawnSync('git', ['init', '-q', cwd]).status === 0;
  const r = await run(['init', 'claude-code', '--project']);
  expect(r.code, r.stderr).toBe(0);
  expect(r.out).toContain("took an earlier lro's entries out of .claude/settings.json");
  expect(JSON.parse(readFileSync(shared, 'utf8'))).toEqual({ model: 'opus', env: { TEAM_FLAG: '1' } });
  expect(readFileSync(shared, 'utf8')).not.toMatch(/lro/);
  expect(JSON.parse(readFileSync(join(cwd, '.claude', 'settings.local.json'), 'utf8')).env.CLAUDE_CODE_SHELL_PREFIX).toMatch(/lro-shell-prefix$/);
  if (git) {
    expect(r.stderr).toBe("lro: warning: .claude/settings.local.json is not ignored by git here, and it names this machine's paths: add it to .gitignore\n");
    writeFileSync(join(cwd, '.gitignore'), '.claude/settings.local.json\n');
    const again = await run(['init', 'claude-code', '--project']);
    expect(again.out).toContain('nothing to change');
    expect(again.stderr).toBe('');
  }
});

test('a settings file with a comment is refused (exit 2, one line, untouched); --user --project is a usage error', async () => {
  const h = home('comment');
  mkdirSync(join(h.dir, '.claude'));
  const text = '{\n  // my settings\n  "model": "opus"\n}\n';
  writeFileSync(h.settings, text, { mode: 0o600 });
  const r = await lro(['init', 'claude-code'], { env: h.env });
  expect(r.code).toBe(2);
  expect(r.stderr.split('\n')).toHaveLength(2);
  expect(r.stderr).toContain('a comment at line 2');
  expect(readFileSync(h.settings, 'utf8')).toBe(text);
  expect(statSync(h.settings).mode & 0o777).toBe(0o600);
  expect((await lro(['init', 'claude-code', '--user', '--project'], { env: h.env })).code).toBe(2);
});
