// jq filters that allocate rather than loop, over a result of many records, through the CLI and over MCP: each
// ends within the time bound (--timeout, 10 s by default, and the engine's start) with one line and exit 2, or
// a cut output, and no process holds more than the engine's 1 GB and Node's own. Found in the second outside
// round: `"x" * 1e9` 32-38 s and 4.9 GB resident, `[range(1e9)]` 77-90 s, `def f: [f]; f` 53 s (each call that
// died was run again on half its records, a new engine each time).
// @module-tag soak: every test here is part of `npm run test:soak`, not of `npm test` (vitest.config.ts)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cleanup, lro, tempDir, type RunResult } from '../helpers/cli.js';
import { expectOneLineError, pool, report } from './lib.js';

let root: string;
let store: string;
let id: string;
const env = () => ({ LRO_DIR: store });
/** The default --timeout, the engine's start and a loaded machine's slack. */
const BOUND_MS = 25_000;
/** The engine's memory cap (1 GB) and Node's own. */
const PEAK_KB = 1_400_000;
/** GNU time, for a process's peak resident memory (the memory figures are skipped without it). */
const gnuTime = spawnSync('/usr/bin/time', ['-f', '%M', 'true']).status === 0;

const FILTERS: [string, RegExp][] = [
  ['[range(1e9)]', /^lro: (the jq filter ran 10 s without finishing|jq ran out of memory)/],
  ['def f: [f]; f', /^lro: jq ran out of memory or stack/],
  ['if .i % 5000 == 4999 then def f: [f]; f else empty end', /^lro: (jq ran out of memory|the jq filter ran 10 s)/],
  ['[limit(1e8; repeat("abcdefgh"))] | length', /^lro: (the jq filter ran 10 s without finishing|jq ran out of memory)/],
];

beforeAll(async () => {
  root = tempDir('lro-torture-jq-bounds-');
  store = join(root, 'store');
  const input = Array.from({ length: 100_000 }, (_, i) => JSON.stringify({ i, s: 'some text here' })).join('\n');
  id = JSON.parse((await lro(['offload', '--force', '--format', 'jsonl'], { input, env: env() })).out).id;
}, 60_000);
afterAll(() => cleanup(root));

/** lro under GNU time when there is one: the result, how long it took, and its peak resident memory (KB). */
async function measured(args: string[]): Promise<RunResult & { ms: number; peakKb: number | null }> {
  const peakFile = join(root, `peak-${Math.random()}`);
  const [cmd, argv] = gnuTime ? ['/usr/bin/time', ['-f', '%M', '-o', peakFile, process.execPath, BIN, ...args]] : [process.execPath, [BIN, ...args]];
  const start = Date.now();
  const child = spawn(cmd, argv, { env: { PATH: process.env.PATH, LRO_DIR: store }, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => out.push(d));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  const ms = Date.now() - start;
  const stdout = Buffer.concat(out);
  const peak = gnuTime && existsSync(peakFile) ? Number(/(\d+)\s*$/.exec(readFileSync(peakFile, 'utf8'))?.[1]) : NaN;
  return { code, signal, stdout, out: stdout.toString(), stderr, ms, peakKb: Number.isFinite(peak) ? peak : null };
}

describe('jq filters that allocate, through the CLI', () => {
  it('each ends within the bound, in one line, exit 2, two at a time', async () => {
    const results = await pool(FILTERS, 2, ([f]) => measured(['jq', id, f]));
    for (const [i, [f, message]] of FILTERS.entries()) {
      const r = results[i];
      expectOneLineError(r, f);
      expect(r.stderr, f).toMatch(message);
      expect(r.ms, f).toBeLessThan(BOUND_MS);
      if (r.peakKb !== null) expect(r.peakKb, `${f}: peak resident KB`).toBeLessThan(PEAK_KB);
    }
    report({ suite: 'jq-bounds-cli', cases: FILTERS.length, losses: 0, figures: FILTERS.map(([f], i) => `${f}: ${results[i].ms} ms, ${results[i].peakKb ?? '?'} KB`).join('; ') });
  });

  it('one huge line is cut in the call that made it, in one engine of memory', async () => {
    const r = await measured(['jq', id, 'if .i == 3 then "x" * 1e9 else empty end']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.out).toMatch(/\[lro: this output line has at least [\d,]+ characters, more than --max-tokens 2000 allows/);
    expect(r.ms).toBeLessThan(BOUND_MS);
    if (r.peakKb !== null) expect(r.peakKb).toBeLessThan(PEAK_KB);
  });
});

describe('jq filters that allocate, over MCP', () => {
  it('each call ends within the bound and leaves the server answering', async () => {
    const server = spawn(process.execPath, [BIN, 'mcp'], { env: { PATH: process.env.PATH, LRO_DIR: store }, stdio: ['pipe', 'pipe', 'ignore'] });
    let buf = '';
    const waiting = new Map<number, (m: { result?: { isError?: boolean; content: { text: string }[] } }) => void>();
    server.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const m = JSON.parse(buf.slice(0, i));
        buf = buf.slice(i + 1);
        waiting.get(m.id)?.(m);
      }
    });
    let n = 0;
    const call = (method: string, params: unknown) =>
      new Promise<{ result?: { isError?: boolean; content: { text: string }[] } }>((resolve) => {
        waiting.set(++n, resolve);
        server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: n, method, params })}\n`);
      });
    try {
      await call('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'soak', version: '1' } });
      server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      const times: string[] = [];
      for (const [f, message] of FILTERS.slice(0, 2)) {
        const start = Date.now();
        const r = await call('tools/call', { name: 'lro_jq', arguments: { id, filter: f } });
        const ms = Date.now() - start;
        times.push(`${f}: ${ms} ms`);
        expect(r.result?.isError, f).toBe(true);
        expect(r.result?.content[0].text, f).toMatch(message);
        expect(ms, f).toBeLessThan(BOUND_MS);
      }
      const ls = await call('tools/call', { name: 'lro_ls', arguments: {} });
      expect(ls.result?.content[0].text).toContain(id);
      report({ suite: 'jq-bounds-mcp', cases: times.length, losses: 0, figures: times.join('; ') });
    } finally {
      server.kill();
    }
  });
});
