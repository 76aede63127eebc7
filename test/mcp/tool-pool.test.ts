// ToolPool: calls on worker threads, each with a time and a heap limit; a call past either is stopped and
// answered with an error result, its worker replaced, and the other calls go on. The worker here is a stand-in
// (test/helpers/pool-worker.mjs): the pool is what is under test, lro's tools have tests of their own.
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LroTools } from '../../src/mcp/lro-tools.js';
import { errorResult } from '../../src/mcp/result.js';
import { ToolPool } from '../../src/mcp/tool-pool.js';

const SCRIPT = resolve(__dirname, '../helpers/pool-worker.mjs');
const tools = { has: (name: string) => name !== 'nope', list: () => [], call: async (name: string) => errorResult(`unknown tool ${name}`) };
let pool: ToolPool;
afterEach(() => pool?.close());

const newPool = (callSeconds: number, memoryMb = 64, workers = 2, shared = false) =>
  new ToolPool(tools as unknown as LroTools, SCRIPT, { env: {}, proxy: false, allowDirs: [] }, { workers, callSeconds, memoryMb, shared });
const text = (r: { content: { text: string }[] }) => r.content[0].text;

describe('ToolPool', () => {
  it('answers while another call runs on, then stops that one at its time limit with an error', async () => {
    pool = newPool(3);
    await Promise.all([pool.call('echo', { text: 'a' }), pool.call('echo', { text: 'b' })]); // both workers started
    const started = Date.now();
    const slow = pool.call('sleep', {});
    expect(text(await pool.call('echo', { text: 'quick' }))).toBe('quick');
    expect(Date.now() - started).toBeLessThan(2500); // not after the sleeping call's 3 s
    const r = await slow;
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^lro: sleep ran longer than 3s \(--call-timeout\) and was stopped: narrow the call .* or raise --call-timeout$/);
    expect(text(await pool.call('echo', { text: 'after' }))).toBe('after'); // a new worker took its place
  });

  it('stops a call past its heap limit with an error, and goes on', async () => {
    pool = newPool(60, 32);
    const r = await pool.call('grow', {});
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^lro: grow needed more than 32 MB of memory and was stopped: narrow the call/);
    expect(text(await pool.call('echo', { text: 'still here' }))).toBe('still here');
  });

  it('queues calls beyond its workers, and answers an unknown tool without one', async () => {
    pool = newPool(2);
    const calls = [pool.call('sleep', {}), pool.call('sleep', {}), pool.call('echo', { text: 'third' })];
    expect(text(await pool.call('nope', {}))).toBe('unknown tool nope');
    const [, , third] = await Promise.all(calls);
    expect(text(third)).toBe('third');
  });

  it('over HTTP, no client session runs calls on every worker: another client is answered while one runs away', async () => {
    pool = newPool(30, 64, 3);
    const [a, b] = [pool.forClient(), pool.forClient()];
    for (let i = 0; i < 4; i++) void a.call('sleep', {}); // two run, two wait: a third worker stays for others
    const started = Date.now();
    expect(text(await b.call('echo', { text: 'b' }))).toBe('b');
    expect(Date.now() - started).toBeLessThan(5000); // (without the rule: after a's calls' 30 s)
  });

  it('over HTTP, waiting calls start in turn across client sessions, not in the order they came', async () => {
    pool = newPool(30);
    await Promise.all([pool.call('echo', { text: 'a' }), pool.call('echo', { text: 'b' })]); // both workers started
    const [a, b] = [pool.forClient(), pool.forClient()];
    const order: string[] = [];
    const call = (c: typeof a, name: string) => c.call('wait', { text: name, ms: 300 }).then((r) => void order.push(text(r)));
    const calls = [call(a, 'a1'), call(a, 'a2'), call(a, 'a3')];
    calls.push(call(b, 'b1')); // came last, ends before a's second
    await Promise.all(calls);
    expect(order.indexOf('b1')).toBeLessThan(order.indexOf('a2')); // (in the order they came: b1 with a3, last)
    expect(order.slice(-2)).toEqual(['a2', 'a3']);
  });

  it("over HTTP, an established session's waiting call starts before the calls of sessions that came after it", async () => {
    pool = newPool(30);
    await Promise.all([pool.call('echo', { text: 'a' }), pool.call('echo', { text: 'b' })]); // both workers started
    const old = pool.forClient();
    const order: string[] = [];
    const call = (c: ReturnType<ToolPool['forClient']>, name: string, ms = 300) =>
      c.call('wait', { text: name, ms }).then((r) => void order.push(text(r)));
    await call(old, 'old0'); // an established session
    // both workers taken, one freed 600 ms before the other: the call started on the first ends well before any
    // started on the second (the order they end in tells the order they started, with no race)
    const busy = [call(pool.forClient(), 'x1'), call(pool.forClient(), 'x2', 900)];
    const waiting = call(old, 'old1'); // queued first
    const newcomers = Array.from({ length: 5 }, (_, i) => call(pool.forClient(), `n${i}`)); // queued after it
    await Promise.all([...busy, waiting, ...newcomers]);
    expect(order.indexOf('old1')).toBeLessThan(Math.min(...Array.from({ length: 5 }, (_, i) => order.indexOf(`n${i}`))));
  });

  it('a bounded tool (lro_ls) is answered on the quick worker while runaway calls hold every other worker', async () => {
    pool = newPool(30);
    const runaways = Array.from({ length: 6 }, () => pool.forClient());
    for (const c of runaways) void c.call('sleep', {}); // two run (to their 30 s), four wait
    await new Promise((r) => setTimeout(r, 300));
    const probe = pool.forClient();
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      expect(text(await probe.call('lro_ls', { text: `ls${i}`, ms: 10 }))).toBe(`ls${i}`);
      expect(Date.now() - started).toBeLessThan(1500); // (without the quick worker: after a runaway's 30 s)
    }
    // the others are not bounded: they wait for a worker as before
    const other = pool.forClient().call('echo', { text: 'e' });
    expect(await Promise.race([other.then(() => 'answered'), new Promise((r) => setTimeout(() => r('waiting'), 500))])).toBe('waiting');
  });

  it("serving many clients, every worker but the quick one runs its calls in the background; one client's, none", async () => {
    pool = newPool(30, 64, 2, true).warm();
    expect(text(await pool.forClient().call('nice', {}))).toBe('true');
    for (const c of [pool.forClient(), pool.forClient()]) void c.call('sleep', {}); // both workers held
    expect(text(await pool.forClient().call('lro_ls', { text: 'nice' }))).toBe('false'); // the quick worker
    await pool.close();
    pool = newPool(30).warm();
    expect(text(await pool.call('nice', {}))).toBe('false');
  });

  it('a call that runs past 2 s on the quick worker is stopped there and answered by another worker', async () => {
    pool = newPool(30);
    const busy = [pool.forClient().call('wait', { text: 'x1', ms: 2500 }), pool.forClient().call('wait', { text: 'x2', ms: 2500 })];
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    const slow = pool.forClient().call('lro_ls', { text: 'slow', ms: 2200 }); // past QUICK_MS: started again after x1
    const quick = pool.forClient().call('lro_ls', { text: 'quick', ms: 10 }); // the quick worker is free again at 2 s
    expect(text(await quick)).toBe('quick');
    expect(text(await slow)).toBe('slow'); // not an error: it ran whole on a general worker
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000 + 2200); // 2 s on the quick worker, then all of it again
    await Promise.all(busy);
  });
});
