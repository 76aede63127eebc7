// `lro doctor`: healthy after init with lro on PATH; a comment, a missing install or lro off PATH said, exit 1.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { BIN, cleanup, lro, tempDir } from '../helpers/cli.js';

const root = tempDir();
afterAll(() => cleanup(root));
const pathDir = join(root, 'bin');
mkdirSync(pathDir);
symlinkSync(BIN, join(pathDir, 'lro'));
const nodeDir = dirname(process.execPath);

test('healthy after lro init claude-code, with lro on PATH', async () => {
  const env = { HOME: join(root, 'ok'), XDG_STATE_HOME: join(root, 'ok', 'state'), PATH: `${pathDir}:${nodeDir}:/usr/bin:/bin` };
  expect((await lro(['init', 'claude-code', '--force'], { env })).code).toBe(0);
  const r = await lro(['doctor', 'claude-code', '--json'], { env });
  const report = JSON.parse(r.out) as { healthy: boolean; checks: { name: string; ok: boolean }[] };
  expect(report.checks.filter((c) => !c.ok)).toEqual([]);
  expect(report.healthy).toBe(true);
  expect(r.code).toBe(0);
  expect(report.checks.map((c) => c.name)).toEqual(expect.arrayContaining(['settings (user)', 'prefix', 'MCP hook', 'small output', 'large output', 'lro on PATH']));
});

test('not installed, lro off PATH, a settings file Claude Code would ignore: exit 1 with the fixes', async () => {
  const env = { HOME: join(root, 'bad'), XDG_STATE_HOME: join(root, 'bad', 'state'), PATH: `${nodeDir}:/usr/bin:/bin` };
  const none = await lro(['doctor', 'claude-code'], { env });
  expect(none.code).toBe(1);
  expect(none.out).toContain('fix: lro init claude-code');
  mkdirSync(join(root, 'bad', '.claude'), { recursive: true });
  writeFileSync(join(root, 'bad', '.claude', 'settings.json'), '{\n  // mine\n  "model": "opus"\n}\n');
  const comment = await lro(['doctor', 'claude-code'], { env });
  expect(comment.code).toBe(1);
  expect(comment.out).toMatch(/not strict JSON \(a comment at line 2\): Claude Code ignores the whole file/);
  writeFileSync(join(root, 'bad', '.claude', 'settings.json'), '{}\n');
  expect((await lro(['init', 'claude-code'], { env })).code).toBe(0);
  const offPath = await lro(['doctor', 'claude-code'], { env });
  expect(offPath.code).toBe(1);
  expect(offPath.out).toContain("lro is not on PATH: the model's `lro grep ID …` will not be found");
  // lro is not on npm: the fix links this installation, never `npm install -g lro`
  expect(offPath.out).not.toContain('npm install -g lro');
  expect(offPath.out).toMatch(/ln -s \S+\/bin\/lro\.js ~\/\.local\/bin\/lro/);
});

test('lro doctor with no harness named: a line per harness found, the rest named, exit 0 only when lro works', async () => {
  const home = join(root, 'all');
  const env = { HOME: home, XDG_STATE_HOME: join(home, 'state'), PATH: `${pathDir}:${nodeDir}:/usr/bin:/bin` };
  mkdirSync(home);
  const nothing = await lro(['doctor'], { env, cwd: home });
  expect(nothing.code).toBe(1);
  expect(nothing.out).toMatch(/^not found on this machine: claude-code, codex.*\nlro is not installed in any harness: lro init HARNESS/);
  mkdirSync(join(home, '.codex'));
  expect((await lro(['init', 'claude-code', '--force'], { env, cwd: home })).code).toBe(0);
  const r = await lro(['doctor'], { env, cwd: home });
  expect(r.out).toMatch(/^ok  claude-code +lro installed and works \(every check: lro doctor claude-code\)\n/);
  expect(r.out).toMatch(/\n- {3}codex +found \(~\/\.codex\), lro not installed: lro init codex\n/);
  expect(r.out).toContain('lro works in 1 of the 1 harnesses it is installed in.');
  expect(r.code).toBe(0);
  const json = JSON.parse((await lro(['doctor', '--json'], { env, cwd: home })).out);
  expect(json.healthy).toBe(true);
  expect(json.harnesses.map((h: { harness: string; installed: boolean | null }) => [h.harness, h.installed]).slice(0, 2))
    .toEqual([['claude-code', true], ['codex', false]]);
  // codex installed but its hook not trusted: doctor says so on codex's line, and exits 1
  expect((await lro(['init', 'codex', '--force'], { env, cwd: home })).code).toBe(0);
  const untrusted = await lro(['doctor'], { env, cwd: home });
  expect(untrusted.out).toMatch(/\nX   codex +lro installed, does not work: trust: Codex has no trust record .*; fix: start Codex/);
  expect(untrusted.code).toBe(1);
});
