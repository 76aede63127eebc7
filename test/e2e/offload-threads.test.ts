// End-to-end: what `lro offload` loads before it knows the input is large, and which thread hashes a large one
// (issue 25), traced by test/helpers/thread-trace.cjs. A passthrough loads none of what storing needs (the hash,
// the analysis worker, the store, the terminal streams). A large input of text or JSONL is hashed on the main
// thread while the worker describes it (and, for JSONL, counts its tokens; the main thread counts a text's), so
// that the two threads are busy alike; a JSON document, whose records this thread parses, is hashed by the worker.
// The stored result is the same as ever.
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, lro, tempDir } from '../helpers/cli.js';

const TRACE = join(__dirname, '../helpers/thread-trace.cjs');
/** Node modules that only storing (or a terminal) needs: the hash, the worker, the store's, the tty streams. */
const STORING = ['crypto', 'worker_threads', 'os', 'net', 'tty', 'timers/promises'];

let root: string;
let n = 0;
beforeAll(() => {
  root = tempDir();
});
afterAll(() => cleanup(root));

interface TraceLine {
  main: boolean;
  builtins?: string[];
  hashed?: number;
}

/** Runs `lro offload ARGS` traced: its result and the trace's lines. */
async function traced(input: Buffer | string, args: string[] = []) {
  const trace = join(root, `trace-${n++}`);
  const env = { LRO_DIR: join(root, 'store'), LRO_THREAD_TRACE: trace };
  const r = await lro(['offload', ...args], { input, env, nodeArgs: ['--require', TRACE] });
  expect(r.code, r.stderr).toBe(0);
  const lines = readFileSync(trace, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as TraceLine);
  const builtins = lines.find((l) => l.builtins)?.builtins ?? [];
  return { r, lines, storing: builtins.filter((b) => STORING.includes(b)) };
}

describe('lro offload: a small input passes through before anything of storing is loaded', () => {
  it('loads neither the hash, the worker, the store nor the terminal streams; prints the input unchanged', async () => {
    const { r, storing } = await traced('hi\n');
    expect(r.stdout.toString('utf8')).toBe('hi\n');
    expect(r.stderr).toBe('');
    expect(storing).toEqual([]);
  });

  it('counts tokens above the byte threshold without loading them either (a 9 KB input of few tokens)', async () => {
    const input = `${'aaaa '.repeat(1800)}\n`; // over 6400 bytes, far under 6400 tokens
    const { r, storing } = await traced(input);
    expect(r.stdout.toString('utf8')).toBe(input);
    expect(storing).toEqual([]);
  });

  it('loads them to store (the control: the trace sees them when they are used)', async () => {
    const { r, storing } = await traced('hi\n', ['--force']);
    expect(JSON.parse(r.out).summary.bytes).toBe(3);
    expect(storing).toContain('crypto');
  });
});

describe('lro offload: which thread hashes a large input, beside the worker that describes it', () => {
  const lines = (n: number, line: (i: number) => string): string =>
    `${Array.from({ length: n }, (_, i) => line(i)).join('\n')}\n`;
  const time = (i: number) => `10:00:${String(i % 60).padStart(2, '0')}`;
  const text = lines(40_000, (i) => `2026-11-26 ${time(i)} INFO job ${i} done in ${i % 997} ms`);
  const jsonl = lines(40_000, (i) => JSON.stringify({ i, name: `n${i % 113}`, ok: i % 7 !== 0 }));
  const json = JSON.stringify({ items: Array.from({ length: 40_000 }, (_, i) => ({ i, name: `n${i % 113}` })) }, null, 1);

  for (const [kind, input, main] of [
    ['text', text, true],
    ['jsonl', jsonl, true],
    ['json', json, false], // a JSON document: its records are parsed and described here: the worker hashes and counts
  ] as const) {
    const by = main ? 'the main thread' : 'the worker';
    it(`${kind}: every byte hashed once, by ${by}; the header's sha256 is the input's`, async () => {
      expect(input.length).toBeGreaterThan(1 << 20); // past what is analysed without the worker
      const { r, lines } = await traced(input, ['--no-dedupe']);
      const d = JSON.parse(r.out) as { file_path: string; summary: { content_type: string } };
      expect(d.summary.content_type).toBe(kind);
      const hashes = lines.filter((l) => l.hashed !== undefined && l.hashed >= input.length);
      expect(hashes).toEqual([{ main, hashed: input.length }]);
      const file = readFileSync(d.file_path, 'utf8');
      const header = JSON.parse(file.slice(0, file.indexOf('\n'))) as { sha256: string; bytes: number };
      expect(header.sha256).toBe(createHash('sha256').update(input).digest('hex'));
      expect(header.bytes).toBe(input.length);
    });
  }
});

describe('stdin and stdout at /dev/null (a cron job, the stdin a harness gives a command)', () => {
  it('are not taken for terminals: node:tty, and the net and stream modules it loads, are not loaded', async () => {
    // (not lro ls: chalk, which it imports for its table's colours, loads node:tty whatever the output is)
    for (const args of [['offload'], ['read', 'last', '--head', '1'], ['grep', 'last', 'one']]) {
      const trace = join(root, `trace-${n++}`);
      const env = { LRO_DIR: join(root, 'store'), LRO_THREAD_TRACE: trace };
      if (args[0] !== 'offload') await lro(['offload', '--force'], { input: 'one line\n', env });
      // (a character device, as a terminal is; before, each took 8-10 ms more to load node:tty and ask it)
      const r = await lro(args, { env, nodeArgs: ['--require', TRACE], shellPrefix: 'exec </dev/null >/dev/null;' });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      const lines = readFileSync(trace, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as TraceLine);
      expect(lines.find((l) => l.builtins)?.builtins, args.join(' ')).not.toContain('tty');
    }
  });
});
