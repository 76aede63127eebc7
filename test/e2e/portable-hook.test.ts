// The hook a project's Gemini settings hold (`lro init gemini --project`): lro-hook named by PATH, so a file a team
// commits works on every teammate's machine. Run as Gemini CLI runs a hook (`bash -c COMMAND`, the tool's result on
// stdin): through npm's layout of links to the package (lro.js found beside the real lro-hook, Node from PATH), under
// bash 3.2 and busybox's userland too; and on a machine without lro, or without Node, it steps aside: exit 0, nothing
// on stdout or stderr (Gemini CLI shows stderr), the whole input read (no EPIPE for Gemini CLI's write).
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { ensureBash32, ensureBusybox } from '../helpers/old-shells.js';

const HOOK = resolve(__dirname, '../../bin/lro-hook');
const REPO = resolve(HOOK, '../..');
const root = tempDir();
afterAll(() => cleanup(root));

// npm's global layout: <prefix>/lib/node_modules/lro (a link to the package folder, as `npm install -g <folder>`
// makes it) and <prefix>/bin/lro-hook -> ../lib/node_modules/lro/bin/lro-hook; then a chain to that link
const prefix = join(root, 'npm-prefix');
mkdirSync(join(prefix, 'lib', 'node_modules'), { recursive: true });
mkdirSync(join(prefix, 'bin'));
symlinkSync(REPO, join(prefix, 'lib', 'node_modules', 'lro'));
symlinkSync('../lib/node_modules/lro/bin/lro-hook', join(prefix, 'bin', 'lro-hook'));
const chain = join(root, 'chain');
mkdirSync(chain);
symlinkSync(join(prefix, 'bin', 'lro-hook'), join(chain, 'lro-hook'));
/** The two tools the hook uses besides bash (cat, readlink), and Node alone: PATHs without lro or without Node. */
const tools = join(root, 'tools');
mkdirSync(tools);
for (const t of ['cat', 'readlink']) {
  symlinkSync(execFileSync('bash', ['-c', `command -v ${t}`]).toString().trim(), join(tools, t));
}
/** bash itself, by path: Gemini CLI finds it on its own PATH, these PATHs are the hook's. */
const BASH = execFileSync('bash', ['-c', 'command -v bash']).toString().trim();
const nodeOnly = join(root, 'node-only');
mkdirSync(nodeOnly);
symlinkSync(process.execPath, join(nodeOnly, 'node'));

/** The command `lro init gemini --project` writes, read from the file it writes. */
let command = '';
beforeAll(async () => {
  const work = join(root, 'project');
  mkdirSync(work);
  const env = { HOME: root, XDG_STATE_HOME: join(root, 'state') };
  const r = await lro(['init', 'gemini', '--project'], { env, shellPrefix: `cd '${work}' &&` });
  expect(r.code, r.stderr).toBe(0);
  const settings = JSON.parse(readFileSync(join(work, '.gemini', 'settings.json'), 'utf8'));
  command = settings.hooks.AfterTool[0].hooks[0].command;
  for (const path of [REPO, process.execPath]) expect(command).not.toContain(path);
});

/** Gemini CLI's AfterTool input for a shell call that printed `lines` numbers and exited 3. */
const shellCall = (lines: number) => {
  const output = Array.from({ length: lines }, (_, i) => i).join('\n');
  return JSON.stringify({
    hook_event_name: 'AfterTool',
    cwd: root,
    tool_name: 'run_shell_command',
    tool_input: { command: `seq 0 ${lines - 1}` },
    tool_response: { llmContent: `<untrusted_context>\nOutput: ${output}\nExit Code: 3\n</untrusted_context>`, returnDisplay: '' },
  });
};

interface Ran {
  code: number | null;
  out: string;
  err: string;
  /** The error writing the input, if any (EPIPE: the hook ended without reading it). */
  writeError: string | null;
}

/** argv run with `input` on stdin, as Gemini CLI runs a hook (it writes the input whole, then reads). */
function run(argv: string[], input: string, PATH: string): Promise<Ran> {
  return new Promise((done, fail) => {
    const env = { PATH, HOME: root, LRO_DIR: join(root, 'store'), TMPDIR: root };
    const child = spawn(argv[0], argv.slice(1), { env, cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let writeError: string | null = null;
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.stdin.on('error', (e: NodeJS.ErrnoException) => (writeError = e.code ?? e.message));
    child.on('error', fail);
    child.on('close', (code) => setImmediate(() => done({ code, out, err, writeError })));
    child.stdin.end(input);
  });
}

const offloaded = (r: Ran) => {
  expect(r.code, r.err).toBe(0);
  const answer = JSON.parse(r.out) as { decision: string; reason: string };
  expect(answer.decision).toBe('deny');
  expect(answer.reason).toMatch(/Output offloaded: 30,000 lines/);
  expect(r.writeError).toBeNull();
};
const leftAlone = (r: Ran) => expect(r).toEqual({ code: 0, out: '', err: '', writeError: null });

describe("a project's Gemini hook, lro-hook by PATH", () => {
  test("through npm's links (a relative link, a link to it): a large output stored, Node from PATH; a small one left", async () => {
    const PATH = `${chain}:${nodeOnly}:${tools}`;
    offloaded(await run([BASH, '-c', command], shellCall(30_000), PATH));
    leftAlone(await run([BASH, '-c', command], shellCall(3), PATH));
  });

  test('no lro on PATH: steps aside (exit 0, nothing printed, the whole input read: 2 MB)', async () => {
    const big = shellCall(300_000);
    expect(big.length).toBeGreaterThan(2_000_000);
    leftAlone(await run([BASH, '-c', command], big, `${nodeOnly}:${tools}`));
  });

  test('lro-hook but no Node on PATH: steps aside, the whole input read', async () => {
    leftAlone(await run([BASH, '-c', command], shellCall(300_000), `${chain}:${tools}`));
  });

  const b32 = ensureBash32();
  test.skipIf(!!b32.skip)('bash 3.2 (macOS /bin/bash) runs the hook through the links', async () => {
    offloaded(await run([b32.bin!, join(chain, 'lro-hook'), '__gemini-hook'], shellCall(30_000), `${nodeOnly}:${tools}`));
  });

  const bb = ensureBusybox();
  test.skipIf(!!bb.skip)("busybox's readlink and cat: the same answers", async () => {
    const PATH = `${bb.pathDir}:${chain}:${nodeOnly}`;
    offloaded(await run([BASH, '-c', command], shellCall(30_000), PATH));
    leftAlone(await run([BASH, '-c', command], shellCall(300_000), `${bb.pathDir}:${nodeOnly}`));
  });
});
