// End-to-end: a text result that is a column table (ps aux, df -h, kubectl get pods, docker ps) is queried by its
// columns with lro where and lro count; the answers are checked against rows cut from the fixture by the test
// itself, and --explain's jq command, run as printed, gives the same answer. A plain log reads as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cleanup, lro, storeOnPath } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';

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
  const r = await lroHere(['offload', '--force'], { input: readFileSync(join(FIXTURES, name)), env });
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

  it('a column named __proto__ is a column like any other (the row objects do not take it as their prototype)', async () => {
    const csv = ['a,__proto__,b', ...Array.from({ length: 300 }, (_, i) => `${i},v${i % 3},${i * 2}`)].join('\n');
    const r = await lroHere(['offload', '--force'], { input: csv, env });
    const id = JSON.parse(r.out).id as string;
    const count = await run(['count', id, '--by', '__proto__']);
    expect(count.out).toMatch(/^ +count +first +\.__proto__\n +100 +2 +v0\n +100 +3 +v1\n +100 +4 +v2\n/);
    expect((await run(['where', id, '__proto__=v1', 'b>590', '--count'])).out).toBe('1\n');
  });

  it('a field that is not a column is an error listing the columns', async () => {
    const r = await run(['where', ps, 'MEM>0.5']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^lro: the table has no column MEM \(a condition or --fields names it\): did you mean %MEM\? its columns: USER, PID, %CPU, %MEM, .*COMMAND\n$/);
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
    const r0 = await lroHere(['offload', '--force'], { input: `${log}\n`, env });
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

// Real outputs made on a machine (fixtures/tables, bench/make-tables.mjs): each queried by its columns as the
// header names them, every answer checked against the rows the test cuts itself (a CSV parser of its own, the
// whitespace fields of outputs whose cells hold no space).
const TABLES = resolve(__dirname, '../../fixtures/tables');

function tableLines(name: string): string[] {
  return readFileSync(join(TABLES, name), 'utf8').replace(/\n$/, '').split('\n');
}

async function storeTable(name: string): Promise<{ id: string; descriptor: { summary: { kind: string }; guidance: string } }> {
  const r = await lroHere(['offload', '--force'], { input: readFileSync(join(TABLES, name)), env });
  expect(r.code, r.stderr).toBe(0);
  const descriptor = JSON.parse(r.out) as { id: string; summary: { kind: string }; guidance: string };
  return { id: descriptor.id, descriptor };
}

/** RFC 4180 fields of one line, read a character at a time (no field here spans lines). */
function csvFields(line: string, sep = ','): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted && c === '"' && line[i + 1] === '"') (cur += '"'), i++;
    else if (c === '"' && (quoted || cur === '')) quoted = !quoted;
    else if (c === sep && !quoted) out.push(cur), (cur = '');
    else cur += c;
  }
  out.push(cur);
  return out;
}

/** Rows of a delimited file as objects of its header's names, line numbers from 2. */
function delimitedRows(name: string, sep: string): Row[] {
  const [head, ...rest] = tableLines(name);
  const names = csvFields(head, sep);
  return rest.map((l, i) => ({ n: i + 2, cells: Object.fromEntries(csvFields(l, sep).map((c, j) => [names[j], c])) }));
}

/** The printed `N: {json}` lines of lro where --fields. */
function printed(out: string): string[] {
  return out.trim().split('\n').filter(Boolean);
}

/** What where --fields prints for rows: numbers as numbers, an empty cell null. */
function expected(rows: Row[], fields: string[]): string[] {
  return rows.map((x) => `${x.n}: ${JSON.stringify(Object.fromEntries(fields.map((f) => [f, x.cells[f] === '' ? null : num(x.cells[f])])))}`);
}

/** Every `lro …` command in a descriptor's guidance runs (exit 0) and prints something. */
async function nextCommandsRun(id: string, guidance: string): Promise<string[]> {
  const cmds = [...guidance.matchAll(/`(lro [^`]+)`/g)].map((m) => m[1]).filter((c) => c.includes(id));
  for (const c of cmds) {
    const r = bash(c);
    expect(r.code, `${c}: ${r.err}`).toBe(0);
    expect(r.out.trim(), c).not.toBe('');
  }
  return cmds;
}

describe('real tables are queried by the columns their header names', () => {
  it('CSV: quoted fields, names with spaces, numbers compared as numbers, --explain alike', async () => {
    const { id, descriptor } = await storeTable('packages.csv');
    expect(descriptor.summary.kind).toBe('csv');
    const rows = delimitedRows('packages.csv', ',');
    // the descriptor's next commands count and select by column, and run
    const cmds = await nextCommandsRun(id, descriptor.guidance);
    expect(cmds.some((c) => c.startsWith(`lro count ${id} --by `))).toBe(true);
    expect(cmds.some((c) => c.startsWith(`lro where ${id} `))).toBe(true);

    const byPriority = await run(['count', id, '--by', 'priority', '--json']);
    expect(groups(byPriority.out)).toEqual(tally(rows.map((x) => x.cells.priority)));
    // 99,999 < 100,000 as numbers (not as strings)
    const big = await run(['where', id, 'installed size>100000', '--fields', 'package name,installed size']);
    const want = rows.filter((x) => Number(x.cells['installed size']) > 100000);
    expect(want.length).toBeGreaterThan(0);
    expect(printed(big.out)).toEqual(expected(want, ['package name', 'installed size']));
    // the column as the header writes it, in single quotes, or as a jq key: the same
    const zsh = rows.filter((x) => x.cells['package name'] === 'zsh');
    for (const cond of ['package name=zsh', "'package name'=zsh", '."package name"=zsh']) {
      const r = await run(['where', id, cond, '--fields', 'package name,version']);
      expect(printed(r.out), cond).toEqual(expected(zsh, ['package name', 'version']));
    }
    // a field holding commas and doubled quotes reads as the text between the quotes
    const quoted = await run(['where', id, 'summary~"', '--fields', 'summary']);
    const withQuote = rows.filter((x) => x.cells.summary.includes('"'));
    expect(withQuote.length).toBeGreaterThan(0);
    expect(printed(quoted.out)).toEqual(expected(withQuote, ['summary']));
    const commas = await run(['where', id, 'summary~,', 'installed size<=5000', '-c']);
    expect(commas.out).toBe(`${rows.filter((x) => x.cells.summary.includes(',') && Number(x.cells['installed size']) <= 5000).length}\n`);
    const ex = bash((await run(['where', id, 'summary~,', 'installed size<=5000', '-c', '--explain'])).out);
    expect(ex.code, ex.err).toBe(0);
    expect(ex.out).toBe(commas.out);
    const exq = bash((await run(['where', id, 'summary~"', '--fields', 'summary', '--explain'])).out);
    expect(exq.out).toBe(quoted.out.replace(/^\d+: /gm, ''));
    const distinct = await run(['count', id, '--by', 'section', '--distinct']);
    expect(distinct.out.split('\n')[0]).toBe(`${new Set(rows.map((x) => x.cells.section)).size} distinct values of ."section" in ${rows.length} lines`.replace('."section"', '.section'));
  });

  it('TSV and a CSV from loghub: --by a column, conditions on two columns', async () => {
    const t = await storeTable('packages.tsv');
    expect(t.descriptor.summary.kind).toBe('tsv');
    const rows = delimitedRows('packages.tsv', '\t');
    const small = await run(['where', t.id, 'installed size<=20', 'priority!=optional', '--fields', 'package name,priority']);
    expect(printed(small.out)).toEqual(expected(rows.filter((x) => Number(x.cells['installed size']) <= 20 && x.cells.priority !== 'optional'), ['package name', 'priority']));
    const l = await storeTable('linux-structured.csv');
    const lrows = delimitedRows('linux-structured.csv', ',');
    const c = await run(['count', l.id, '--by', 'EventId', 'Component~^sshd', '--json']);
    expect(groups(c.out)).toEqual(tally(lrows.filter((x) => /^sshd/.test(x.cells.Component)).map((x) => x.cells.EventId)));
  });

  it('lsof: empty cells and numbers aligned right, cut at the gaps every line leaves', async () => {
    const { id, descriptor } = await storeTable('lsof.txt');
    expect(descriptor.summary.kind).toBe('table');
    await nextCommandsRun(id, descriptor.guidance);
    // a thread's lines have its TID and TASKCMD, a process's have neither; no cell has a space but NAME's
    const rest = ['USER', 'FD', 'TYPE', 'DEVICE', 'SIZE/OFF', 'NODE', 'NAME'];
    const rows = tableLines('lsof.txt')
      .slice(1)
      .map((l, i) => {
        const f = l.trim().split(/\s+/);
        const thread = /^\d+$/.test(f[2]);
        const [tid, taskcmd] = thread ? [f[2], f[3]] : ['', ''];
        const more = f.slice(thread ? 4 : 2);
        const cells: Record<string, string> = { COMMAND: f[0], PID: f[1], TID: tid, TASKCMD: taskcmd, ...Object.fromEntries(rest.map((n, j) => [n, j === rest.length - 1 ? more.slice(j).join(' ') : more[j]])) };
        return { n: i + 2, cells };
      });
    expect(rows.some((x) => x.cells.TID !== '')).toBe(true);
    const types = await run(['count', id, '--by', 'TYPE', '--json']);
    expect(groups(types.out)).toEqual(tally(rows.map((x) => x.cells.TYPE)));
    const sockets = await run(['where', id, 'TYPE in IPv4,IPv6,unix', '--fields', 'COMMAND,PID,NAME']);
    expect(printed(sockets.out)).toEqual(expected(rows.filter((x) => ['IPv4', 'IPv6', 'unix'].includes(x.cells.TYPE)), ['COMMAND', 'PID', 'NAME']));
    const threads = await run(['count', id, '--by', 'TASKCMD', 'TID?', '--json']);
    expect(groups(threads.out)).toEqual(tally(rows.filter((x) => x.cells.TID !== '').map((x) => x.cells.TASKCMD)));
    const ex = bash((await run(['where', id, 'TYPE=REG', 'SIZE/OFF>1000000', '--fields', 'PID,NAME', '--explain'])).out);
    const direct = await run(['where', id, 'TYPE=REG', 'SIZE/OFF>1000000', '--fields', 'PID,NAME']);
    expect(direct.out).not.toBe('');
    expect(ex.out).toBe(direct.out.replace(/^\d+: /gm, ''));
  });

  it('dpkg -l: the header under its legend, columns where its ruler says', async () => {
    const { id, descriptor } = await storeTable('dpkg-l.txt');
    expect(descriptor.summary.kind).toBe('table');
    await nextCommandsRun(id, descriptor.guidance);
    const lines = tableLines('dpkg-l.txt');
    const ruler = lines.findIndex((l) => l.startsWith('+++-'));
    const starts = [...lines[ruler].matchAll(/[+=]+/g)].map((m) => m.index);
    const rows = lines.slice(ruler + 1).map((l, i) => {
      const cells = starts.map((p, j) => l.slice(p, starts[j + 1] ?? l.length).trim());
      return { n: ruler + 2 + i, cells: { Status: cells[0], Name: cells[1], Version: cells[2], Architecture: cells[3], Description: cells[4] } };
    });
    const arch = await run(['count', id, '--by', 'Architecture', '--json']);
    expect(groups(arch.out)).toEqual(tally(rows.map((x) => x.cells.Architecture)));
    const node = await run(['where', id, 'Name~^node', 'Status=ii', '--fields', 'Name,Version']);
    expect(printed(node.out)).toEqual(expected(rows.filter((x) => /^node/.test(x.cells.Name) && x.cells.Status === 'ii'), ['Name', 'Version']));
    expect(node.stderr).toContain('the header row (line 4) and 1 line that is not a row');
  });

  it('df and ps -eLf: a header word that starts with a digit; threads counted by PID', async () => {
    const df = await storeTable('df.txt');
    expect(df.descriptor.summary.kind).toBe('table');
    const dfRows = byWords(tableLines('df.txt'), ['Filesystem', '1K-blocks', 'Used', 'Available', 'Use%', 'Mounted on']);
    const big = await run(['where', df.id, '1K-blocks>1000000', '--fields', 'Filesystem,Mounted on']);
    expect(printed(big.out)).toEqual(expected(dfRows.filter((x) => Number(x.cells['1K-blocks']) > 1000000), ['Filesystem', 'Mounted on']));
    const root = await run(['where', df.id, 'Mounted on=/', '--fields', 'Filesystem']);
    expect(printed(root.out)).toEqual(expected(dfRows.filter((x) => x.cells['Mounted on'] === '/'), ['Filesystem']));

    const ps = await storeTable('ps-eLf.txt');
    const lines = tableLines('ps-eLf.txt');
    const psRows = byWords(lines, lines[0].trim().split(/\s+/));
    const threads = await run(['count', ps.id, '--by', 'PID', '--json']);
    expect(groups(threads.out)).toEqual(tally(psRows.map((x) => Number(x.cells.PID))));
    const multi = await run(['where', ps.id, 'NLWP>1', 'LWP!=PID', '--fields', 'PID,LWP']);
    const want = psRows.filter((x) => Number(x.cells.NLWP) > 1);
    expect(want.length).toBeGreaterThan(0);
    // LWP!=PID compares with the text "PID", which every row's number differs from
    expect(printed(multi.out)).toEqual(expected(want, ['PID', 'LWP']));
  });
});
