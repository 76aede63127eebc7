// Crash safety: offloads killed with SIGKILL at random moments (before the store is touched, while records
// stream to the temporary file, around the header write, fsync and rename). Afterwards nothing partial is
// visible to cat, read, grep, jq or `last`; every result in the store, reported or not, is complete; and the
// only other leftovers are `.lro-*.tmp` files.
// @module-tag soak: every test here is part of `npm run test:soak`, not of `npm test` (vitest.config.ts)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isTempFileName, parseDedupeFileName, parseResultFileName } from '../../src/format/naming.js';
import { openResultFile, originalContent } from '../../src/format/reader.js';
import { BIN, cleanup, lro, tempDir } from '../helpers/cli.js';
import { jsonTokens, KILLS, pool, report, sha256, sleep } from './lib.js';

let root: string;
let store: string;
const env = () => ({ LRO_DIR: store });

/** Inputs of every content type, large enough that records spill to the temporary file, and small ones. */
function inputs(): Buffer[] {
  const text = Buffer.from(Array.from({ length: 120_000 }, (_, i) => `${i} INFO something happened ${'x'.repeat(i % 80)}\r`).join('\n'));
  const jsonl = Buffer.from(Array.from({ length: 80_000 }, (_, i) => JSON.stringify({ i, level: i % 7 ? 'info' : 'error', big: 12345678901234567890, s: 'é'.repeat(i % 30) })).join('\n') + '\n');
  const json = Buffer.from(JSON.stringify({ total: 60_000, items: Array.from({ length: 60_000 }, (_, i) => ({ i, name: `item ${i}`, tags: ['a', 'b'] })) }, null, 1));
  const binary = randomBytes(6 << 20);
  const small = Buffer.from('a small result\n'.repeat(2000));
  return [text, jsonl, json, binary, small];
}

interface Trial {
  t: number;
  input: Buffer;
  killedBy: 'signal' | null;
  midWrite: boolean;
  code: number | null;
  stdout: string;
}

/** One offload fed in chunks (sometimes slowly), killed with SIGKILL according to `plan`. */
function trial(t: number, input: Buffer): Promise<Trial> {
  // 0: at a random time; 1: once a temporary file exists; 2: after the input has ended; 3 (the last trial):
  // never, so that a reported result is checked even when a busy machine let every other trial be killed
  const plan = t === KILLS ? 3 : t % 3;
  const slow = t % 2 === 1;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'offload', '--force', '--operation', `crash-${t}`], {
      env: { PATH: process.env.PATH, LRO_DIR: store, NO_COLOR: '1' },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const out: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stdin.on('error', () => undefined);
    let exited = false;
    let midWrite = false;
    // this offload's temporary files carry its pid
    const writing = () => readdirSync(store).some((n) => isTempFileName(n) && n.includes(`-${child.pid}-`));
    const kill = () => {
      if (exited) return;
      midWrite = writing();
      child.kill('SIGKILL');
    };
    child.on('close', (code, signal) => {
      exited = true;
      resolve({ t, input, killedBy: signal === 'SIGKILL' ? 'signal' : null, midWrite, code, stdout: Buffer.concat(out).toString() });
    });
    const feed = async () => {
      const step = 256 << 10;
      for (let i = 0; i < input.length && !exited; i += step) {
        if (!child.stdin.write(input.subarray(i, i + step))) {
          await new Promise<void>((r) => {
            child.stdin.once('drain', r);
            child.once('close', r);
          });
        }
        if (slow) await sleep(Math.floor(Math.random() * 4));
      }
      child.stdin.end();
      if (plan === 2) setTimeout(kill, Math.random() * 120);
    };
    if (plan === 0) setTimeout(kill, Math.random() * (slow ? 1500 : 700));
    if (plan === 1) {
      const watch = setInterval(() => {
        if (exited) clearInterval(watch);
        else if (writing()) {
          clearInterval(watch);
          setTimeout(kill, Math.random() * (slow ? 600 : 250));
        }
      }, 2);
    }
    void feed();
  });
}

/** The original rebuilt from a stored result equals the input (JSON: token for token). */
function sameContent(path: string, input: Buffer): boolean {
  const rf = openResultFile(path);
  const back = Buffer.concat([...originalContent(rf)]);
  if (rf.header.sha256 !== sha256(input) || rf.header.bytes !== input.length) return false;
  if (rf.header.content_type !== 'json') return back.equals(input);
  return JSON.stringify(jsonTokens(back)) === JSON.stringify(jsonTokens(input));
}

let trials: Trial[] = [];

/** What was lost or damaged: results in the store that are not their input, and reported results not intact. */
function audit(): { broken: string[]; reportedLost: number[] } {
  const byTrial = new Map(trials.map((x) => [`crash-${x.t}`, x]));
  const broken: string[] = [];
  for (const name of readdirSync(store)) {
    const parsed = parseResultFileName(name);
    if (!parsed || parsed.operation === 'seed') continue;
    const x = byTrial.get(parsed.operation);
    if (!x || !sameContent(join(store, name), x.input)) broken.push(name);
  }
  const reportedLost: number[] = [];
  for (const x of trials.filter((y) => y.code === 0)) {
    try {
      const d = JSON.parse(x.stdout) as { offloaded: boolean; file_path: string };
      if (!d.offloaded || !sameContent(d.file_path, x.input)) reportedLost.push(x.t);
    } catch {
      reportedLost.push(x.t);
    }
  }
  return { broken, reportedLost };
}

beforeAll(async () => {
  root = tempDir('lro-torture-crash-');
  store = join(root, 'store');
  const first = await lro(['offload', '--force', '--operation', 'seed'], { input: 'the store exists\n', env: env() });
  expect(first.code).toBe(0);
  const data = inputs();
  trials = await pool(
    Array.from({ length: KILLS + 1 }, (_, t) => t),
    2,
    (t) => trial(t, data[t === KILLS ? data.length - 1 : t % data.length]),
  );
}, 600_000);
afterAll(() => {
  const killed = trials.filter((x) => x.killedBy).length;
  const { broken, reportedLost } = audit();
  report({ suite: 'crash', cases: trials.length, kills: killed, killed_mid_write: trials.filter((x) => x.killedBy && x.midWrite).length, completed: trials.filter((x) => x.code === 0).length, losses: broken.length + reportedLost.length });
  cleanup(root);
});

describe('SIGKILL at random moments', () => {
  it('kills landed, many of them mid-write', () => {
    const killed = trials.filter((x) => x.killedBy);
    expect(killed.length).toBeGreaterThan(KILLS / 3);
    expect(killed.filter((x) => x.midWrite).length).toBeGreaterThan(KILLS / 10);
  });

  it('the store holds only results, dedupe refs and claims, and .lro-*.tmp leftovers', () => {
    const names = readdirSync(store);
    const foreign = names.filter((n) => !parseResultFileName(n) && !isTempFileName(n) && !parseDedupeFileName(n));
    expect(foreign).toEqual([]);
  });

  it('every result in the store is complete, whether or not its descriptor was printed', () => {
    expect(audit().broken).toEqual([]);
  });

  it('every result reported as written (descriptor printed) is in the store and complete', async () => {
    const reported = trials.filter((x) => x.code === 0);
    expect(reported.length).toBeGreaterThan(0);
    expect(audit().reportedLost).toEqual([]);
    // and through the binary, for a few of them
    for (const x of reported.slice(0, 3)) {
      const d = JSON.parse(x.stdout) as { id: string };
      const c = await lro(['cat', d.id], { env: env() });
      expect(c.code, c.stderr).toBe(0);
      if (!x.stdout.includes('"content_type":"json"')) expect(c.stdout.equals(x.input)).toBe(true);
    }
  });

  it('last resolves to a complete result, and read, grep and jq see only complete ones', async () => {
    const results = readdirSync(store)
      .map((n) => ({ n, p: parseResultFileName(n) }))
      .filter((e) => e.p)
      .sort((a, b) => (a.p!.id < b.p!.id ? -1 : 1));
    const newest = results[results.length - 1];
    const newestBinary = openResultFile(join(store, newest.n)).header.content_type === 'binary';
    const byTrial = new Map(trials.map((x) => [`crash-${x.t}`, x]));
    const cat = await lro(['cat', 'last'], { env: env() });
    expect(cat.code, cat.stderr).toBe(0);
    const expected = newest.p!.operation === 'seed' ? Buffer.from('the store exists\n') : byTrial.get(newest.p!.operation)!.input;
    expect(sha256(cat.stdout) === sha256(expected) || jsonTokens(cat.stdout).join('') === jsonTokens(expected).join('')).toBe(true);
    for (const args of [['read', 'last', '--tail', '3'], ['grep', 'last', '-c', 'e'], ['jq', 'last', '-c', 'type', '--max-tokens', '50']]) {
      const r = await lro(args, { env: env() });
      expect(newestBinary ? [2] : [0, 1], `${args.join(' ')}: ${r.stderr}`).toContain(r.code);
      if (newestBinary) expect(r.stderr).toMatch(/ is binary: /);
      expect(r.stderr).not.toMatch(/damaged|truncated/);
    }
    // every result, by id, through the readers' shared path (a sample through the binary)
    // (a binary result is answered in one line, exit 2, as every binary result is: not damaged, not read as text)
    for (const e of results.slice(-4)) {
      const r = await lro(['read', e.p!.id, '--tail', '1'], { env: env() });
      const binary = openResultFile(join(store, e.n)).header.content_type === 'binary';
      if (binary) expect(r.stderr).toMatch(/ is binary: .*lro read reads text and JSON only/);
      expect(r.code, r.stderr).toBe(binary ? 2 : 0);
      expect(r.stderr).not.toMatch(/damaged|truncated/);
    }
  });
});
