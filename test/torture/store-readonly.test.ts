// The caller's output is never lost, under torture: on a store that cannot be written (the same output stored
// before is answered with its descriptor; any other is passed through or cut with the warning, exit 0, and the
// store is left exactly as it was), with malformed LRO_* variables (the output still arrives, the command's status
// with `lro run`), and gc after killed writers whose pids now belong to live processes (their temporary files go;
// a live writer's stays, however old, and its result comes out whole).
// @module-tag soak: every test here is part of `npm run test:soak`, not of `npm test` (vitest.config.ts)
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, renameSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTempFileName, parseTempFileName } from '../../src/format/naming.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { BIN, cleanup, lro, tempDir } from '../helpers/cli.js';
import { pool, report, sha256, sleep, snapshot } from './lib.js';

let root: string;
beforeAll(() => {
  root = tempDir('lro-torture-ro-');
  chmodSync(root, 0o755); // nobody (below) must reach the stores inside
});
afterAll(() => cleanup(root));

const asRoot = process.getuid!() === 0;
/** As root (who writes anywhere) lro runs as nobody, in a store nobody owns. */
const runAs = asRoot ? { uid: 65534, gid: 65534 } : {};

/** An output of `lines` numbered lines, distinct per `tag`. */
const output = (tag: string, lines: number) => Array.from({ length: lines }, (_, i) => `${tag} line ${i}: the quick brown fox\n`).join('');

describe('a read-only store', () => {
  it('answers each stored output with its id, passes or cuts every other one, and changes nothing', async () => {
    const dir = join(root, 'ro');
    mkdirSync(dir, { mode: 0o700 });
    if (asRoot) chownSync(dir, 65534, 65534);
    const env = { LRO_DIR: dir, HOME: '/tmp' };
    const storedInputs = Array.from({ length: 6 }, (_, i) => output(`stored-${i}`, 2000 + i * 5000));
    const ids: string[] = [];
    for (const input of storedInputs) {
      const r = await lro(['offload'], { input, env, ...runAs });
      expect(r.code, r.stderr).toBe(0);
      ids.push((JSON.parse(r.out) as { id: string }).id);
    }
    const run = await lro(['run', '--', 'sh', '-c', 'seq 1 30000; exit 5'], { env, ...runAs });
    expect(run.code).toBe(5);
    const runId = (JSON.parse(run.out) as { id: string }).id;
    chmodSync(dir, 0o555);
    try {
      const before = snapshot(dir);
      const tok = getTokenizer('o200k_base');
      let answered = 0;
      let cut = 0;
      let passed = 0;
      const cases = [
        ...storedInputs.map((input, i) => ({ input, id: ids[i] as string | null })),
        ...Array.from({ length: 6 }, (_, i) => ({ input: output(`new-${i}`, 2000 + i * 5000), id: null })),
        ...Array.from({ length: 6 }, (_, i) => ({ input: output(`small-${i}`, 10 + i * 20), id: null })),
      ];
      await pool(cases, 4, async ({ input, id }) => {
        const r = await lro(['offload'], { input, env, ...runAs });
        expect(r.code, r.stderr).toBe(0);
        if (id) {
          expect((JSON.parse(r.out) as { id: string }).id).toBe(id);
          answered++;
        } else if (r.out === input) {
          expect(r.stderr).toBe('');
          passed++;
        } else {
          const body = r.out.slice(0, r.out.lastIndexOf('\n[lro: ') + 1);
          expect(input.startsWith(body)).toBe(true);
          expect(tok.count(body)).toBeLessThanOrEqual(6400);
          expect(r.stderr).toMatch(new RegExp(`^lro: output truncated to 6400 of ~\\d+ tokens: could not store the full result in ${dir} \\(EACCES`));
          expect(r.stderr).not.toMatch(/\/proc\/self/);
          cut++;
        }
      });
      // lro run: the same command again gets the stored result, with the command's status
      const again = await lro(['run', '--', 'sh', '-c', 'seq 1 30000; exit 5'], { env, ...runAs });
      expect(again.code).toBe(5);
      expect((JSON.parse(again.out) as { id: string }).id).toBe(runId);
      // gc says what it kept, and exits 2 naming the store, when it cannot remove an expired result
      const gc = await lro(['gc', '--max-age', '0s', '--json'], { env, ...runAs });
      expect(gc.code).toBe(2);
      expect(JSON.parse(gc.out)).toMatchObject({ removed_count: 0, kept_count: ids.length + 1 });
      expect(gc.stderr).toMatch(new RegExp(`check the permissions of ${dir}\\n$`));
      expect(snapshot(dir)).toEqual(before);
      expect({ answered, cut, passed }).toEqual({ answered: 6, cut: 6, passed: 6 });
      report({ suite: 'read-only store', cases: cases.length, losses: 0, answered, cut, passed });
    } finally {
      chmodSync(dir, 0o700);
    }
  });
});

describe('malformed LRO_* variables', () => {
  const bad: [string, string][] = [
    ['LRO_SESSION', '..'],
    ['LRO_SESSION', 'esc\u001b[31m'],
    ['LRO_SESSION', 'x'.repeat(200)],
    ['LRO_TTL', 'bogus'],
    ['LRO_TTL', '1e999d'],
    ['LRO_TTL', '-5s'],
    ['LRO_TTL', '100000000d'],
    ['LRO_THRESHOLD_TOKENS', '-1'],
    ['LRO_THRESHOLD_TOKENS', '1e3'],
    ['LRO_THRESHOLD_TOKENS', ' '],
    ['LRO_REDACT', 'yes please'],
    ['LRO_REDACT', '2'],
  ];

  it('never lose the output of offload or run, never store, and name the variable', async () => {
    const dir = join(root, 'bad-env');
    const small = output('small', 20);
    const large = output('large', 20_000);
    let cases = 0;
    await pool(bad, 3, async ([name, value]) => {
      const env = { LRO_DIR: dir, [name]: value };
      const s = await lro(['offload'], { input: small, env });
      expect(s.code, `${name}=${value}`).toBe(0);
      expect(s.out).toBe(small);
      expect(s.stderr).toMatch(new RegExp(`^lro: invalid ${name} [^\\n]*, or unset ${name} `));
      const l = await lro(['offload'], { input: large, env });
      expect(l.code).toBe(0);
      expect(large.startsWith(l.out.slice(0, l.out.lastIndexOf('\n[lro: ') + 1))).toBe(true);
      expect(l.stderr).toMatch(new RegExp(`could not store the full result \\(invalid ${name} `));
      const r = await lro(['run', '--', 'sh', '-c', 'seq 1 20000; exit 7'], { env });
      expect(r.code).toBe(7);
      expect(r.out.startsWith('1\n2\n3\n')).toBe(true);
      cases += 3;
    });
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
    report({ suite: 'malformed LRO_* variables', cases, losses: 0 });
  });
});

describe('gc after killed writers whose pids live on in other processes', () => {
  /** An offload fed `chunks` of input and then held open (or ended); resolves once its temporary file exists. */
  async function writer(dir: string, chunks: number, end: boolean): Promise<{ child: ChildProcess; out: Promise<string> }> {
    const child = spawn(process.execPath, [BIN, 'offload', '--force'], { env: { PATH: process.env.PATH, LRO_DIR: dir }, stdio: ['pipe', 'pipe', 'ignore'] });
    child.stdin!.on('error', () => undefined);
    const parts: Buffer[] = [];
    child.stdout!.on('data', (d: Buffer) => parts.push(d));
    const out = new Promise<string>((r) => child.on('close', () => r(Buffer.concat(parts).toString('utf8'))));
    const chunk = Buffer.from('a line that goes into a big result\n'.repeat(30_000));
    for (let i = 0; i < chunks; i++) if (!child.stdin!.write(chunk)) await new Promise((r) => child.stdin!.once('drain', r));
    if (end) child.stdin!.end();
    for (let t = 0; t < 2000; t++) {
      if (existsSync(dir) && readdirSync(dir).some((f) => isTempFileName(f) && f.includes(`-${child.pid}-`))) break;
      await sleep(5);
    }
    return { child, out };
  }

  const age = (path: string, hours: number) => {
    const t = new Date(Date.now() - hours * 3600_000);
    utimesSync(path, t, t);
  };

  it('removes their temporary files once stale, keeps a live writer’s however old, and its result is whole', async () => {
    const dir = join(root, 'reused-pids');
    // live processes started before the killed writers: their pids stand in for the dead writers' reused pids
    const sleepers = Array.from({ length: 4 }, () => spawn('sleep', ['300']));
    try {
      await Promise.all(sleepers.map((s) => new Promise((r) => s.once('spawn', r))));
      await sleep(50);
      for (let i = 0; i < sleepers.length; i++) {
        const { child } = await writer(dir, 8, false);
        child.kill('SIGKILL');
        await new Promise((r) => child.once('close', r));
        const temp = readdirSync(dir).find((f) => isTempFileName(f) && f.includes(`-${child.pid}-`));
        expect(temp).toBeDefined();
        renameSync(join(dir, temp!), join(dir, temp!.replace(`-${child.pid}-`, `-${sleepers[i].pid}-`)));
      }
      const live = await writer(dir, 60, false); // its input held open: a slow producer
      const liveTemps = readdirSync(dir).filter((f) => isTempFileName(f) && parseTempFileName(f)!.pid === live.child.pid);
      expect(liveTemps.length).toBeGreaterThan(0);
      // the writer has written all it was given (its file stops growing) before the files are aged
      for (let last = -1, same = 0; same < 3; await sleep(200)) {
        const size = statSync(join(dir, liveTemps[0])).size;
        same = size === last ? same + 1 : 0;
        last = size;
      }
      for (const f of readdirSync(dir).filter(isTempFileName)) age(join(dir, f), 2);
      let removed = 0;
      for (let round = 0; round < 3; round++) {
        const gc = await lro(['gc', '--json'], { env: { LRO_DIR: dir } });
        expect(gc.code, gc.stderr).toBe(0);
        const rep = JSON.parse(gc.out) as { removed_count: number; kept_temp_count: number; skipped: { name: string; reason: string }[] };
        removed += rep.removed_count;
        expect(rep.kept_temp_count).toBe(liveTemps.length);
        for (const t of liveTemps) expect(rep.skipped).toContainEqual({ name: t, reason: expect.stringMatching(`still being written by process ${live.child.pid}$`) });
      }
      expect(removed).toBe(sleepers.length);
      expect(readdirSync(dir).filter(isTempFileName).sort()).toEqual([...liveTemps].sort());
      live.child.stdin!.end();
      const d = JSON.parse(await live.out) as { id: string; summary: { bytes: number } };
      expect(d.summary.bytes).toBe(60 * 30_000 * 35);
      const cat = await lro(['cat', d.id], { env: { LRO_DIR: dir } });
      expect(sha256(cat.stdout)).toBe(sha256(Buffer.from('a line that goes into a big result\n'.repeat(30_000 * 60))));
      report({ suite: 'gc after reused pids', kills: sleepers.length, losses: 0 });
    } finally {
      for (const s of sleepers) s.kill();
    }
  });
});
