// End-to-end: a JSON document that is a map (a lock file's packages, npm ls's dependencies, an id-keyed cache) is
// queried by its entries with lro where and lro count, each entry {key, value} as jq's to_entries gives it. The
// answers are checked against entries the test takes from the fixture itself; --explain's jq command, run as
// printed, gives the same answer; a cut output's next: command is followed to the end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cleanup, lro, storeOnPath } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';

const FIXTURES = resolve(__dirname, '../../fixtures/outputs');
let root: string;
let env: Record<string, string>;
// whole answers are compared, so no output budget (the cut test sets its own)
beforeAll(() => ({ root, env } = storeOnPath({ LRO_MAX_OUTPUT_TOKENS: '0' })));
afterAll(() => cleanup(root));

type Lock = { packages: Record<string, { version?: string; license?: string; dev?: boolean }> };

async function store(input: string | Buffer): Promise<{ id: string; descriptor: { guidance: string; summary: { kind: string } } }> {
  const r = await lroHere(['offload', '--force'], { input, env });
  expect(r.code, r.stderr).toBe(0);
  const d = JSON.parse(r.out);
  return { id: d.id as string, descriptor: d };
}

const run = (args: string[]) => lro(args, { env });

function bash(cmd: string): { code: number; out: string; err: string } {
  const r = spawnSync('bash', ['-c', cmd], { env: { ...process.env, ...env, NO_COLOR: '1' }, encoding: 'utf8' });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

function tally(values: unknown[]): Map<unknown, number> {
  const m = new Map<unknown, number>();
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
  return m;
}

const lines = (out: string) => out.trim().split('\n');

describe("a JSON map's entries are the records of where and count", () => {
  const text = readFileSync(join(FIXTURES, 'package-lock.json'), 'utf8');
  const entries = Object.entries((JSON.parse(text) as Lock).packages);
  let id: string;
  beforeAll(async () => {
    const s = await store(text);
    id = s.id;
    expect(s.descriptor.summary.kind).toBe('json-map');
  });

  it('where value.dev=true --fields key,value.version gives the dev packages, numbered as entries', async () => {
    const r = await run(['where', id, 'value.dev=true', '--fields', 'key,value.version']);
    expect(r.code, r.stderr).toBe(0);
    const want = entries
      .map(([k, v], i) => ({ n: i + 1, k, v }))
      .filter((e) => e.v.dev === true)
      .map((e) => `${e.n}: ${JSON.stringify({ key: e.k, 'value.version': e.v.version ?? null })}`);
    expect(want.length).toBeGreaterThan(100);
    expect(lines(r.out)).toEqual(want);
    expect(r.stderr).toContain(`the records here are the ${entries.length} entries of .packages`);
    // a whole entry is printed as to_entries gives it
    const first = await run(['where', id, 'key~aws-sdk/client-s3$']);
    const n = entries.findIndex(([k]) => k === 'node_modules/@aws-sdk/client-s3') + 1;
    expect(first.out).toBe(`${n}: ${JSON.stringify({ key: entries[n - 1][0], value: entries[n - 1][1] })}\n`);
  });

  it('count --by value.license counts the entries; conditions and no --by count entries too', async () => {
    const r = await run(['count', id, '--by', 'value.license', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const got = new Map(lines(r.out).map((l) => JSON.parse(l) as { value: unknown; count: number }).map((g) => [g.value, g.count]));
    expect(got).toEqual(tally(entries.map(([, v]) => v.license ?? null)));
    const dev = await run(['count', id, 'value.dev=true']);
    expect(dev.out).toBe(`${entries.filter(([, v]) => v.dev === true).length}\n`);
    const all = await run(['count', id]);
    expect(all.out).toBe(`${entries.length}\n`);
  });

  it('--records counts entries, and a cut output continues to the end with its next: command', async () => {
    const r = await run(['where', id, 'key~aws', '--records', '5:20', '--fields', 'key']);
    const want = entries
      .map(([k], i) => ({ n: i + 1, k }))
      .filter((e) => e.n >= 5 && e.n <= 20 && /aws/.test(e.k))
      .map((e) => `${e.n}: ${JSON.stringify({ key: e.k })}`);
    expect(lines(r.out)).toEqual(want);
    const past = await run(['where', id, 'key~aws', '--records', `${entries.length + 1}:`]);
    expect(past.code).toBe(2);
    expect(past.stderr).toContain(`the result has ${entries.length} records`);

    const whole = await run(['where', id, 'value.license=MIT', '--fields', 'key']);
    const seen: string[] = [];
    let args = ['where', id, 'value.license=MIT', '--fields', 'key', '--max-tokens', '120'];
    for (let i = 0; i < 200; i++) {
      const part = i === 0 ? await run(args) : await lroHere(args, { env }); // (the pages after the first in this process)
      const next = /next: (lro .*)\]$/m.exec(part.out);
      seen.push(...lines(part.out).filter((l) => /^\d+: /.test(l)));
      if (!next) break;
      args = next[1].split(' ').slice(1).map((w) => w.replace(/^'(.*)'$/, '$1'));
    }
    expect(seen).toEqual(lines(whole.out));
    expect(seen.length).toBe(entries.filter(([, v]) => v.license === 'MIT').length);
  });

  it('--explain prints an lro jq command over .packages | to_entries that gives the same answer', async () => {
    const w = await run(['where', id, 'value.dev=true', '--fields', 'key,value.version', '--records', '10:200', '--explain']);
    expect(w.out).toContain('.packages | to_entries | .[9:200][]');
    const j = bash(w.out);
    expect(j.code, j.err).toBe(0);
    const direct = await run(['where', id, 'value.dev=true', '--fields', 'key,value.version', '--records', '10:200']);
    expect(j.out).toBe(direct.out.replace(/^\d+: /gm, ''));
    const c = bash((await run(['count', id, '--by', 'value.license', 'value.dev=true', '--explain'])).out);
    expect(c.code, c.err).toBe(0);
    const got = new Map((JSON.parse(c.out) as { value: unknown; count: number }[]).map((g) => [g.value, g.count]));
    expect(got).toEqual(tally(entries.filter(([, v]) => v.dev === true).map(([, v]) => v.license ?? null)));
  });

  it("the descriptor's next command is an lro where over the entries, and it runs", async () => {
    const s = await store(text);
    const cmd = /`(lro where [^`]+)`/.exec(s.descriptor.guidance);
    expect(cmd, s.descriptor.guidance).not.toBeNull();
    const r = bash(cmd![1]);
    expect(r.code, r.err).toBe(0);
    expect(lines(r.out).length).toBe(entries.filter(([, v]) => v.dev === true).length);
  });
});

describe('entries keep the document order and every digit', () => {
  it('a cache keyed by numbers: entries in the order written (not JavaScript key order), big ids exact', async () => {
    // keys like "10" are ordered first and ascending by JSON.parse; jq's to_entries keeps the document's order
    const keys = Array.from({ length: 12 }, (_, i) => String(30 - i * 2));
    const body = keys.map((k, i) => `"${k}":{"id":1234567890123456789${i},"state":"${i % 3 ? 'ok' : 'stale'}"}`).join(',');
    const s = await store(`{"cache":{${body}},"v":1}\n`);
    expect(s.descriptor.summary.kind).toBe('json-map');
    const r = await run(['where', s.id, 'value.state=stale']);
    expect(r.code, r.stderr).toBe(0);
    const want = keys
      .map((k, i) => ({ n: i + 1, k, i }))
      .filter((e) => e.i % 3 === 0)
      .map((e) => `${e.n}: {"key":"${e.k}","value":{"id":1234567890123456789${e.i},"state":"stale"}}`);
    expect(lines(r.out)).toEqual(want);
    const big = await run(['where', s.id, 'value.id=12345678901234567893', '--fields', 'key']);
    expect(big.out).toBe('4: {"key":"24"}\n');
  });

  it('a key written twice is one entry, at its first place with its last value, as jq reads it', async () => {
    // "k20" again at the end, and "k24" spelt with an escape: jq's to_entries (and JSON.parse, for keys that are
    // not numbers) keep one entry each, where it was first written, with the value written last
    const keys = Array.from({ length: 12 }, (_, i) => `k${30 - i * 2}`);
    const body = keys.map((k, i) => `"${k}":{"i":${i},"state":"${i % 3 ? 'ok' : 'stale'}"}`).join(',');
    const text = `{"cache":{${body},"k20":{"i":99,"state":"stale"},"k\\u0032\\u0034":{"i":98,"state":"ok"}}}\n`;
    const s = await store(text);
    expect(s.descriptor.summary.kind).toBe('json-map');
    const want = Object.entries((JSON.parse(text) as { cache: Record<string, { state: string }> }).cache);
    expect(want.length).toBe(12);
    expect((await run(['count', s.id])).out).toBe('12\n');
    const r = await run(['where', s.id, 'value.state=stale', '--fields', 'key,value.i']);
    expect(r.code, r.stderr).toBe(0);
    const stale = want.map(([k, v], i) => ({ n: i + 1, k, v })).filter((e) => e.v.state === 'stale');
    expect(lines(r.out)).toEqual(stale.map((e) => `${e.n}: ${JSON.stringify({ key: e.k, "value.i": (e.v as unknown as { i: number }).i })}`));
  });

  it("npm ls --json's dependencies (a tree) are its top-level entries", async () => {
    const text = readFileSync(join(FIXTURES, 'npm-ls.json'), 'utf8');
    const deps = Object.entries((JSON.parse(text) as { dependencies: Record<string, { version: string }> }).dependencies);
    const s = await store(text);
    expect(s.descriptor.summary.kind).toBe('json-tree');
    const r = await run(['count', s.id, '--by', 'value.version', '--json']);
    const got = new Map(lines(r.out).map((l) => JSON.parse(l) as { value: unknown; count: number }).map((g) => [g.value, g.count]));
    expect(got).toEqual(tally(deps.map(([, v]) => v.version)));
  });

  it('a JSON document that is not a map is one record, as before', async () => {
    const s = await store(`${JSON.stringify({ name: 'x', settings: { a: 1, b: [1, 2] }, pad: 'y'.repeat(3000) })}\n`);
    const r = await run(['where', s.id, 'settings.a=1', '--fields', 'name']);
    expect(r.out).toBe('1: {"name":"x"}\n');
    expect(r.stderr).toBe('');
  });
});

describe('the library queries a map as the commands do', () => {
  it('whereResult gives entries as values; countResult counts them', async () => {
    const pkg = JSON.parse(readFileSync(resolve(__dirname, '../../package.json'), 'utf8')) as { exports: { '.': { default: string } } };
    const lib = (await import(resolve(__dirname, '../..', pkg.exports['.'].default))) as typeof import('../../src/index.js');
    const dir = join(root, 'lib-store');
    const text = readFileSync(join(FIXTURES, 'package-lock.json'));
    const r = await lib.offload(text, { dir, force: true });
    if (!r.offloaded) throw new Error('not offloaded');
    const entries = Object.entries((JSON.parse(text.toString()) as Lock).packages);
    const hits = await lib.whereResult(r.id, ['value.optional=true'], { dir, fields: ['key'] });
    expect(hits.map((h) => h.value)).toEqual(entries.filter(([, v]) => (v as { optional?: boolean }).optional === true).map(([k]) => ({ key: k })));
    const c = await lib.countResult(r.id, ['value.dev'], { dir });
    expect(new Map(c.groups.map((g) => [g.value, g.count]))).toEqual(tally(entries.map(([, v]) => v.dev ?? null)));
  });
});
