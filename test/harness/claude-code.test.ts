// lro in the real Claude Code (the pinned release, installed into a cache folder on first use), driven offline by
// a scripted model: every assertion is on the tool_result the model receives.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ensureClaude, runClaude, startScriptedModel, type Step, type ToolResult } from '../helpers/claude.js';
import { BIN, lro } from '../helpers/cli.js';

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

/** `lro init claude-code ARGS` as the user of HOME `home` runs it. */
const init = (home: string, ...args: string[]) =>
  lro(['init', 'claude-code', ...args, '--force'], { env: { HOME: home, XDG_STATE_HOME: join(home, '.local', 'state') } });

/**
 * A fresh HOME and working directory. With no settings text, lro is installed by `lro init claude-code` into the
 * user's settings; with one (e.g. '{}' for a run without lro), that is the user's settings.json.
 */
async function scratch(name: string, settings?: string): Promise<{ home: string; work: string; settings: string }> {
  const home = join(root, name);
  const work = join(home, 'work');
  const file = join(home, '.claude', 'settings.json');
  mkdirSync(join(home, '.claude'), { recursive: true });
  mkdirSync(work);
  if (settings !== undefined) writeFileSync(file, settings);
  else {
    const r = await init(home);
    expect(r.code, r.stderr).toBe(0);
  }
  return { home, work, settings: file };
}

const bash = (command: string): Step => ({ tool: 'Bash', input: { command, description: 'scripted call' } });

/** Runs the steps in Claude Code with HOME `home`; returns the tool_results the model received. */
async function play(home: string, work: string, steps: (Step | ((r: ToolResult[]) => Step))[], allowedTools = ['Bash']): Promise<ToolResult[]> {
  const model = await startScriptedModel(steps);
  try {
    const run = await runClaude(install.bin!, {
      model,
      home,
      cwd: work,
      allowedTools,
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
    const { home, work } = await scratch('big');
    const [r] = await play(home, work, [bash('seq 1 200000')]);
    expect(r.is_error).toBe(false);
    expect(r.text.length).toBeLessThan(12_000);
    expect(idIn(r.text)).not.toBe('');
    expect(r.text).toContain('(exit code 0)');
    expect(r.text).not.toContain('persisted-output');
  });

  test("--project: lro in the project's .claude/settings.local.json alone works, and the shared settings.json is untouched", async () => {
    const { home, work } = await scratch('project', '{}\n');
    mkdirSync(join(work, '.claude'));
    writeFileSync(join(work, '.claude', 'settings.json'), '{\n  "model": "opus"\n}\n');
    const r0 = await lro(['init', 'claude-code', '--project'], {
      env: { HOME: home, XDG_STATE_HOME: join(home, '.local', 'state') },
      shellPrefix: `cd '${work}' &&`,
    });
    expect(r0.code, r0.stderr).toBe(0);
    expect(readFileSync(join(work, '.claude', 'settings.json'), 'utf8')).toBe('{\n  "model": "opus"\n}\n');
    const [r] = await play(home, work, [bash('seq 1 200000')]);
    expect(r.text.length).toBeLessThan(12_000);
    expect(idIn(r.text)).not.toBe('');
  });

  test('a failing command: the exit code is told, and the next call `lro grep <id> FATAL` finds the stderr line', async () => {
    const { home, work } = await scratch('failing');
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
    // bash's error names, $0 and SHLVL are plain bash's too
    const command = "echo err >&2; echo out; printf 'tab\\there\\n'; echo 'é ✓'; echo late >&2; nosuchcommand; echo \"$0 $SHLVL\"";
    const a = await scratch('small-with');
    const b = await scratch('small-without', '{}\n');
    const [withLro] = await play(a.home, a.work, [bash(command)]);
    const [without] = await play(b.home, b.work, [bash(command)]);
    expect(withLro).toEqual({ ...without, tool_use_id: withLro.tool_use_id });
    expect(withLro.text).toMatch(/^err\nout\ntab\there\né ✓\nlate\n\S*bash: line \d+: nosuchcommand: command not found\n\S*bash \d+$/);
  });

  test('cd persists between calls, and a command reading stdin gets none', async () => {
    const { home, work } = await scratch('cd');
    mkdirSync(join(work, 'sub'));
    const [cd, pwd, cat] = await play(home, work, [bash('cd sub'), bash('pwd'), bash('cat; echo read-nothing')]);
    expect(cd.is_error).toBe(false);
    expect(pwd.text).toBe(join(work, 'sub'));
    expect(cat.text).toBe('read-nothing');
  });

  test("a settings file in the user's own layout, with another tool's hook, works with lro and survives init + uninstall byte for byte", async () => {
    const mine = [
      '{',
      '    "permissions": { "allow": ["Bash(git *)"], "deny": [] },',
      '    "hooks": {',
      '        "PostToolUse": [',
      '            { "matcher": "Bash", "hooks": [{ "type": "command", "command": "echo other-tool-ran >> \\"$HOME/other.log\\"" }] }',
      '        ]',
      '    },',
      '    "model": "opus"',
      '}',
      '',
    ].join('\n');
    const { home, work, settings } = await scratch('layout', mine);
    chmodSync(settings, 0o640);
    const installed = await init(home);
    expect(installed.code, installed.stderr).toBe(0);
    expect((await init(home)).out).toContain('nothing to change');
    const after = readFileSync(settings, 'utf8');
    expect(after).toContain('            { "matcher": "Bash", "hooks": [{ "type": "command", "command": "echo other-tool-ran');
    const [r] = await play(home, work, [bash('seq 1 200000')]);
    expect(idIn(r.text)).not.toBe(''); // lro's prefix ran
    expect(readFileSync(join(home, 'other.log'), 'utf8')).toContain('other-tool-ran'); // and so did the other tool's hook
    const removed = await init(home, '--uninstall');
    expect(removed.code, removed.stderr).toBe(0);
    expect(readFileSync(settings, 'utf8')).toBe(mine);
    expect(statSync(settings).mode & 0o777).toBe(0o640);
  });

  test('an unparsable settings file is refused with one line and exit 2, and left untouched', async () => {
    const broken = '{\n    "model": "opus",,\n}\n';
    const { home, settings } = await scratch('broken', broken);
    const r = await init(home);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^lro: .*settings\.json is not strict JSON \(.* at line 2\): fix it first, lro leaves it untouched\n$/);
    expect(readFileSync(settings, 'utf8')).toBe(broken);
  });

  test("an MCP server's large result reaches the model as a descriptor", async () => {
    const { home, work } = await scratch('mcp');
    const server = resolve(__dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
    writeFileSync(join(work, '.mcp.json'), JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [server, 'stdio'] } } }));
    const message = Array.from({ length: 20_000 }, (_, i) => `record ${i} status=ok`).join('\n');
    const [r] = await play(home, work, [{ tool: 'mcp__everything__echo', input: { message } }], ['Bash', 'mcp__everything__echo']);
    expect(r.text.length).toBeLessThan(12_000);
    expect(r.text).toContain('Result of mcp__everything__echo offloaded');
    const id = idIn(r.text);
    const grep = await lro(['grep', id, 'record 19999 '], { env: { LRO_DIR: store } });
    expect(grep.out).toContain('record 19999 status=ok');
  });

  test('a command Claude Code moves to the background on timeout shows its head while it runs, then the descriptor', async () => {
    const { home, work } = await scratch('timeout');
    const results = await play(home, work, [
      { tool: 'Bash', input: { command: "echo started; seq 1 200000; sleep 7; echo 'FATAL: late' >&2; exit 3", description: 'x', timeout: 3000 } },
      bash('sleep 9; echo waited'), // the background call ends meanwhile
    ]);
    expect(results[0].text).toContain('moved to the background');
    const file = /Output is being written to: (\S+\.output)\./.exec(results[0].text)![1];
    const output = readFileSync(file, 'utf8');
    expect(output).toMatch(/^started\n1\n2\n/);
    expect(output).toContain('[lro: the output above is its first 6400 bytes, shown while it ran; all of it is stored:]');
    expect(output).toContain('(exit code 3)');
    const grep = await lro(['grep', idIn(output), 'FATAL'], { env: { LRO_DIR: store } });
    expect(grep.out).toBe('200002:FATAL: late\n');
  });
});
