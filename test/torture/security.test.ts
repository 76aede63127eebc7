// Security: modes whatever the umask (store 0700, results and temporary files 0600), a store planted as a
// symlink, a store swapped for a symlink (or another directory) while an offload is writing, and results that
// are symlinks. Nothing is ever written through a symlink, and nothing is read through one.
// @module-tag soak: every test here is part of `npm run test:soak`, not of `npm test` (vitest.config.ts)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, renameSync, statSync, symlinkSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monotonicFactory } from 'ulid';
import { isTempFileName } from '../../src/format/naming.js';
import { BIN, cleanup, lro, tempDir, type RunResult } from '../helpers/cli.js';
import { expectOneLineError, sleep } from './lib.js';

const ulid = monotonicFactory();
let root: string;
beforeAll(() => {
  root = tempDir('lro-torture-sec-');
});
afterAll(() => cleanup(root));

const mode = (p: string) => statSync(p).mode & 0o777;

/** A big text input (records spill to the temporary file). */
const bigText = () => Buffer.from(Array.from({ length: 200_000 }, (_, i) => `line ${i} of a big output`).join('\n'));

/**
 * Runs `lro offload` with the input fed in two parts: `between` runs once the offload's temporary file exists
 * in `store`, before the rest of the input is sent.
 */
function offloadWithPause(args: string[], store: string, first: Buffer, rest: Buffer, between: () => void | Promise<void>, shellPrefix = ''): Promise<RunResult & { tempModes: number[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--norc', '--noprofile', '-c', `${shellPrefix} exec "${process.execPath}" "$@"`, 'bash', BIN, 'offload', ...args], {
      env: { PATH: process.env.PATH, LRO_DIR: store, NO_COLOR: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.stdin.on('error', () => undefined);
    const tempModes: number[] = [];
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const stdout = Buffer.concat(out);
      resolve({ code, signal, stdout, out: stdout.toString(), stderr: Buffer.concat(err).toString(), tempModes });
    });
    child.stdin.write(first);
    const deadline = Date.now() + 30_000;
    const poll = setInterval(async () => {
      let temps: string[] = [];
      try {
        temps = readdirSync(store).filter(isTempFileName);
      } catch {
        // not created yet
      }
      if (temps.length === 0 && Date.now() < deadline) return;
      clearInterval(poll);
      for (const t of temps) tempModes.push(mode(join(store, t)));
      await between();
      child.stdin.end(rest);
    }, 5);
  });
}

describe('modes under any umask', () => {
  for (const umask of ['000', '022', '077']) {
    it(`umask ${umask}: store 0700, result 0600, temporary file 0600`, async () => {
      const store = join(root, `umask-${umask}`, 'nested', 'store');
      const input = bigText();
      const r = await offloadWithPause(['--force'], store, input.subarray(0, 5 << 20), input.subarray(5 << 20), () => undefined, `umask ${umask};`);
      expect(r.code, r.stderr).toBe(0);
      const d = JSON.parse(r.out) as { file_path: string };
      expect(mode(store)).toBe(0o700);
      expect(mode(d.file_path)).toBe(0o600);
      expect(r.tempModes.length).toBeGreaterThan(0);
      for (const m of r.tempModes) expect(m).toBe(0o600);
      // and in the store that now exists
      const again = await lro(['offload', '--force'], { input: 'x\n', env: { LRO_DIR: store }, shellPrefix: `umask ${umask};` });
      expect(mode(JSON.parse(again.out).file_path)).toBe(0o600);
      expect(mode(store)).toBe(0o700);
    });
  }
});

describe('a store that is a symlink', () => {
  it('is refused by offload (the output still arrives) and by every reader', async () => {
    const real = join(root, 'real-store');
    const first = await lro(['offload', '--force'], { input: 'secret\n', env: { LRO_DIR: real } });
    expect(first.code).toBe(0);
    const id = JSON.parse(first.out).id as string;
    const link = join(root, 'planted-link');
    symlinkSync(real, link);
    const before = readdirSync(real).sort();
    const o = await lro(['offload'], { input: bigText(), env: { LRO_DIR: link } });
    expect(o.code).toBe(0);
    expect(o.stderr).toMatch(/symlink/);
    expect(o.out.startsWith('line 0 of a big output')).toBe(true);
    expect(readdirSync(real).sort()).toEqual(before);
    for (const args of [['cat', 'last'], ['cat', id], ['read', 'last'], ['grep', 'last', 'secret'], ['jq', 'last', '.'], ['info', id]]) {
      const r = await lro(args, { env: { LRO_DIR: link } });
      expectOneLineError(r, args.join(' '));
      expect(r.stderr).toMatch(/symlink/);
      expect(r.out).not.toContain('secret');
    }
  });
});

describe('a store swapped while an offload writes', () => {
  /** Swaps `store` for `replacement()` once the offload's temporary file exists; watches what lands there. */
  async function swapDuring(name: string, input: Buffer, cut: number, replace: (store: string, moved: string) => string) {
    const base = join(root, name);
    const store = join(base, 'store');
    const moved = join(base, 'moved');
    mkdirSync(store, { recursive: true, mode: 0o700 });
    let target = '';
    const seen: string[] = [];
    let watcher: ReturnType<typeof watch> | null = null;
    const r = await offloadWithPause(['--force'], store, input.subarray(0, cut), input.subarray(cut), () => {
      renameSync(store, moved);
      target = replace(store, moved);
      watcher = watch(target, (_event, file) => seen.push(String(file)));
    });
    await sleep(200); // let the watcher report
    (watcher as ReturnType<typeof watch> | null)?.close();
    return { r, target, seen, moved, left: readdirSync(target) };
  }

  const swaps: [string, (store: string, moved: string) => string][] = [
    [
      'a symlink to another directory',
      (store) => {
        const attacker = join(store, '..', 'attacker');
        mkdirSync(attacker, { mode: 0o700 });
        symlinkSync(attacker, store);
        return attacker;
      },
    ],
    [
      'another real directory',
      (store) => {
        mkdirSync(store, { mode: 0o700 });
        return store;
      },
    ],
  ];

  // text streams to the file it opened; a JSON document whose envelope outgrows the header slot is copied into
  // a new temporary file at the end, after the swap
  const inputs: [string, () => Buffer, number][] = [
    ['text', bigText, 5 << 20],
    [
      'a JSON document with a large envelope',
      () => Buffer.from(JSON.stringify({ note: 'n'.repeat(20_000), items: Array.from({ length: 250_000 }, (_, i) => ({ i, v: 'some value' })) })),
      1 << 20,
    ],
  ];

  let n = 0;
  for (const [swapName, replace] of swaps) {
    for (const [inputName, make, cut] of inputs) {
      it(`${inputName}, store swapped for ${swapName}: refused, nothing written there`, async () => {
        const input = make();
        const { r, target, seen, moved, left } = await swapDuring(`swap-${n++}`, input, cut, replace);
        expect(seen, `files created in ${target}`).toEqual([]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr, r.stderr).toMatch(/replaced while writing|symlink/);
        expect(r.out).toMatch(/\[lro: output truncated to \d+ of ~\d+ tokens: could not store the full result/);
        expect(left, `files left in ${target}`).toEqual([]);
        // the original directory keeps nothing of the refused result either
        expect(readdirSync(moved), 'files left in the original directory').toEqual([]);
      });
    }
  }
});

describe('results that are symlinks', () => {
  it('are never read, by id, by path, or as last', async () => {
    const store = join(root, 'links');
    const ok = await lro(['offload', '--force'], { input: 'the real newest\n', env: { LRO_DIR: store } });
    expect(ok.code).toBe(0);
    const outside = join(root, 'outside');
    mkdirSync(outside);
    const other = await lro(['offload', '--force'], { input: 'private data elsewhere\n', env: { LRO_DIR: outside } });
    const target = JSON.parse(other.out).file_path as string;
    // a newer id than the real result, as a symlink into another directory
    const id = ulid(Date.now() + 60_000);
    const link = join(store, `lro-offload-${id}.jsonl`);
    symlinkSync(target, link);
    writeFileSync(join(store, 'unrelated.txt'), 'x');
    const byId = await lro(['cat', id], { env: { LRO_DIR: store } });
    expectOneLineError(byId, 'cat id of a symlink');
    const byPath = await lro(['cat', link], { env: { LRO_DIR: store } });
    expectOneLineError(byPath, 'cat path of a symlink');
    expect(byPath.stderr).toMatch(/symlink/);
    const last = await lro(['cat', 'last'], { env: { LRO_DIR: store } });
    expect(last.code).toBe(0);
    expect(last.out).toBe('the real newest\n');
    for (const args of [['read', id], ['grep', id, 'private'], ['jq', id, '.'], ['info', id], ['read', link], ['grep', link, 'private'], ['jq', link, '.']]) {
      const r = await lro(args, { env: { LRO_DIR: store } });
      expectOneLineError(r, args.join(' '));
      expect(r.out).not.toContain('private');
    }
  });
});
