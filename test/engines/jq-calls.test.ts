// The calls of jq's engine a filter that allocates takes, counted (a dropped engine is loaded again for the next
// call, so the loads are the calls that died or were stopped, plus the first) and each timed, rather than the whole
// run timed against a wall clock, which measures the machine (the CI's took over 10 s for one call of 1.5 s here).
// The e2e tests (test/e2e/jq.test.ts) check the messages the binary prints.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offloadCommand } from '../../src/commands/offload.js';
import { jqSpec } from '../../src/engines/jq-spec.js';
import type { Jq } from 'jq-wasm';
import { runJqOn, type JqIO } from '../../src/engines/jq.js';
import { resolveResult } from '../../src/store/resolve.js';
import { cleanup, tempDir } from '../helpers/cli.js';
import { fakeIO } from '../helpers/fake-io.js';

const root = tempDir();
afterAll(() => cleanup(root));
const env = { LRO_DIR: join(root, 'store'), NO_COLOR: '1', HOME: root };
let id = '';

beforeAll(async () => {
  const input = Array.from({ length: 50_000 }, (_, i) => JSON.stringify({ i: i + 1, s: 'some text' })).join('\n');
  const f = fakeIO({ stdin: input, env });
  expect(await offloadCommand.run({ json: true, force: true, format: 'jsonl' }, f)).toBe(0);
  id = (JSON.parse(f.out()) as { id: string }).id;
});

/** The build's jq engine (dist/jq: the patched jq-wasm the product loads), one instance per call of this. */
async function loadBuilt(): Promise<Jq> {
  const dist = join(__dirname, '../../dist/jq');
  const glue = createRequire(import.meta.url)(join(dist, 'jq.cjs')) as { loadJq(o: { wasmModule: unknown }): Promise<Jq> };
  const wasm = (globalThis as unknown as { WebAssembly: { compile(b: Uint8Array): Promise<unknown> } }).WebAssembly;
  compiled ??= wasm.compile(readFileSync(join(dist, 'jq.wasm')));
  return glue.loadJq({ wasmModule: await compiled });
}
let compiled: Promise<unknown> | undefined;

/** Runs a filter as lro jq does (a budget of 2,000 tokens, a next command), counting the engine's loads. */
async function counted(filter: string, stallSeconds: number): Promise<{ code: number | Error; out: string; err: string; loads: number; calls: number[] }> {
  let out = '';
  let err = '';
  let loads = 0;
  const calls: number[] = []; // each call's seconds
  const io: JqIO = { out: (s) => void (out += s), err: (s) => void (err += s), stallSeconds, nextOf: (input) => ({ command: 'jq', input, text: `lro jq ${JSON.stringify(input)}` }) };
  const rf = resolveResult(id, { env });
  const load = async () => {
    loads++;
    const jq = await loadBuilt();
    const raw = jq.raw.bind(jq) as (...a: unknown[]) => unknown;
    (jq as { raw: unknown }).raw = (...a: unknown[]) => {
      const start = performance.now();
      try {
        return raw(...a);
      } finally {
        calls.push((performance.now() - start) / 1000);
      }
    };
    return jq;
  };
  const code = await runJqOn(rf, jqSpec(id, filter, {}, env), io, load).catch((e: Error) => e);
  return { code, out, err, loads, calls };
}

describe('jq calls of a filter that allocates, over 50,000 records', () => {
  it('a line too long for the budget is cut in the call that made it (before: 7 calls, searching by halves)', async () => {
    const r = await counted('if .i == 2 then "x" * 1e7 else empty end', 120);
    expect(r.code).toBe(0);
    expect(r.loads).toBe(1);
    expect(r.out).toMatch(/^"x{100,}…\n\[lro: this output line has at least [\d,]+ characters, more than --max-tokens 2000 allows/);
  });

  it('an engine that dies on every record: two calls, the batch then its first record (before: a dozen)', async () => {
    const r = await counted('def f: [f]; f', 120);
    expect(r.code).toBeInstanceOf(Error);
    expect(String(r.code)).toMatch(/jq ran out of memory or stack on record 1 \(/);
    expect(r.loads).toBe(2);
  }, 60_000);

  it('an engine that dies deep in: the calls that died share one allowance, the --timeout (before: 16 calls of it each)', async () => {
    const r = await counted('if .i == 15000 then def f: [f]; f else .i end | select(. == 1)', 4);
    expect(r.out).toBe('1\n');
    expect(String(r.code)).toMatch(/jq ran out of memory or stack, or past the output budget, in calls that together took [\d.]+ s, the --timeout \(4 s\)|the jq filter ran 4 s without finishing/);
    // however fast the machine: the calls together take the allowance and at most one call more
    const total = r.calls.reduce((a, b) => a + b, 0);
    expect(total).toBeLessThan(4 + Math.max(...r.calls) + 1);
  }, 120_000);
});
