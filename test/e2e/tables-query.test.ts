// End-to-end: a text result that is a column table (ps aux, df -h, kubectl get pods, docker ps) is queried by its
// columns with lro where and lro count; the answers are checked against rows cut from the fixture by the test
// itself, and --explain's jq command, run as printed, gives the same answer. A plain log reads as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cleanup, lro, storeOnPath } from '../helpers/cli.js';

const FIXTURES = resolve(__dirname, '../../fixtures/outputs');
let root: string;
let env: Record<string, string>;
beforeAll(() => ({ root, env } = storeOnPath()));
afterAll(() => cleanup(root));

type Row = { n: number; cells: Record<string, string> };

function fixture(name: string): string[] {
  return readFileSync(join(FIXTURES, name), 'utf8').replace(/\n$/, '').split('\n');
}

/** Rows cut at runs of spaces, the last column taking the rest (`names` may hold a name of two header words). */
function byWords(lines: string[], names: string[]): Row[] {
  return lines.slice(1).map((l, i) => {
    const f = l.trim().split(/\s+/);
    const cells = Object.fromEntries(names.map((n, j) => [n, j === names.length - 1 ? f.slice(j).join(' ') : f[j]]));
    return { n: i + 2, cells };
  });
}

/** Rows cut where each header name starts (left-aligned columns). */
function byPosition(lines: string[]): Row[] {
  const heads = [...lines[0].matchAll(/\S+(?: \S+)*/g)].map((m) => ({ name: m[0], at: m.index }));
  return lines.slice(1).map((l, i) => {
    const cells = Object.fromEntries(heads.map((h, j) => [h.name, l.slice(h.at, heads[j + 1]?.at ?? l.length).trim()]));
    return { n: i + 2, cells };
  });
}

async function store(name: string): Promise<string> {
  const r = await lro(['offload', '--force'], { input: readFileSync(join(FIXTURES, name)), env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.out).id as string;
}

async function run(args: string[]) {
  return lro(args, { env });
}

function bash(cmd: string): { code: number; out: string; err: string } {
  const r = spawnSync('bash', ['-c', cmd], { env: { ...process.env, ...env, NO_COLOR: '1' }, encoding: 'utf8' });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

/** count --json's groups as value → count. */
function groups(out: string): Map<unknown, number> {
  return new Map(out.trim().split('\n').map((l) => JSON.parse(l) as { value: unknown; count: number }).map((g) => [g.value, g.count]));
}

function tally(values: unknown[]): Map<unknown, number> {
  const m = new Map<unknown, number>();
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
  return m;
}

const num = (s: string) => (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(s) ? Number(s) : s);

describe('a column table is queried by its columns', () => {
  let ps: string;
  let psRows: Row[];
  beforeAll(async () => {
    ps = await store('ps-aux.txt');
    const lines = fixture('ps-aux.txt');
    psRows = byWords(lines, lines[0].trim().split(/\s+/));
  });

  it("where '%MEM>0.5' --fields PID,COMMAND gives the rows whose %MEM is above 0.5, as numbers compare", async () => {
    const r = await run(['where', ps, '%MEM>0.5', '--fields', 'PID,COMMAND']);
    expect(r.code, r.stderr).toBe(0);
    const want = psRows
      .filter((x) => Number(x.cells['%MEM']) > 0.5)
      .map((x) => `${x.n}: ${JSON.stringify({ PID: Number(x.cells.PID), COMMAND: x.cells.COMMAND })}`);
    expect(want.length).toBeGreaterThan(0);
    expect(r.out.trim().split('\n')).toEqual(want);
    expect(r.stderr).toBe('lro: skipped the header row (line 1)\n');
  });

  it('count --by COMMAND counts the rows by their command; conditions select rows', async () => {
    const r = await run(['count', ps, '--by', 'COMMAND', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(groups(r.out)).toEqual(tally(psRows.map((x) => x.cells.COMMAND)));
    const c = await run(['count', ps, '--by', 'STAT', 'COMMAND=bash', '--json']);
    expect(c.code, c.stderr).toBe(0);
    expect(groups(c.out)).toEqual(tally(psRows.filter((x) => x.cells.COMMAND === 'bash').map((x) => x.cells.STAT)));
    const total = await run(['count', ps]);
    expect(total.out).toBe(`${psRows.length}\n`);
  });

  it('--explain prints an lro jq command that gives the same answer', async () => {
    const w = await run(['where', ps, '%MEM>0.5', '--fields', 'PID,COMMAND', '--explain']);
    const j = bash(w.out);
    expect(j.code, j.err).toBe(0);
    const direct = await run(['where', ps, '%MEM>0.5', '--fields', 'PID,COMMAND']);
    expect(j.out).toBe(direct.out.replace(/^\d+: /gm, ''));
    const c = await run(['count', ps, '--by', 'COMMAND', 'USER=root', '--explain']);
    const jc = bash(c.out);
    expect(jc.code, jc.err).toBe(0);
    const want = tally(psRows.filter((x) => x.cells.USER === 'root').map((x) => x.cells.COMMAND));
    const got = new Map((JSON.parse(jc.out) as { value: string; count: number }[]).map((g) => [g.value, g.count]));
    expect(got).toEqual(want);
  });

  it("lro jq's row makes each line its row object, the header row giving nothing", async () => {
    const r = await run(['jq', ps, '-c', 'row | select(."%MEM" > 0.5) | {PID, COMMAND}']);
    expect(r.code, r.stderr).toBe(0);
    const want = psRows.filter((x) => Number(x.cells['%MEM']) > 0.5).map((x) => JSON.stringify({ PID: Number(x.cells.PID), COMMAND: x.cells.COMMAND }));
    expect(want.length).toBeGreaterThan(0);
    expect(r.out.trim().split('\n')).toEqual(want);
    // every line through row: one object per row, none for the header line
    const all = await run(['jq', ps, '-s', 'map(row) | length']);
    expect(all.out).toBe(`${psRows.length}\n`);
    // a compile error counts the filter's own lines, not lro's definition before it
    const bad = await run(['jq', ps, 'row | .a | %']);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('line 1, column');
    expect(bad.stderr).not.toContain('def row');
    // .row and $row are not the function
    const field = await run(['jq', ps, '-n', '{row: 1} | .row']);
    expect(field.out).toBe('1\n');
  });

  it('a field that is not a column is an error listing the columns', async () => {
    const r = await run(['where', ps, 'MEM>0.5']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no record has the field .MEM');
    expect(r.stderr).toContain('."%MEM"');
    expect(r.stderr).toContain('.COMMAND');
  });

  it('df -h: the last column is named by two header words', async () => {
    const id = await store('df-h.txt');
    const rows = byWords(fixture('df-h.txt'), ['Filesystem', 'Size', 'Used', 'Avail', 'Use%', 'Mounted on']);
    const r = await run(['where', id, '."Mounted on"~^/dev', '--fields', 'Filesystem,Avail']);
    const want = rows
      .filter((x) => /^\/dev/.test(x.cells['Mounted on']))
      .map((x) => `${x.n}: ${JSON.stringify({ Filesystem: x.cells.Filesystem, Avail: num(x.cells.Avail) })}`);
    expect(want.length).toBeGreaterThan(0);
    expect(r.out.trim().split('\n')).toEqual(want);
  });

  it('kubectl get pods and docker ps: columns cut where their names start', async () => {
    const k = await store('kubectl-get-pods.txt');
    const kRows = byPosition(fixture('kubectl-get-pods.txt'));
    const kc = await run(['count', k, '--by', 'STATUS', 'NAMESPACE=default', '--json']);
    expect(groups(kc.out)).toEqual(tally(kRows.filter((x) => x.cells.NAMESPACE === 'default').map((x) => x.cells.STATUS)));
    const restarts = await run(['where', k, 'RESTARTS>=3', '-c']);
    expect(restarts.out).toBe(`${kRows.filter((x) => Number(x.cells.RESTARTS) >= 3).length}\n`);

    const d = await store('docker-ps.txt');
    const dRows = byPosition(fixture('docker-ps.txt'));
    const up = await run(['where', d, 'STATUS~^Up', '--fields', '."CONTAINER ID",NAMES']);
    const want = dRows
      .filter((x) => /^Up/.test(x.cells.STATUS))
      .map((x) => `${x.n}: ${JSON.stringify({ 'CONTAINER ID': num(x.cells['CONTAINER ID']), NAMES: x.cells.NAMES })}`);
    expect(up.out.trim().split('\n')).toEqual(want);
    const ex = bash((await run(['where', d, 'STATUS~^Up', '--fields', '."CONTAINER ID",NAMES', '--explain'])).out);
    expect(ex.code, ex.err).toBe(0);
    expect(ex.out).toBe(up.out.replace(/^\d+: /gm, ''));
    const images = await run(['count', d, '--by', 'IMAGE', '--json']);
    expect(groups(images.out)).toEqual(tally(dRows.map((x) => x.cells.IMAGE)));
  });
});

describe('the library queries a table as the commands do', () => {
  it('whereResult gives the --fields objects as values; countResult counts by a column', async () => {
    const pkg = JSON.parse(readFileSync(resolve(__dirname, '../../package.json'), 'utf8')) as { exports: { '.': { default: string } } };
    const lib = (await import(resolve(__dirname, '../..', pkg.exports['.'].default))) as typeof import('../../src/index.js');
    const dir = join(root, 'lib-store');
    const r = await lib.offload(readFileSync(join(FIXTURES, 'ps-aux.txt')), { dir, force: true });
    if (!r.offloaded) throw new Error('not offloaded');
    const lines = fixture('ps-aux.txt');
    const rows = byWords(lines, lines[0].trim().split(/\s+/));
    const hits = await lib.whereResult(r.id, ['%MEM>0.5'], { dir, fields: ['PID', 'COMMAND'] });
    const big = rows.filter((x) => Number(x.cells['%MEM']) > 0.5);
    expect(hits.map((h) => h.value)).toEqual(big.map((x) => ({ PID: Number(x.cells.PID), COMMAND: x.cells.COMMAND })));
    const c = await lib.countResult(r.id, ['USER'], { dir });
    expect(new Map(c.groups.map((g) => [g.value, g.count]))).toEqual(tally(rows.map((x) => x.cells.USER)));
  });
});

describe('plain text that is not a table reads as before', () => {
  const log = Array.from({ length: 40 }, (_, i) => `2026-11-26 10:00:${String(i).padStart(2, '0')} ${i % 4 ? 'INFO' : 'ERROR'} user=u${i % 3} done`).join('\n');

  it('lines have no field; --by level and regex group lines', async () => {
    const r0 = await lro(['offload', '--force'], { input: `${log}\n`, env });
    const id = JSON.parse(r0.out).id as string;
    const w = await run(['where', id, 'level=ERROR']);
    expect(w.code).toBe(2);
    expect(w.stderr).toContain('its lines have no field .level');
    const l = await run(['count', id, '--by', 'level', '--json']);
    expect(groups(l.out)).toEqual(new Map([['INFO', 30], ['ERROR', 10]]));
    const u = await run(['count', id, '--by', 'user=(\\w+)', '.~ERROR', '--json']);
    expect(groups(u.out)).toEqual(tally(Array.from({ length: 10 }, (_, i) => `u${(i * 4) % 3}`)));
    const lines = await run(['where', id, '.~ERROR', '-c']);
    expect(lines.out).toBe('10\n');
    expect(lines.stderr).toBe('');
  });
});
