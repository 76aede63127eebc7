// `lro init claude-code` on real files: scopes, dry run, refusal, idempotence, mode, the original back.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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
  expect(written.hooks.PostToolUse[0].hooks[0].command).toMatch(/^\/.* \/.*\/bin\/lro\.js __claude-code-hook$/);
  const un = await lro(['init', 'claude-code', '--uninstall'], { env: h.env });
  expect(un.out).toContain('as it was before lro init');
  expect(existsSync(join(h.dir, '.claude'))).toBe(false);
});

test('--project edits ./.claude/settings.json; a file changed since init loses only lro\'s entries', async () => {
  const h = home('project');
  const cwd = join(h.dir, 'repo');
  mkdirSync(join(cwd, '.claude'), { recursive: true });
  const file = join(cwd, '.claude', 'settings.json');
  writeFileSync(file, '{\n  "model": "opus"\n}\n');
  const run = (args: string[]) => lro(args, { env: h.env, shellPrefix: `cd '${cwd}' &&` });
  expect((await run(['init', 'claude-code', '--project'])).code).toBe(0);
  expect(readFileSync(file, 'utf8')).toContain('lro-shell-prefix');
  expect(existsSync(h.settings)).toBe(false);
  // the user adds something after init
  writeFileSync(file, readFileSync(file, 'utf8').replace('"model": "opus"', '"model": "opus",\n  "theme": "dark"'));
  expect((await run(['init', 'claude-code', '--project', '--uninstall'])).code).toBe(0);
  expect(readFileSync(file, 'utf8')).toBe('{\n  "model": "opus",\n  "theme": "dark"\n}\n');
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
