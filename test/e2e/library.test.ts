// The library as a program gets it: the built package (dist/index.js, through package.json's exports), used
// in-process: offload → openResult → grepResult → jqResult → readResult, values back rather than printed text.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, lro, tempDir } from '../helpers/cli.js';

type Lib = typeof import('../../src/index.js');
const pkgRoot = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', pkgRoot), 'utf8')) as {
  exports: { '.': { types: string; default: string } };
  types: string;
  main: string;
};

let lib: Lib;
let root: string;
let dir: string;

const rows = Array.from({ length: 3000 }, (_, i) =>
  JSON.stringify({ id: i + 1, status: i % 100 === 0 ? 'error' : 'ok', ms: i % 7, big: i === 0 ? 12345678901234567890n.toString() : null }),
);
// one record with a number beyond 2^53, written as a number
rows[0] = rows[0].replace('"12345678901234567890"', '12345678901234567890');
const input = `${rows.join('\n')}\n`;

beforeAll(async () => {
  lib = (await import(new URL(pkg.exports['.'].default, pkgRoot).href)) as Lib;
  root = tempDir();
  dir = join(root, 'store');
});
afterAll(() => cleanup(root));

describe('the built package', () => {
  it('points main, exports and types at built files', () => {
    for (const p of [pkg.main, pkg.exports['.'].default, pkg.exports['.'].types, pkg.types]) expect(existsSync(new URL(p, pkgRoot)), p).toBe(true);
    const types = readFileSync(new URL(pkg.exports['.'].types, pkgRoot), 'utf8');
    for (const name of ['offload', 'openResult', 'readResult', 'grepResult', 'grepStore', 'jqResult', 'describeResult', 'LroError']) expect(types).toContain(name);
  });
});

describe('offload → openResult → grep → jq → read, in-process', () => {
  let id: string;

  it('offloads and returns the descriptor object', async () => {
    const r = await lib.offload(input, { dir, operation: 'api-call', query: 'GET /items' });
    expect(r.offloaded).toBe(true);
    if (!r.offloaded) return;
    id = r.id;
    expect(r.descriptor.id).toBe(id);
    expect(r.descriptor.summary).toMatchObject({ count: 3000, operation: 'api-call', content_type: 'jsonl', query: 'GET /items' });
    expect(r.descriptor.guidance).toContain(id);
    expect(r.path).toBe(r.descriptor.file_path);
  });

  it('opens the result by id and by "last"', () => {
    const rf = lib.openResult(id, { dir });
    expect(rf.header).toMatchObject({ id, count: 3000, content_type: 'jsonl', operation: 'api-call' });
    expect(lib.openResult('last', { dir }).path).toBe(rf.path);
    expect(lib.describeResult(rf).summary.count).toBe(3000);
  });

  it('greps and gets the matching records back', async () => {
    const g = await lib.grepResult(id, '"status":"error"', { dir });
    expect(g.matched).toBe(30);
    expect(g.lines.map((l) => l.record).slice(0, 3)).toEqual([1, 101, 201]);
    const start = rows[100].indexOf('"status":"error"');
    expect(g.lines[1]).toEqual({ type: 'match', record: 101, text: rows[100], offset: 0, record_length: rows[100].length, matches: [{ start, end: start + 16 }] });
    const ctx = await lib.grepResult(id, '"id":500,', { dir, context: 1, maxCount: 1 });
    expect(ctx.lines.map((l) => [l.type, l.record])).toEqual([
      ['context', 499],
      ['match', 500],
      ['context', 501],
    ]);
    expect((await lib.grepResult(id, 'no such thing', { dir })).lines).toEqual([]);
  });

  it('runs jq and gets values back', async () => {
    const j = await lib.jqResult(id, 'select(.status == "error") | .id', { dir });
    expect(j.exitCode).toBe(0);
    expect(j.values.length).toBe(30);
    expect(j.values.slice(0, 3)).toEqual([1, 101, 201]);
    const s = await lib.jqResult(id, 'map(.ms) | add', { dir, slurp: true });
    expect(s.values).toEqual([rows.reduce((sum, r) => sum + (JSON.parse(r) as { ms: number }).ms, 0)]);
    const args = await lib.jqResult(id, 'select(.id == $n) | {id, tag: $tag}', { dir, from: 10, to: 20, args: { tag: 'x' }, jsonArgs: { n: 15 } });
    expect(args.values).toEqual([{ id: 15, tag: 'x' }]);
    const raw = await lib.jqResult(id, '.big', { dir, to: 1, raw: true });
    expect(raw.values).toEqual(['12345678901234567890']); // digits kept
    const header = await lib.jqResult(id, '.count', { dir, header: true });
    expect(header.values).toEqual([3000]);
    // outputs by the thousand, over many of the engine's writes: each one whole, none split or joined
    const many = await lib.jqResult(id, '{id, s: (.id | tostring | . * 40)}', { dir });
    expect(many.values.length).toBe(3000);
    expect(many.values.every((v, i) => JSON.stringify(v) === JSON.stringify({ id: i + 1, s: String(i + 1).repeat(40) }))).toBe(true);
  });

  it('reports a jq compile error as an LroError with exit code 3, a runtime error as exit code 5', async () => {
    const e = await lib.jqResult(id, '.[', { dir }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(lib.LroError);
    expect((e as InstanceType<Lib['LroError']>).exitCode).toBe(3);
    const rt = await lib.jqResult(id, '.id | error("bad")', { dir, to: 2 });
    expect(rt.exitCode).toBe(5);
    expect(rt.stderr).toMatch(/bad/);
  });

  it('reads records as text and values', () => {
    const r = lib.readResult(id, { dir, from: 100, to: 101 });
    expect(r.map((x) => x.n)).toEqual([100, 101]);
    expect(r[1].value).toEqual({ id: 101, status: 'error', ms: 100 % 7, big: null });
    expect(r[1].text).toBe(rows[100]);
    expect(lib.readResult(id, { dir, tail: 2 }).map((x) => x.n)).toEqual([2999, 3000]);
    expect(lib.readResult(id, { dir, head: 1 })[0].text).toContain('12345678901234567890');
  });

  it('throws LroError for an unknown id', () => {
    expect(() => lib.openResult('01ARZ3NDEKTSV4RRFFQ69G5FAV', { dir })).toThrow(lib.LroError);
  });
});

describe('grepStore: every stored result, as lro grep --all', () => {
  it('gives each result with a match, newest first, with its lines; filters by source and session', async () => {
    const store = join(root, 'store-all');
    const log = (tag: string) => `${Array.from({ length: 2000 }, (_, i) => `line ${i + 1} ${i === 1500 ? `ECONNRESET ${tag}` : 'ok'}`).join('\n')}\n`;
    const older = await lib.offload(log('older'), { dir: store, force: true, query: 'curl a' });
    const none = await lib.offload('nothing here\n', { dir: store, force: true, query: 'echo' });
    const newer = await lib.offload(log('newer'), { dir: store, force: true, query: 'curl b', session: 's1' });
    if (!older.offloaded || !none.offloaded || !newer.offloaded) throw new Error('not offloaded');
    const all = await lib.grepStore('ECONNRESET', { dir: store, context: 1 });
    expect(all.skipped).toEqual([]);
    expect(all.results.map((r) => [r.id, r.command, r.records, r.matched])).toEqual([
      [newer.id, 'curl b', 2000, 1],
      [older.id, 'curl a', 2000, 1],
    ]);
    expect(all.results[0].lines.map((l) => [l.type, l.record, l.text])).toEqual([
      ['context', 1500, 'line 1500 ok'],
      ['match', 1501, 'line 1501 ECONNRESET newer'],
      ['context', 1502, 'line 1502 ok'],
    ]);
    expect((await lib.grepStore('econnreset', { dir: store, ignoreCase: true, source: 'curl a' })).results.map((r) => r.id)).toEqual([older.id]);
    expect((await lib.grepStore('ECONNRESET', { dir: store, session: 's1' })).results.map((r) => r.id)).toEqual([newer.id]);
    expect((await lib.grepStore('ECONNRESET', { dir: store, since: new Date(Date.now() + 60_000) })).results).toEqual([]);
    expect((await lib.grepStore('no such thing', { dir: store })).results).toEqual([]);
    await expect(lib.grepStore('x', { dir: store, since: 'soon' })).rejects.toThrow(/invalid since 'soon'/);
  });
});

describe('more inputs', () => {
  it('passes small input back unchanged and stores nothing', async () => {
    const r = await lib.offload('small\n', { dir: join(root, 'unused') });
    expect(r).toEqual({ offloaded: false, truncated: false, content: Buffer.from('small\n') });
    expect(existsSync(join(root, 'unused'))).toBe(false);
  });

  it('offloads a stream, with its source, and reads text records', async () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${i + 1}${i === 1499 ? ' ERROR disk full' : ''}`);
    const r = await lib.offload(Readable.from([Buffer.from(lines.join('\n'))]), { dir, source: { command: 'make', exit_code: 2 } });
    if (!r.offloaded) throw new Error('expected an offload');
    expect(r.header.source).toEqual({ command: 'make', exit_code: 2 });
    expect(r.descriptor.guidance).toMatch(/^`make` FAILED \(exit code 2\)/);
    const g = await lib.grepResult(r.id, 'error', { dir, ignoreCase: true });
    expect(g.lines).toEqual([{ type: 'match', record: 1500, text: 'line 1500 ERROR disk full', offset: 0, record_length: 25, matches: [{ start: 10, end: 15 }] }]);
    expect(lib.readResult(r.id, { dir, from: 1500, to: 1500 })[0]).toEqual({ n: 1500, text: 'line 1500 ERROR disk full', value: 'line 1500 ERROR disk full' });
  });

  it('stops a runaway pattern in its worker instead of hanging the host', async () => {
    const r = await lib.offload(`${'a'.repeat(40)}!\n`, { dir, force: true });
    if (!r.offloaded) throw new Error('expected an offload');
    const started = Date.now();
    await expect(lib.grepResult(r.id, '^(a+)+(?=$)', { dir, timeoutSeconds: 1 })).rejects.toThrow(/no progress/);
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});

describe("the library's grep lines are lro grep --json's, as values", () => {
  it('gives the same lines as the printed objects: context, long records as windows, grep --all', async () => {
    const store = join(root, 'store-same');
    const long = (i: number) => `${'x'.repeat(700)} HIT ${i} ${'y'.repeat(600)} HIT again ${'z'.repeat(900)} HIT end`;
    const text = `${Array.from({ length: 400 }, (_, i) => (i % 50 === 7 ? long(i) : i % 50 === 30 ? `short HIT ${i}` : `line ${i} ok ${'w'.repeat(i % 3 === 0 ? 1200 : 5)}`)).join('\n')}\n`;
    const r = await lib.offload(text, { dir: store, force: true, query: 'make long' });
    if (!r.offloaded) throw new Error('not offloaded');
    const env = { LRO_DIR: store, LRO_MAX_OUTPUT_TOKENS: '0' };
    const parsed = (out: string) => out.split('\n').filter((l) => l).map((l) => JSON.parse(l) as Record<string, unknown>);
    const printed = await lro(['grep', r.id, 'HIT', '-C', '1', '--json'], { env });
    expect(printed.code).toBe(0);
    const g = await lib.grepResult(r.id, 'HIT', { dir: store, context: 1 });
    expect(g.lines.some((l) => l.offset > 0)).toBe(true); // windows of a long record
    expect(g.lines.some((l) => l.type === 'context' && l.record_length > 1000)).toBe(true);
    expect(g.lines).toEqual(parsed(printed.out));
    const all = await lro(['grep', '--all', 'HIT', '-C', '1', '--json'], { env });
    const objs = parsed(all.out);
    expect(objs[0]).toMatchObject({ type: 'result', result: r.id, command: 'make long' });
    const s = await lib.grepStore('HIT', { dir: store, context: 1 });
    expect(s.results.map((x) => x.id)).toEqual([r.id]);
    expect(s.results[0].lines).toEqual(objs.slice(1).map(({ result: _, ...line }) => line));
  });
});
