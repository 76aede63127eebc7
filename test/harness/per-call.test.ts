// What lro adds to each small shell call in the real harnesses: N calls of a small command in one run of Claude Code,
// Codex and Gemini CLI, each driven by a scripted model, with lro installed and without, in turns (A B A B …), and
// the median of the paired differences divided by N printed per harness. A benchmark, not a test: it runs only from
// bench/harness-calls.sh (LRO_BENCH_HARNESS=1), which quotes its lines; it asserts only that every run finished.
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import * as claude from '../helpers/claude.js';
import * as codex from '../helpers/codex.js';
import * as gemini from '../helpers/gemini.js';
import { BIN, lro } from '../helpers/cli.js';

const on = process.env.LRO_BENCH_HARNESS === '1';
const CALLS = Number(process.env.LRO_BENCH_CALLS ?? 20);
const PAIRS = Number(process.env.LRO_BENCH_PAIRS ?? 3);
const COMMAND = process.env.LRO_BENCH_COMMAND ?? 'ls / | head -3';
/** Codex's sandbox for its shell tool (`-s`): danger-full-access unless set (workspace-write is Codex's default). */
const CODEX_SANDBOX = process.env.LRO_BENCH_CODEX_SANDBOX;

const root = mkdtempSync(join(tmpdir(), 'lro-per-call-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const pathDir = join(root, 'bin');
mkdirSync(pathDir);
symlinkSync(BIN, join(pathDir, 'lro'));
const PATH = `${pathDir}:${process.env.PATH}`;
const store = join(root, 'store');
let n = 0;

/** A fresh HOME and work folder. */
function scratch(): { home: string; work: string } {
  const home = join(root, `h${n++}`);
  const work = join(home, 'work');
  mkdirSync(work, { recursive: true });
  return { home, work };
}

/** The i-th call's command: the same work, told apart (Gemini CLI stops a loop of identical calls). */
const commandOf = (i: number) => `${COMMAND} # call ${i + 1}`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

/** Times `run(withLro)` in turns and prints the added milliseconds per call. */
async function pairs(name: string, run: (withLro: boolean) => Promise<void>): Promise<void> {
  await run(true); // warm: caches, the resident helper
  await run(false);
  const diffs: number[] = [];
  const times: [number, number][] = [];
  for (let i = 0; i < PAIRS; i++) {
    const t0 = performance.now();
    await run(false);
    const t1 = performance.now();
    await run(true);
    const t2 = performance.now();
    times.push([t1 - t0, t2 - t1]);
    diffs.push((t2 - t1 - (t1 - t0)) / CALLS);
  }
  const w = median(times.map((t) => t[0]));
  const l = median(times.map((t) => t[1]));
  console.log(
    `PER-CALL ${name}: ${CALLS} calls of \`${COMMAND}\` per run, ${PAIRS} pairs: without lro ${(w / 1000).toFixed(2)} s, ` +
      `with lro ${(l / 1000).toFixed(2)} s; lro adds ${median(diffs).toFixed(1)} ms per call (median of pairs; ` +
      `each pair ${diffs.map((d) => d.toFixed(1)).join(', ')})`,
  );
}

test.skipIf(!on || !!claude.ensureClaude().skip)('Claude Code', async () => {
  const bin = claude.ensureClaude().bin!;
  await pairs('Claude Code', async (withLro) => {
    const { home, work } = scratch();
    mkdirSync(join(home, '.claude'));
    if (withLro) expect((await lro(['init', 'claude-code', '--force'], { env: { HOME: home, XDG_STATE_HOME: join(home, 'state') } })).code).toBe(0);
    else writeFileSync(join(home, '.claude', 'settings.json'), '{}\n');
    const steps = Array.from({ length: CALLS }, (_, i) => ({ tool: 'Bash', input: { command: commandOf(i), description: 'x' } }));
    const model = await claude.startScriptedModel(steps);
    try {
      const r = await claude.runClaude(bin, { model, home, cwd: work, env: { PATH, LRO_DIR: store, SHELL: '/bin/bash' } });
      expect(r.code, r.stderr).toBe(0);
      expect(model.toolResults()).toHaveLength(CALLS);
    } finally {
      await model.close();
    }
  });
}, 1_800_000);

test.skipIf(!on || !!codex.ensureCodex().skip)('Codex', async () => {
  const bin = codex.ensureCodex().bin!;
  await pairs('Codex', async (withLro) => {
    const { home, work } = scratch();
    const codexHome = join(home, '.codex');
    mkdirSync(codexHome);
    const env = { HOME: home, XDG_STATE_HOME: join(home, 'state'), CODEX_HOME: codexHome, LRO_DIR: store, PATH };
    if (withLro) {
      expect((await lro(['init', 'codex', '--force'], { env })).code).toBe(0);
      // trusted as Codex records it (test/harness/codex.test.ts)
      const hooks = join(codexHome, 'hooks.json');
      const command = JSON.parse(readFileSync(hooks, 'utf8')).hooks.PreToolUse[0].hooks[0].command as string;
      const identity = `{"event_name":"pre_tool_use","hooks":[{"async":false,"command":${JSON.stringify(command)},"timeout":30,"type":"command"}],"matcher":"^Bash$"}`;
      appendFileSync(join(codexHome, 'config.toml'), `\n[hooks.state."${hooks}:pre_tool_use:0:0"]\ntrusted_hash = "sha256:${createHash('sha256').update(identity).digest('hex')}"\n`);
    }
    const steps = Array.from({ length: CALLS }, (_, i) => ({ exec: { cmd: commandOf(i) } }));
    const model = await codex.startScriptedModel(steps);
    try {
      const config = join(codexHome, 'config.toml');
      let before = '';
      try {
        before = readFileSync(config, 'utf8');
      } catch {
        // none yet
      }
      writeFileSync(config, `${codex.modelConfig(model)}${before}`);
      const args = CODEX_SANDBOX ? ['-s', CODEX_SANDBOX] : undefined;
      const r = await codex.runCodex(bin, { codexHome, home, cwd: work, args, env: { LRO_DIR: store, PATH } });
      expect(r.code, r.stderr.slice(-2000)).toBe(0);
      expect(model.outputs()).toHaveLength(CALLS);
    } finally {
      await model.close();
    }
  });
}, 1_800_000);

test.skipIf(!on || !!gemini.ensureGemini().skip)('Gemini CLI', async () => {
  const bin = gemini.ensureGemini().bin!;
  await pairs('Gemini CLI', async (withLro) => {
    const { home, work } = scratch();
    mkdirSync(join(home, '.gemini'));
    writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify(gemini.MODEL_SETTINGS));
    writeFileSync(join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [work]: 'TRUST_FOLDER' }));
    if (withLro) {
      const r = await lro(['init', 'gemini', '--force'], { env: { HOME: home, XDG_STATE_HOME: join(home, 'state'), PATH } });
      expect(r.code, r.stderr).toBe(0);
    }
    const steps = Array.from({ length: CALLS }, (_, i) => ({ call: { command: commandOf(i) } }));
    const model = await gemini.startScriptedModel(steps);
    try {
      const r = await gemini.runGemini(bin, { home, cwd: work, url: model.url, env: { LRO_DIR: store, PATH } });
      expect(r.code, r.stderr.slice(-2000)).toBe(0);
      expect(model.outputs()).toHaveLength(CALLS);
    } finally {
      await model.close();
    }
  });
}, 1_800_000);
