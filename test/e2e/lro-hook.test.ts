// bin/lro-hook, the hook `lro init codex|gemini` installs: the same answers as `lro __codex-hook` and
// `lro __gemini-hook`, without a Node start for a small Gemini output or a Codex call the resident helper answers.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { BIN, cleanup, lro, tempDir } from '../helpers/cli.js';

const HOOK = resolve(__dirname, '../../bin/lro-hook');
const root = tempDir();
afterAll(() => cleanup(root));
const tmp = join(root, 'tmp');
const spool = join(tmp, `lro-prefix-${process.getuid!()}`);
mkdirSync(spool, { recursive: true, mode: 0o700 });
const env = { PATH: process.env.PATH!, HOME: root, TMPDIR: tmp, LRO_DIR: join(root, 'store'), CODEX_HOME: join(root, 'codex') };

/** Runs bin/lro-hook VERB with the input; what it printed and its exit code. */
function hook(verb: string, input: string, extra: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  return new Promise((done, fail) => {
    const child = spawn(HOOK, [verb], { env: { ...env, LRO_NODE: process.execPath, ...extra }, stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', fail);
    child.on('close', (code) => done({ code, out }));
    child.stdin.on('error', () => undefined); // a hook may answer and end before reading all of it (EPIPE)
    child.stdin.end(input);
  });
}

const codexCall = (command: string) => JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', cwd: root, tool_input: { command } });

test('Codex: the answer of lro __codex-hook; once the resident helper runs, the same answer without Node', async () => {
  const inputs = [codexCall("echo 'hi' \"there\""), codexCall('rm -rf build'), codexCall('git log --stat'), '{"tool_name":"apply_patch"}', 'not json'];
  const want = await Promise.all(inputs.map((input) => lro(['__codex-hook'], { input, env })));
  const first = await Promise.all(inputs.map((input) => hook('__codex-hook', input)));
  expect(first.map((r) => r.out)).toEqual(want.map((r) => r.out));
  expect(want[0].out).toContain('lro-shell-prefix');
  // the Node fallback left a helper behind
  const file = join(spool, 'resident');
  for (let i = 0; i < 100 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 50));
  const again = await Promise.all(inputs.map((input) => hook('__codex-hook', input, { LRO_NODE: '/nonexistent/node' })));
  expect(again.map((r) => r.out)).toEqual(want.map((r) => r.out));
  expect(again.every((r) => r.code === 0)).toBe(true);
});

test('Gemini: a small output is left as it is without Node; a large one gets lro __gemini-hook\'s answer', async () => {
  const call = (output: string) =>
    JSON.stringify({
      hook_event_name: 'AfterTool',
      tool_name: 'run_shell_command',
      tool_input: { command: 'seq' },
      tool_response: { llmContent: `<untrusted_context>\nOutput: ${output}\nExit Code: 3\nProcess Group PGID: 77\n</untrusted_context>`, returnDisplay: '' },
    });
  const small = await hook('__gemini-hook', call('hello'), { LRO_NODE: '/nonexistent/node' });
  expect(small).toEqual({ code: 0, out: '' });
  const big = await hook('__gemini-hook', call(Array.from({ length: 30000 }, (_, i) => i).join('\n')));
  expect(big.code).toBe(0);
  const answer = JSON.parse(big.out) as { decision: string; reason: string };
  expect(answer.decision).toBe('deny');
  expect(answer.reason).toMatch(/Output offloaded: 30,000 lines/);
});

test('lro __gemini-hook killed while it reads a large output leaves nothing of it in $TMPDIR', async () => {
  const own = join(root, 'tmp-killed');
  mkdirSync(own);
  const child = spawn(process.execPath, [BIN, '__gemini-hook'], { env: { ...env, TMPDIR: own }, stdio: ['pipe', 'ignore', 'inherit'] });
  child.stdin.on('error', () => undefined);
  const start = '{"hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{"command":"seq"},"tool_response":{"llmContent":"<untrusted_context>\\nOutput: ';
  child.stdin.write(start + 'a secret line\\n'.repeat(200_000)); // 3 MB, the input left open: the hook is still reading
  await new Promise((r) => setTimeout(r, 1500));
  const ended = new Promise((r) => child.on('close', r));
  child.kill('SIGKILL');
  await ended;
  expect(readdirSync(own)).toEqual([]);
});

test('the Gemini CLI and Claude Code hooks start gc now and then when they store: an expired result goes without cron', async () => {
  const big = Array.from({ length: 30000 }, (_, i) => `line ${i}`).join('\n');
  const calls: [string, string][] = [
    ['__gemini-hook', JSON.stringify({ hook_event_name: 'AfterTool', tool_name: 'run_shell_command', tool_input: { command: 'seq' }, tool_response: { llmContent: `<untrusted_context>\nOutput: ${big}\nExit Code: 0\n</untrusted_context>` } })],
    ['__claude-code-hook', JSON.stringify({ hook_event_name: 'PostToolUse', tool_name: 'mcp__s__t', tool_input: {}, tool_response: [{ type: 'text', text: big }] })],
  ];
  for (const [verb, input] of calls) {
    const own = join(root, `tmp-gc${verb}`);
    const store = join(root, `store-gc${verb}`);
    mkdirSync(own);
    const old = await lro(['offload', '--force', '--ttl', '1s', '--descriptor', 'json'], { input: 'x\n'.repeat(10), env: { LRO_DIR: store } });
    const id = JSON.parse(old.out).id as string;
    await new Promise((r) => setTimeout(r, 1100));
    const r = await lro([verb], { input, env: { ...env, TMPDIR: own, LRO_DIR: store } });
    expect(r.out, verb).toMatch(/offloaded: 30,000 lines/);
    let left = true;
    for (let i = 0; i < 100 && left; i++) {
      await new Promise((done) => setTimeout(done, 100));
      left = readdirSync(store).some((f) => f.includes(id));
    }
    expect(left, verb).toBe(false);
  }
});

test("Claude Code's MCP hook: a small result is left as it is without Node; a large one, or one Claude Code saved to a file, gets lro __claude-code-hook's answer", async () => {
  const call = (response: unknown) => JSON.stringify({ session_id: 's', hook_event_name: 'PostToolUse', tool_name: 'mcp__fs__read', tool_input: { path: 'x' }, tool_response: response });
  const small = await hook('__claude-code-hook', call([{ type: 'text', text: 'hello' }]), { LRO_NODE: '/nonexistent/node' });
  expect(small).toEqual({ code: 0, out: '' });
  const big = call([{ type: 'text', text: Array.from({ length: 30000 }, (_, i) => i).join('\n') }]);
  const want = await lro(['__claude-code-hook'], { input: big, env });
  expect(want.out).toContain('offloaded: 30,000 lines');
  expect((await hook('__claude-code-hook', big)).out).toBe(want.out); // (the same bytes: the same id)
  // Claude Code's note for a result too large for it names the file it saved: small itself, but Node's to store
  const saved = join(root, 'saved-result.txt');
  writeFileSync(saved, Array.from({ length: 30000 }, (_, i) => `row ${i}`).join('\n'));
  const note = call(`Error: result (1,234,567 characters) exceeds maximum allowed tokens. Output has been saved to ${saved}.\nUse offset and limit.`);
  expect(note.length).toBeLessThan(6400);
  const r = await hook('__claude-code-hook', note);
  expect(r.out).toContain('offloaded: 30,000 lines');
});

test('Gemini, MCP tools: a small result is left as it is without Node; a large one gets lro __gemini-hook\'s answer', async () => {
  const call = (text: string) =>
    JSON.stringify({
      hook_event_name: 'AfterTool',
      tool_name: 'mcp_fake_lines',
      tool_input: { lines: 3 },
      tool_response: { llmContent: [{ text: `<untrusted_context>\n${text}\n</untrusted_context>` }], returnDisplay: text },
      mcp_context: { server_name: 'fake', tool_name: 'lines', command: 'node', args: ['fake-upstream.mjs'] },
    });
  const small = await hook('__gemini-hook', call('line 1 of the fake upstream'), { LRO_NODE: '/nonexistent/node' });
  expect(small).toEqual({ code: 0, out: '' });
  // a result of up to the threshold in bytes: Gemini CLI sends it twice (over the threshold), still no Node
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1} of the fake upstream`).join('\n');
  const medium = call(lines(195)); // 5,741 bytes of text
  expect(medium.length).toBeGreaterThan(12_000);
  expect(await hook('__gemini-hook', medium, { LRO_NODE: '/nonexistent/node' })).toEqual({ code: 0, out: '' });
  // past the threshold in bytes: Node decides, and gets the whole input (bash reads only what it can settle)
  const node = join(root, 'node-called');
  const fakeNode = join(root, 'fake-node');
  writeFileSync(fakeNode, `#!/bin/sh\nwc -c > '${node}'\n`, { mode: 0o755 });
  for (const input of [call(lines(220)), call(lines(20000))]) {
    await hook('__gemini-hook', input, { LRO_NODE: fakeNode, LRO_RESIDENT: '0' });
    expect(Number(readFileSync(node, 'utf8'))).toBe(Buffer.byteLength(input));
  }
  const big = await hook('__gemini-hook', call(Array.from({ length: 30000 }, (_, i) => i).join('\n')));
  expect(big.code).toBe(0);
  const answer = JSON.parse(big.out) as { decision: string; reason: string };
  expect(answer.decision).toBe('deny');
  expect(answer.reason).toMatch(/Result of mcp_fake_lines offloaded: 30,000 lines/);
});

test('Gemini, a medium result: once the resident helper runs, one it would leave costs no Node; one over the threshold in tokens is stored', async () => {
  const tmp2 = join(root, 'tmp-gemini');
  mkdirSync(tmp2);
  const env2 = { TMPDIR: tmp2, LRO_DIR: join(root, 'store-gemini') };
  const call = (text: string, tool = 'mcp_fake_lines') =>
    JSON.stringify({
      hook_event_name: 'AfterTool',
      tool_name: tool,
      tool_input: { lines: 3 },
      tool_response: { llmContent: [{ text: `<untrusted_context>\n${text}\n</untrusted_context>` }], returnDisplay: text },
      mcp_context: { server_name: 'fake', tool_name: 'lines', command: 'node', args: ['fake-upstream.mjs'] },
    });
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1} of the fake upstream`).join('\n');
  const dense = (n: number) => Array.from({ length: n }, (_, i) => `${(i * 7919) % 10}${(i * 104729) % 7} ${(i * 31) % 9}`).join('\n');
  // 9.2 kB of text, about 2,400 tokens: over the threshold (6,400) in bytes only; the input (it holds the text
  // twice) is under what bin/lro-hook reads whole (16 thresholds of bytes and 16 kB), also for a threshold of 2,000
  const medium = call(lines(300));
  expect(medium.length).toBeLessThan(16 * 2000 + 16384);
  const over = call(dense(2000)); // 10 kB of text, about 8,000 tokens
  // the first call: Node decides (nothing to store), makes the prefix's folder and leaves a helper behind
  expect(await hook('__gemini-hook', medium, env2)).toEqual({ code: 0, out: '' });
  const spool2 = join(tmp2, `lro-prefix-${process.getuid!()}`);
  const file = join(spool2, 'resident');
  for (let i = 0; i < 100 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 50));
  expect(statSync(spool2).mode & 0o777).toBe(0o700);
  const ran = join(root, 'gemini-node-ran');
  const fakeNode = join(root, 'gemini-fake-node');
  writeFileSync(fakeNode, `#!/bin/sh\necho ran >> '${ran}'\ncat > /dev/null\n`, { mode: 0o755 });
  expect(await hook('__gemini-hook', medium, { ...env2, LRO_NODE: fakeNode })).toEqual({ code: 0, out: '' });
  expect(await hook('__gemini-hook', call(lines(300), 'run_shell_command'), { ...env2, LRO_NODE: fakeNode })).toEqual({ code: 0, out: '' });
  // 19 kB of text, about 4,800 tokens (an input of 37 kB)
  expect(await hook('__gemini-hook', call(lines(600)), { ...env2, LRO_NODE: fakeNode })).toEqual({ code: 0, out: '' });
  expect(existsSync(ran)).toBe(false);
  // the caller's threshold, not the helper's: under 2,000 tokens the medium result is Node's to store
  await hook('__gemini-hook', medium, { ...env2, LRO_NODE: fakeNode, LRO_THRESHOLD_TOKENS: '2000' });
  await hook('__gemini-hook', over, { ...env2, LRO_NODE: fakeNode });
  expect(readFileSync(ran, 'utf8')).toBe('ran\nran\n');
  // and with Node there, it is stored; the helper's folder holds nothing of it (gc's hourly stamp is not output,
  // and the helper's door, a FIFO, is the helper's)
  const big = await hook('__gemini-hook', over, env2);
  expect((JSON.parse(big.out) as { decision: string }).decision).toBe('deny');
  expect(readdirSync(spool2).filter((f) => !f.startsWith('gc-') && !f.startsWith('door.'))).toEqual(['resident']);
});

test("Gemini, lro's hook in the user's and the project's settings: both run at once on the call, one answers", async () => {
  const tmp3 = join(root, 'tmp-both');
  mkdirSync(tmp3);
  const env3 = { TMPDIR: tmp3, LRO_DIR: join(root, 'store-both'), LRO_RESIDENT: '0' };
  const input = (timestamp: string) =>
    JSON.stringify({
      session_id: '9a130d1b-0f0c-4074-9671-2f99ca25ea21',
      hook_event_name: 'AfterTool',
      timestamp,
      tool_name: 'run_shell_command',
      tool_input: { command: 'seq 1 30000' },
      tool_response: { llmContent: `Output: ${Array.from({ length: 30000 }, (_, i) => i + 1).join('\n')}\nProcess Group PGID: 7`, returnDisplay: '' },
    });
  const both = await Promise.all([hook('__gemini-hook', input('2026-11-28T09:00:07.833Z'), env3), hook('__gemini-hook', input('2026-11-28T09:00:07.833Z'), env3)]);
  expect(both.map((r) => r.code)).toEqual([0, 0]);
  expect(both.filter((r) => r.out === '')).toHaveLength(1);
  expect(JSON.parse(both.find((r) => r.out)!.out).reason).toMatch(/Output offloaded: 30,000 lines/);
  // the next call (another moment) is answered again
  const next = await hook('__gemini-hook', input('2026-11-28T09:00:09.101Z'), env3);
  expect(JSON.parse(next.out).decision).toBe('deny');
});

test('a verb it does not know: one line, exit 2', async () => {
  const r = await hook('__other', '{}');
  expect(r.code).toBe(2);
});
