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
  expect((await lro(['init', 'claude-code'], { env })).code).toBe(0);
  const r = await lro(['doctor', 'claude-code', '--json'], { env });
  const report = JSON.parse(r.out) as { healthy: boolean; checks: { name: string; ok: boolean }[] };
  expect(report.checks.filter((c) => !c.ok)).toEqual([]);
  expect(report.healthy).toBe(true);
  expect(r.code).toBe(0);
  expect(report.checks.map((c) => c.name)).toEqual(expect.arrayContaining(['settings (user)', 'prefix', 'MCP hook', 'small output', 'large output', 'lro on PATH']));
});

test('not installed, lro off PATH, a settings file Claude Code would ignore: exit 1 with the fixes', async () => {
  const env = { HOME: join(root, 'bad'), XDG_STATE_HOME: join(root, 'bad', 'state'), PATH: `${nodeDir}:/usr/bin:/bin` };
  const none = await lro(['doctor'], { env });
  expect(none.code).toBe(1);
  expect(none.out).toContain('fix: lro init claude-code');
  mkdirSync(join(root, 'bad', '.claude'), { recursive: true });
  writeFileSync(join(root, 'bad', '.claude', 'settings.json'), '{\n  // mine\n  "model": "opus"\n}\n');
  const comment = await lro(['doctor'], { env });
  expect(comment.code).toBe(1);
  expect(comment.out).toMatch(/not strict JSON \(a comment at line 2\): Claude Code ignores the whole file/);
  writeFileSync(join(root, 'bad', '.claude', 'settings.json'), '{}\n');
  expect((await lro(['init', 'claude-code'], { env })).code).toBe(0);
  const offPath = await lro(['doctor'], { env });
  expect(offPath.code).toBe(1);
  expect(offPath.out).toContain("lro is not on PATH: the model's `lro grep ID …` will not be found");
});
