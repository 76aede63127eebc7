// lro in the real Codex (the pinned release, installed into a cache folder on first use), driven offline by a
// scripted model: every assertion is on the function_call_output the model receives. The hook is trusted the way
// Codex records it (a [hooks.state] trust record in config.toml), never with --dangerously-bypass-hook-trust, so
// the runs also prove that `lro doctor codex` reads trust as Codex does.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ensureCodex, modelConfig, runCodex, startScriptedModel, type CallOutput, type Step } from '../helpers/codex.js';
import { BIN, lro } from '../helpers/cli.js';

const install = ensureCodex();
if (install.skip) console.warn(`skipping the Codex end-to-end tests: ${install.skip}`);

let root: string;
let pathDir: string;
let store: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'lro-codex-'));
  pathDir = join(root, 'bin');
  mkdirSync(pathDir);
  symlinkSync(BIN, join(pathDir, 'lro'));
  store = join(root, 'store');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Scratch {
  home: string;
  codexHome: string;
  work: string;
  env: Record<string, string>;
}

/** A fresh HOME (whose login profile puts lro on PATH, as a global install would), CODEX_HOME and work folder. */
function scratch(name: string): Scratch {
  const home = join(root, name);
  const codexHome = join(home, '.codex');
  const work = join(home, 'work');
  mkdirSync(codexHome, { recursive: true });
  mkdirSync(work);
  writeFileSync(join(home, '.bash_profile'), `export PATH="${pathDir}:$PATH"\n`);
  const env = { HOME: home, XDG_STATE_HOME: join(home, 'state'), CODEX_HOME: codexHome, LRO_DIR: store };
  return { home, codexHome, work, env };
}

/** `lro init codex`, then the trust record the user's review in /hooks would write (unless `trust` is false). */
async function installLro(s: Scratch, trust = true): Promise<void> {
  const r = await lro(['init', 'codex', '--force'], { env: s.env });
  expect(r.code, r.stderr).toBe(0);
  if (!trust) return;
  const hooks = join(s.codexHome, 'hooks.json');
  const command = JSON.parse(readFileSync(hooks, 'utf8')).hooks.PreToolUse[0].hooks[0].command as string;
  const identity = `{"event_name":"pre_tool_use","hooks":[{"async":false,"command":${JSON.stringify(command)},"timeout":30,"type":"command"}],"matcher":"^Bash$"}`;
  const hash = `sha256:${createHash('sha256').update(identity).digest('hex')}`;
  appendFileSync(join(s.codexHome, 'config.toml'), `\n[hooks.state."${hooks}:pre_tool_use:0:0"]\ntrusted_hash = "${hash}"\n`);
}

const exec = (cmd: string, extra: Record<string, unknown> = {}): Step => ({ exec: { cmd, ...extra } });

/** Runs the steps in Codex; returns what the model received for each call. */
async function play(
  s: Scratch,
  steps: (Step | ((o: CallOutput[]) => Step))[],
  args?: string[],
  review: 'allow' | 'deny' = 'deny',
  reviews: string[] = [],
): Promise<CallOutput[]> {
  const model = await startScriptedModel(steps, review);
  try {
    const config = join(s.codexHome, 'config.toml');
    const before = existsSync(config) ? readFileSync(config, 'utf8') : '';
    writeFileSync(config, `${modelConfig(model)}${before}`);
    try {
      const run = await runCodex(install.bin!, { codexHome: s.codexHome, home: s.home, cwd: s.work, args, env: { LRO_DIR: store } });
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
    } finally {
      writeFileSync(config, before);
    }
    reviews.push(...model.reviews());
    return model.outputs();
  } finally {
    await model.close();
  }
}

const idIn = (text: string): string => /\bid: ([0-9A-Z]{26})\b/.exec(text)?.[1] ?? '';
/** Codex's output without its chunk id and wall time, which differ between runs. */
const stable = (text: string): string => text.replace(/^Chunk ID: \w+\n/, '').replace(/^Wall time: [\d.]+ seconds\n/m, '');

describe.skipIf(!!install.skip)('Codex 0.169.0 with lro init codex', () => {
  test('lro doctor codex says the hook is trusted once the trust record is there', async () => {
    const s = scratch('doctor');
    await installLro(s, false);
    const before = JSON.parse((await lro(['doctor', 'codex', '--json'], { env: s.env })).out) as { checks: { name: string; ok: boolean }[] };
    expect(before.checks.find((c) => c.name === 'trust')?.ok).toBe(false);
    await installLro(s);
    const after = JSON.parse((await lro(['doctor', 'codex', '--json'], { env: s.env })).out) as { checks: { name: string; ok: boolean }[] };
    expect(after.checks.find((c) => c.name === 'trust')?.ok).toBe(true);
  });

  // Skipped since 2026-11-29: the same Codex 0.169.0 binary, driven the same way, no longer reaches its "hooks need
  // review" prompt with these keys (the code of stop 49, which passed here on 2026-11-28, fails the same way: the
  // change is Codex's, by date; its config records a `[tui.model_availability_nux]` seen). To mend: read the TUI's
  // screen and send the keys for what it shows. `lro doctor codex` and the trust record test above still run.
  test.skip('the trust step lro init gives ("press 2, then Enter" at "hooks need review") trusts the hook in the real TUI', async () => {
    const s = scratch('tui-trust');
    await installLro(s, false);
    const config = join(s.codexHome, 'config.toml');
    const model = ['model = "gpt-5.1"', 'model_provider = "mock"', '[model_providers.mock]', 'name = "mock"', 'base_url = "http://127.0.0.1:9/v1"', 'wire_api = "responses"', 'env_key = "MOCK_API_KEY"'];
    writeFileSync(config, `${model.join('\n')}\n\n[projects.${JSON.stringify(s.work)}]\ntrust_level = "trusted"\n${existsSync(config) ? readFileSync(config, 'utf8') : ''}`);
    const doctor = async () => (JSON.parse((await lro(['doctor', 'codex', '--json'], { env: s.env })).out) as { checks: { name: string; ok: boolean }[] }).checks.find((c) => c.name === 'trust')?.ok;
    expect(await doctor()).toBe(false);
    // Codex's TUI in a terminal of its own (script), the keys typed as a person would, a pause between them
    const keys = `sleep 6; printf 2; sleep 1; printf '\\r'; sleep 3`;
    const tui = spawnSync('bash', ['-c', `(${keys}) | timeout 20 script -qfc "$0" /dev/null`, install.bin!], {
      cwd: s.work,
      env: { PATH: process.env.PATH!, HOME: s.home, CODEX_HOME: s.codexHome, MOCK_API_KEY: 'x', TERM: 'xterm' },
      timeout: 30_000,
    });
    expect(tui.error).toBeUndefined();
    expect(readFileSync(config, 'utf8')).toMatch(/\[hooks\.state\."[^"]*hooks\.json:pre_tool_use:0:0"\]\ntrusted_hash = "sha256:/);
    expect(await doctor()).toBe(true);
  });

  test('the off switch: LRO_SHELL_PREFIX_OFF set by shell_environment_policy makes a large output Codex\'s own again', async () => {
    const s = scratch('off');
    await installLro(s);
    appendFileSync(join(s.codexHome, 'config.toml'), '\n[shell_environment_policy]\nset = { LRO_SHELL_PREFIX_OFF = "1" }\n');
    const [big] = await play(s, [exec('seq 1 200000')]);
    expect(idIn(big.output)).toBe('');
    expect(big.output).toContain('truncated');
  });

  test('a failing 1.3 MB output: the descriptor under "Process exited with code 3", and `lro grep <id> FATAL` finds the stderr line', async () => {
    const s = scratch('big');
    await installLro(s);
    const outputs = await play(s, [exec("seq 1 200000; echo 'FATAL: disk on fire' >&2; exit 3"), (o) => exec(`lro grep ${idIn(o[0].output)} FATAL`)]);
    expect(outputs).toHaveLength(2);
    const [failed, grep] = outputs;
    expect(failed.output).toMatch(/^Chunk ID: \w+\nWall time: [\d.]+ seconds\nProcess exited with code 3\n/);
    expect(failed.output.length).toBeLessThan(12_000);
    expect(failed.output).toContain('(exit code 3)');
    expect(idIn(failed.output)).not.toBe('');
    expect(failed.output).not.toContain('truncated');
    expect(grep.output).toContain('Process exited with code 0');
    expect(grep.output).toContain('200001:FATAL: disk on fire');
    // the whole output is in the store
    const cat = await lro(['cat', idIn(failed.output)], { env: { LRO_DIR: store } });
    expect(cat.out.length).toBe(1_288_895 + 'FATAL: disk on fire\n'.length);
  });

  test("in Codex's workspace-write sandbox too: a large output is stored, a small one unchanged", async () => {
    const s = scratch('sandbox');
    await installLro(s);
    const [big, small] = await play(s, [exec('seq 1 200000'), exec('echo small')], ['-s', 'workspace-write']);
    expect(idIn(big.output)).not.toBe('');
    expect(big.output).toContain('Process exited with code 0');
    expect(small.output).toMatch(/Output:\nsmall\n$/);
    // read-only: nowhere to store, so the output passes as without lro (Codex cuts it), and the command still runs
    const [readOnly] = await play(s, [exec('seq 1 200000; exit 2')], ['-s', 'read-only']);
    expect(idIn(readOnly.output)).toBe('');
    expect(readOnly.output).toContain('Process exited with code 2');
    expect(readOnly.output).toContain('truncated');
  });

  test("in Codex's workspace-write sandbox, which refuses sockets, a medium output is settled by the helper's door: no Node", async () => {
    // Codex's own sandbox (`codex sandbox`, the policy its shell tool runs under): bash's /dev/tcp is refused there,
    // so before, every output over 6,400 bytes started Node to count its tokens (130-240 ms a call)
    const s = scratch('door');
    const tmp = join(s.home, 'tmp');
    const spool = join(tmp, `lro-prefix-${process.getuid!()}`);
    mkdirSync(spool, { recursive: true, mode: 0o700 });
    // the helper an earlier call's hook left, outside the sandbox
    const helper = spawn(process.execPath, [BIN, '__resident', '--spool', spool], { stdio: 'ignore' });
    try {
      for (let i = 0; i < 100 && !existsSync(join(spool, 'resident')); i++) await new Promise((r) => setTimeout(r, 50));
      const env = { PATH: process.env.PATH!, HOME: s.home, CODEX_HOME: s.codexHome, TMPDIR: tmp };
      const inSandbox = (...command: string[]) =>
        spawnSync(install.bin!, ['sandbox', '-c', 'sandbox_mode="workspace-write"', '--', ...command], { cwd: s.work, env, encoding: 'utf8' });
      expect(inSandbox('bash', '-c', 'exec 9<>/dev/tcp/127.0.0.1/9').stderr).toContain('Operation not permitted');
      const prefix = join(dirname(BIN), 'lro-shell-prefix');
      const medium = inSandbox('env', 'LRO_SHELL_PREFIX_WRAP=codex', 'LRO_NODE=/nonexistent/node', 'bash', prefix, 'seq 1 2000; echo done');
      expect(medium.stderr).not.toContain('lro-shell-prefix');
      expect(medium.stdout).toBe(`${Array.from({ length: 2000 }, (_, i) => i + 1).join('\n')}\ndone\n`);
      expect(medium.status).toBe(0);
      const large = inSandbox('env', 'LRO_SHELL_PREFIX_WRAP=codex', 'LRO_NODE=/nonexistent/node', 'bash', prefix, 'seq 1 5000');
      expect(large.stderr).toContain('cannot offload'); // the helper said large: Node's to store
    } finally {
      helper.kill();
    }
  });

  test('a command still running when Codex yields shows its head; polled to its end, the descriptor and exit code', async () => {
    const s = scratch('long');
    await installLro(s);
    const session = (o: CallOutput[]) => Number(/session ID (\d+)/.exec(o[0].output)?.[1]);
    const [first, end] = await play(s, [
      exec("echo started; seq 1 200000; sleep 8; echo 'FATAL: late' >&2; exit 3", { yield_time_ms: 6000 }),
      (o) => ({ tool: 'write_stdin', exec: { session_id: session(o), chars: '', yield_time_ms: 30000 } }),
    ]);
    expect(first.output).toMatch(/Process running with session ID \d+/);
    expect(first.output).toContain('\nstarted\n1\n2\n');
    expect(end.output).toContain('Process exited with code 3');
    expect(end.output).toContain('[lro: the output above is its first 6400 bytes, shown while it ran; all of it is stored:]');
    const grep = await lro(['grep', idIn(end.output), 'FATAL'], { env: { LRO_DIR: store } });
    expect(grep.out).toBe('200002:FATAL: late\n');
  });

  test("--mcp: Codex starts lro's MCP server from the config.toml lro edited (comments kept), and offers its tools", async () => {
    const s = scratch('mcp');
    const mine = '# my settings\napproval_policy = "on-request"   # keep\n';
    writeFileSync(join(s.codexHome, 'config.toml'), mine);
    const r = await lro(['init', 'codex', '--mcp', '--force'], { env: s.env });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(s.codexHome, 'config.toml'), 'utf8').startsWith(mine)).toBe(true);
    const installed = readFileSync(join(s.codexHome, 'config.toml'), 'utf8');
    const model = await startScriptedModel([]);
    try {
      writeFileSync(join(s.codexHome, 'config.toml'), `${modelConfig(model)}${installed}`);
      const run = await runCodex(install.bin!, { codexHome: s.codexHome, home: s.home, cwd: s.work, env: { LRO_DIR: store } });
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      const tools = (model.requests[0].body as { tools?: { type?: string; name?: string; tools?: { name: string }[] }[] }).tools ?? [];
      const lroTools = tools.find((t) => t.name === 'mcp__lro')?.tools?.map((t) => t.name) ?? [];
      expect(lroTools).toEqual(expect.arrayContaining(['lro_grep', 'lro_count']));
    } finally {
      await model.close();
    }
    // uninstall gives the user's files back exactly
    writeFileSync(join(s.codexHome, 'config.toml'), installed);
    expect((await lro(['init', 'codex', '--uninstall'], { env: s.env })).code).toBe(0);
    expect(readFileSync(join(s.codexHome, 'config.toml'), 'utf8')).toBe(mine);
    expect(existsSync(join(s.codexHome, 'hooks.json'))).toBe(false);
  });

  test('a call with a terminal (tty) is left as it is: the program still sees a terminal', async () => {
    const s = scratch('tty');
    await installLro(s);
    const [withTty, without] = await play(s, [
      exec('[ -t 1 ] && echo is-a-terminal; seq 1 200000', { tty: true }),
      exec('[ -t 1 ] && echo is-a-terminal; seq 1 200000'),
    ]);
    expect(withTty.output).toContain('is-a-terminal');
    expect(idIn(withTty.output)).toBe('');
    expect(idIn(without.output)).not.toBe(''); // the next call without a terminal is offloaded again
  });

  test('untrusted, the hook is skipped without a word: the model gets Codex\'s own cut output (what doctor warns of)', async () => {
    const s = scratch('untrusted');
    await installLro(s, false);
    const [r] = await play(s, [exec('seq 1 200000')]);
    expect(idIn(r.output)).toBe('');
    expect(r.output).toContain('truncated');
  });

  test('a small output reaches the model as without lro; the working directory is the same', async () => {
    const command = "echo err >&2; echo out; printf 'tab\\there\\n'; echo 'é ✓'; pwd; exit 4";
    const a = scratch('small-lro'); // names of one length: the output holds the working directory
    await installLro(a);
    const b = scratch('small-raw');
    const [withLro] = await play(a, [exec(command)]);
    const [without] = await play(b, [exec(command)]);
    // Codex reads the command's two pipes itself, so without lro the stderr line comes first or last as they
    // happen to arrive; through lro (stdout and stderr merged by the prefix) it keeps the command's order
    const lines = (text: string) => stable(text).split('\n').sort();
    expect(lines(withLro.output)).toEqual(lines(without.output.replace(b.work, a.work)));
    expect(stable(withLro.output)).toMatch(/^Process exited with code 4\nOriginal token count: \d+\nOutput:\nerr\nout\ntab\there\né ✓\n/);
    expect(stable(withLro.output).endsWith(`\n${a.work}\n`)).toBe(true);
  });

  test('the rewrite does not get past Codex\'s approval policy: an escalation is still refused, a dangerous command still rejected', async () => {
    const s = scratch('approval');
    await installLro(s);
    writeFileSync(join(s.work, 'victim'), 'keep me\n');
    const [escalated, dangerous] = await play(
      s,
      [
        exec('touch made-by-model; echo made', { sandbox_permissions: 'require_escalated', justification: 'write a file' }),
        exec('rm -f victim; echo removed'),
      ],
      ['-s', 'read-only'],
    );
    expect(escalated.output).toContain('reject command');
    expect(existsSync(join(s.work, 'made-by-model'))).toBe(false);
    expect(dangerous.output).toContain('rm -f style commands are not permitted'); // the hook left it as it was
    expect(readFileSync(join(s.work, 'victim'), 'utf8')).toBe('keep me\n');
  });

  test('an approval policy that asks (automatic review): the rewritten command is still put to the reviewer, who decides', async () => {
    const s = scratch('review');
    await installLro(s);
    const escalate = exec('touch made-by-model; echo made', { sandbox_permissions: 'require_escalated', justification: 'write a file' });
    const denied: string[] = [];
    const [no] = await play(s, [escalate], ['--approve-for-me'], 'deny', denied);
    expect(denied.length).toBeGreaterThan(0);
    expect(denied.join('\n')).toContain("lro-shell-prefix 'touch made-by-model; echo made'"); // what lro made of it
    expect(existsSync(join(s.work, 'made-by-model'))).toBe(false);
    expect(no.output).not.toMatch(/^made$/m);
    const allowed: string[] = [];
    const [yes] = await play(s, [escalate], ['--approve-for-me'], 'allow', allowed);
    expect(allowed.length).toBeGreaterThan(0);
    expect(existsSync(join(s.work, 'made-by-model'))).toBe(true);
    expect(yes.output).toMatch(/Process exited with code 0\n[\s\S]*\nmade\n$/);
  });

  test("the user's own exec-policy rules still apply: a forbidden command is rejected, not run through lro", async () => {
    const s = scratch('rules');
    await installLro(s);
    mkdirSync(join(s.codexHome, 'rules'));
    writeFileSync(join(s.codexHome, 'rules', 'default.rules'), 'prefix_rule(pattern = ["touch"], decision = "forbidden")\n');
    const [r, other] = await play(s, [exec('touch made-by-model; echo made'), exec('seq 1 200000')]);
    expect(r.output).toContain('policy forbids commands starting with `touch`');
    expect(existsSync(join(s.work, 'made-by-model'))).toBe(false);
    expect(idIn(other.output)).not.toBe(''); // other commands are still offloaded
  });
});
