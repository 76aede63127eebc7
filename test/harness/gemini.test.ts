// lro in the real Gemini CLI (the pinned release, installed into a cache folder on first use), driven offline by a
// scripted model: every assertion is on the functionResponse the model receives. Folder trust is left on (Gemini
// CLI's default) and the work folder trusted the way Gemini CLI records it (trustedFolders.json), so the runs also
// prove that `lro doctor gemini` reads trust as Gemini CLI does.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ensureGemini,
  MODEL_SETTINGS,
  runGemini,
  startScriptedModel,
  type CallOutput,
  type Step,
} from '../helpers/gemini.js';
import { BIN, lro } from '../helpers/cli.js';

const install = ensureGemini();
/** An MCP server whose `lines` tool answers N lines and `image` tool an image (test/helpers/fake-upstream.mjs). */
const FAKE = resolve(__dirname, '../helpers/fake-upstream.mjs');
if (install.skip) console.warn(`skipping the Gemini CLI end-to-end tests: ${install.skip}`);

let root: string;
let pathDir: string;
let store: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'lro-gemini-'));
  pathDir = join(root, 'bin');
  mkdirSync(pathDir);
  // lro and lro-hook as npm links package.json's "bin": what a project's settings find by PATH
  symlinkSync(BIN, join(pathDir, 'lro'));
  symlinkSync(join(BIN, '..', 'lro-hook'), join(pathDir, 'lro-hook'));
  store = join(root, 'store');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Scratch {
  home: string;
  settings: string;
  work: string;
  env: Record<string, string>;
}

const USER_SETTINGS = `{\n  // scripted model\n${JSON.stringify(MODEL_SETTINGS, null, 2).slice(2)}`;

/** A fresh HOME with the user settings that reach the scripted model, and a work folder Gemini CLI trusts. */
function scratch(name: string, o: { trust?: boolean } = {}): Scratch {
  const home = join(root, name);
  const work = join(home, 'work');
  mkdirSync(join(home, '.gemini'), { recursive: true });
  mkdirSync(work);
  const settings = join(home, '.gemini', 'settings.json');
  writeFileSync(settings, USER_SETTINGS);
  if (o.trust !== false) trust(home, work);
  const PATH = `${pathDir}:${process.env.PATH}`;
  const env = { HOME: home, XDG_STATE_HOME: join(home, 'state'), LRO_DIR: store, PATH };
  return { home, settings, work, env };
}

/** Adds the fake MCP server to the user settings as `fake`: its tools are mcp_fake_lines and mcp_fake_image. */
function addFakeServer(s: Scratch): void {
  const server = { command: process.execPath, args: [FAKE], env: { FAKE_GREETING: 'hello from settings' } };
  const text = readFileSync(s.settings, 'utf8');
  writeFileSync(s.settings, text.replace(/\n}\s*$/, `,\n  "mcpServers": ${JSON.stringify({ fake: server })}\n}\n`));
}

/** Trusts `work` the way Gemini CLI records it when the user chooses "Trust folder". */
function trust(home: string, work: string): void {
  writeFileSync(join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [work]: 'TRUST_FOLDER' }));
}

/** lro run in the scratch's work folder. */
const lroIn = (s: Scratch, args: string[]) => lro(args, { env: s.env, shellPrefix: `cd '${s.work}' &&` });

async function installLro(s: Scratch, args: string[] = []): Promise<void> {
  const r = await lroIn(s, ['init', 'gemini', ...args, '--force']);
  expect(r.code, r.stderr).toBe(0);
}

const shell = (command: string): Step => ({ call: { command } });

/** Runs the steps in Gemini CLI; returns what the model received for each call, and the model's requests. */
async function play(s: Scratch, steps: (Step | ((o: CallOutput[]) => Step))[], code = 0) {
  const model = await startScriptedModel(steps);
  try {
    const env = { LRO_DIR: store, PATH: s.env.PATH };
    const run = await runGemini(install.bin!, { home: s.home, cwd: s.work, url: model.url, env });
    expect(run.code, run.stderr.slice(-2000)).toBe(code);
    return { outputs: model.outputs(), requests: model.requests, run };
  } finally {
    await model.close();
  }
}

const idIn = (text: string): string => /\bid: ([0-9A-Z]{26})\b/.exec(text)?.[1] ?? '';
/** The shell tool's text without its process group id, which differs between runs. */
const stable = (text: string): string => text.replace(/\nProcess Group PGID: \d+\n/, '\n');

describe.skipIf(!!install.skip)('Gemini CLI 0.61.0 with lro init gemini', () => {
  test('a failing 1.3 MB output: a descriptor, "Exit Code: 3"; `lro grep <id> FATAL` finds the stderr line', async () => {
    const s = scratch('big');
    await installLro(s);
    const { outputs } = await play(s, [
      shell("seq 1 200000; echo 'FATAL: disk on fire' >&2; exit 3"),
      (o) => shell(`lro grep ${idIn(o[0].text)} FATAL`),
    ]);
    expect(outputs).toHaveLength(2);
    const [failed, grep] = outputs;
    expect(failed.name).toBe('run_shell_command');
    expect(failed.text.length).toBeLessThan(12_000);
    expect(failed.text).toMatch(/^The command ran; its whole output is stored by lro/);
    expect(failed.text).toMatch(/\nExit Code: 3\nProcess Group PGID: \d+\n<\/untrusted_context>$/);
    expect(failed.text).toContain('(exit code 3)');
    expect(idIn(failed.text)).not.toBe('');
    expect(failed.text).not.toContain('Output too large');
    expect(grep.response.output).toMatch(/^<untrusted_context>\nOutput: 200001:FATAL: disk on fire\n/);
    // the whole output is in the store (Gemini CLI drops the last line break)
    const cat = await lro(['cat', idIn(failed.text)], { env: { LRO_DIR: store } });
    expect(cat.out.length).toBe(1_288_895 + 'FATAL: disk on fire'.length);
  });

  test('a small output reaches the model as without lro; the working directory is the same', async () => {
    // Gemini CLI reads stdout and stderr through two pipes: the pause keeps their order the same in both runs
    const command = "echo err >&2; sleep 0.3; echo out; printf 'tab\\there\\n'; echo 'é ✓'; pwd; exit 4";
    const a = scratch('small-lro'); // names of one length: the output holds the working directory
    await installLro(a);
    const b = scratch('small-raw');
    const [withLro] = (await play(a, [shell(command)])).outputs;
    const [without] = (await play(b, [shell(command)])).outputs;
    expect(stable(withLro.text)).toBe(stable(without.text).replace(b.work, a.work));
    const expected = `Output: err\nout\ntab\there\né ✓\n${a.work}\nExit Code: 4`;
    expect(stable(withLro.text)).toBe(`<untrusted_context>\n${expected}\n</untrusted_context>`);
  });

  test('--project in a trusted folder: the project hook fires; uninstall gives the files back exactly', async () => {
    const s = scratch('project');
    const userBefore = readFileSync(s.settings, 'utf8');
    await installLro(s, ['--project']);
    const project = join(s.work, '.gemini', 'settings.json');
    expect(existsSync(project)).toBe(true);
    // the file names lro by PATH: no path of this machine in it
    const text = readFileSync(project, 'utf8');
    for (const path of [process.execPath, resolve(BIN, '../..'), root]) expect(text).not.toContain(path);
    const { outputs } = await play(s, [shell('seq 1 200000')]);
    expect(idIn(outputs[0].text)).not.toBe('');
    expect(outputs[0].text).toContain('succeeded (exit code 0)');
    // a teammate without lro (no lro-hook on PATH): the hook steps aside, Gemini CLI's own answer, no warning
    const bare = await play({ ...s, env: { ...s.env, PATH: process.env.PATH! } }, [shell('seq 1 200000'), shell('echo hi')]);
    expect(bare.outputs[0].text).toContain('Output too large. Showing first 8,000 and last 32,000 characters.');
    expect(stable(bare.outputs[1].text)).toBe('<untrusted_context>\nOutput: hi\n</untrusted_context>');
    // (Gemini CLI's own notes stay; its start-up metrics lines, "[STARTUP] … not found", now and then among them)
    const said = (bare.run.stdout + bare.run.stderr).split('\n').filter((l) => !l.startsWith('[STARTUP]'));
    expect(said.join('\n')).not.toMatch(/hook|not found/i);
    const un = await lroIn(s, ['init', 'gemini', '--project', '--uninstall']);
    expect(un.code, un.stderr).toBe(0);
    expect(existsSync(join(s.work, '.gemini', 'settings.json'))).toBe(false);
    expect(readFileSync(s.settings, 'utf8')).toBe(userBefore);
    // without lro the model gets Gemini CLI's own cut: 40,000 characters of the middle-less output
    const [cut] = (await play(s, [shell('seq 1 200000')])).outputs;
    expect(cut.text).toContain('Output too large. Showing first 8,000 and last 32,000 characters.');
  });

  test('the README\'s off switch for one project: "hooksConfig": {"disabled": ["lro"]} there, and Gemini CLI runs as without lro', async () => {
    const s = scratch('off-switch');
    await installLro(s);
    mkdirSync(join(s.work, '.gemini'));
    writeFileSync(join(s.work, '.gemini', 'settings.json'), '{ "hooksConfig": { "disabled": ["lro"] } }\n');
    const [off] = (await play(s, [shell('seq 1 200000')])).outputs;
    expect(idIn(off.text)).toBe('');
    expect(off.text).toContain('Output too large. Showing first 8,000 and last 32,000 characters.');
    // the same user settings in a folder without the switch: lro stores it
    rmSync(join(s.work, '.gemini'), { recursive: true });
    const [on] = (await play(s, [shell('seq 1 200000')])).outputs;
    expect(idIn(on.text)).not.toBe('');
  });

  test("lro's hook in the user's settings and the project's: Gemini CLI runs both, the model reads one descriptor", async () => {
    const s = scratch('both');
    await installLro(s);
    await installLro(s, ['--project']);
    const own = join(s.home, 'own-store');
    const model = await startScriptedModel([shell('seq 1 200000')]);
    try {
      const run = await runGemini(install.bin!, { home: s.home, cwd: s.work, url: model.url, env: { LRO_DIR: own, PATH: s.env.PATH } });
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      const [out] = model.outputs();
      // (before: the two hooks' reasons joined, the descriptor twice)
      expect(out.text.match(/Output offloaded: 200,000 lines/g)).toHaveLength(1);
      expect(readdirSync(own).filter((f) => f.endsWith('.jsonl'))).toHaveLength(1);
    } finally {
      await model.close();
    }
  });

  test('an untrusted folder: Gemini CLI runs no hook from settings (headless: does not start); doctor says so', async () => {
    const s = scratch('untrusted', { trust: false });
    await installLro(s);
    const doctor = JSON.parse((await lroIn(s, ['doctor', 'gemini', '--json'])).out);
    expect(doctor.checks.find((c: { name: string }) => c.name === 'folder trust').ok).toBe(false);
    const { outputs, run } = await play(s, [shell('seq 1 200000')], 55);
    expect(outputs).toHaveLength(0);
    expect(run.stderr).toContain('Gemini CLI is not running in a trusted directory');
    // trusted now: doctor and Gemini CLI agree
    trust(s.home, s.work);
    const ok = await lroIn(s, ['doctor', 'gemini']);
    expect(ok.out).toContain('ok  folder trust: ');
    expect(idIn((await play(s, [shell('seq 1 200000')])).outputs[0].text)).not.toBe('');
  });

  test("the user's own policy still applies: a command a rule denies is refused, not run (lro leaves it as it is)", async () => {
    const s = scratch('policy');
    await installLro(s);
    mkdirSync(join(s.home, '.gemini', 'policies'));
    const rule = '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "rm"\ndecision = "deny"\npriority = 500\n';
    writeFileSync(join(s.home, '.gemini', 'policies', 'deny-rm.toml'), rule);
    writeFileSync(join(s.work, 'victim'), 'keep me\n');
    const [denied, other] = (await play(s, [shell('rm -f victim; echo removed'), shell('seq 1 200000')])).outputs;
    expect(denied.response).toEqual({ error: 'Tool execution denied by policy.' });
    expect(readFileSync(join(s.work, 'victim'), 'utf8')).toBe('keep me\n');
    expect(idIn(other.text)).not.toBe(''); // other commands are still offloaded
  });

  test("--mcp: Gemini CLI starts lro's MCP server from the edited settings, offers its tools; uninstall exact", async () => {
    const s = scratch('mcp');
    const before = readFileSync(s.settings, 'utf8');
    await installLro(s, ['--mcp']);
    const { requests } = await play(s, []);
    const main = requests.find((r) => r.path.includes(':streamGenerateContent'))!.body as {
      tools?: { functionDeclarations?: { name: string }[] }[];
    };
    const names = (main.tools ?? []).flatMap((t) => t.functionDeclarations ?? []).map((f) => f.name);
    expect(names.filter((n) => /lro_grep|lro_count/.test(n))).toHaveLength(2);
    expect((await lro(['init', 'gemini', '--uninstall'], { env: s.env })).code).toBe(0);
    expect(readFileSync(s.settings, 'utf8')).toBe(before);
  });

  test('MCP tools: a large result becomes a descriptor, the tool\'s text stored exactly; small and image results as without lro', async () => {
    const a = scratch('mcp-lro');
    addFakeServer(a);
    await installLro(a);
    const b = scratch('mcp-raw');
    addFakeServer(b);
    const small = [{ tool: 'mcp_fake_lines', call: { lines: 3 } }, { tool: 'mcp_fake_image', call: { bytes: 20 } }];
    const { outputs } = await play(a, [{ tool: 'mcp_fake_lines', call: { lines: 20000 } }, ...small]);
    expect(outputs.map((o) => o.name)).toEqual(['mcp_fake_lines', 'mcp_fake_lines', 'mcp_fake_image']);
    const [large, ...rest] = outputs;
    // the model reads the descriptor as the call's error, wrapped as Gemini CLI wraps a tool's text
    expect(Object.keys(large.response)).toEqual(['error']);
    expect(large.text).toMatch(/^The tool ran; its whole result is stored by lro/);
    expect(large.text).toContain('\n<untrusted_context>\nResult of mcp_fake_lines offloaded: 20,001 lines of text');
    expect(large.text).toContain('source: MCP tool call mcp_fake_lines {"lines":20000}');
    expect(large.text.length).toBeLessThan(12_000);
    const want = ['greeting: hello from settings', ...Array.from({ length: 20000 }, (_, i) => `line ${i + 1} of the fake upstream`)];
    expect((await lro(['cat', idIn(large.text)], { env: { LRO_DIR: store } })).out).toBe(want.join('\n'));
    // a small result, and an image (a hook can only replace a result whole: lro steps aside), reach the model unchanged
    const without = (await play(b, small)).outputs;
    expect(rest).toEqual(without);
    expect(rest[0].text).toContain('line 3 of the fake upstream');
    expect(rest[1].text).toContain("provided the following image data with mime-type: image/png");
    // without lro the model gets Gemini CLI's own cut of a one-block result: 40,000 characters, the middle gone
    const [cut] = (await play(b, [{ tool: 'mcp_fake_lines', call: { lines: 20000 } }])).outputs;
    expect(cut.text).toMatch(/^Output too large\. Showing first 8,000 and last 32,000 characters\./);
    expect(cut.text).toContain('characters omitted');
  });
});
