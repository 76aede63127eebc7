// lro in the real Claude Code (the pinned release, installed into a cache folder on first use), driven offline by
// a scripted model: every assertion is on the tool_result the model receives.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ensureClaude, runClaude, startScriptedModel, type Step, type ToolResult } from '../helpers/claude.js';
import { BIN, lro } from '../helpers/cli.js';

const PREFIX = resolve(__dirname, '../../bin/lro-shell-prefix');
const install = ensureClaude();
if (install.skip) console.warn(`skipping the Claude Code end-to-end tests: ${install.skip}`);

let root: string;
let pathDir: string;
let store: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'lro-claude-'));
  // `lro` on PATH as a global install puts it, so the model's next call (`lro grep …`) finds it
  pathDir = join(root, 'bin');
  mkdirSync(pathDir);
  symlinkSync(BIN, join(pathDir, 'lro'));
  store = join(root, 'store');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A fresh HOME and working directory; the user's settings hold lro's prefix (as `lro init claude-code` writes it). */
function scratch(name: string, settings: unknown = { env: { CLAUDE_CODE_SHELL_PREFIX: PREFIX } }): { home: string; work: string } {
  const home = join(root, name);
  const work = join(home, 'work');
  mkdirSync(join(home, '.claude'), { recursive: true });
  mkdirSync(work);
  writeFileSync(join(home, '.claude', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
  return { home, work };
}

const bash = (command: string): Step => ({ tool: 'Bash', input: { command, description: 'scripted call' } });

/** Runs the steps in Claude Code with HOME `home`; returns the tool_results the model received. */
async function play(home: string, work: string, steps: (Step | ((r: ToolResult[]) => Step))[]): Promise<ToolResult[]> {
  const model = await startScriptedModel(steps);
  try {
    const run = await runClaude(install.bin!, {
      model,
      home,
      cwd: work,
      env: { PATH: `${pathDir}:${process.env.PATH}`, LRO_DIR: store, SHELL: '/bin/bash' },
    });
    expect(run.code, run.stderr).toBe(0);
    return model.toolResults();
  } finally {
    await model.close();
  }
}

const idIn = (text: string): string => /\bid: ([0-9A-Z]{26})\b/.exec(text)?.[1] ?? '';

describe.skipIf(!!install.skip)('Claude Code 2.1.328 with lro-shell-prefix', () => {
  test('a 1.3 MB output reaches the model as a descriptor with an id, under 12,000 characters', async () => {
    const { home, work } = scratch('big');
    const [r] = await play(home, work, [bash('seq 1 200000')]);
    expect(r.is_error).toBe(false);
    expect(r.text.length).toBeLessThan(12_000);
    expect(idIn(r.text)).not.toBe('');
    expect(r.text).toContain('(exit code 0)');
    expect(r.text).not.toContain('persisted-output');
  });

  test('a failing command: the exit code is told, and the next call `lro grep <id> FATAL` finds the stderr line', async () => {
    const { home, work } = scratch('failing');
    const results = await play(home, work, [
      bash("seq 1 200000; echo 'FATAL: disk on fire' >&2; exit 3"),
      (rs) => bash(`lro grep ${idIn(rs[0].text)} FATAL`),
    ]);
    expect(results).toHaveLength(2);
    const [failed, grep] = results;
    expect(failed.is_error).toBe(true);
    expect(failed.text).toMatch(/^Exit code 3\n/);
    expect(failed.text).toContain('(exit code 3)');
    expect(failed.text.length).toBeLessThan(12_000);
    expect(idIn(failed.text)).not.toBe('');
    expect(grep.is_error).toBe(false);
    expect(grep.text).toContain('200001:FATAL: disk on fire');
  });

  test('a small output reaches the model byte for byte as without lro (stdout and stderr interleaved)', async () => {
    const command = "echo err >&2; echo out; printf 'tab\\there\\n'; echo 'é ✓'; echo late >&2";
    const a = scratch('small-with');
    const b = scratch('small-without', {});
    const [withLro] = await play(a.home, a.work, [bash(command)]);
    const [without] = await play(b.home, b.work, [bash(command)]);
    expect(withLro).toEqual({ ...without, tool_use_id: withLro.tool_use_id });
    expect(withLro.text).toBe('err\nout\ntab\there\né ✓\nlate');
  });

  test('cd persists between calls, and a command reading stdin gets none', async () => {
    const { home, work } = scratch('cd');
    mkdirSync(join(work, 'sub'));
    const [cd, pwd, cat] = await play(home, work, [bash('cd sub'), bash('pwd'), bash('cat; echo read-nothing')]);
    expect(cd.is_error).toBe(false);
    expect(pwd.text).toBe(join(work, 'sub'));
    expect(cat.text).toBe('read-nothing');
  });
});
