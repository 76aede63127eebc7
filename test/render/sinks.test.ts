// A command's values and its text apart, as gh tests a command's data and then its printing: the values each
// command gets from the room that finds them (countQuery's groups, whereMatches' records, walkGrep's events,
// readRecordSpans' spans, compareResults' summary and itemsFrom's items, jq's outputs, ls's listed results)
// asserted as values; then each printer on values made here by hand, so a change in what is found and a change in
// how it is printed fail different tests.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offloadCommand } from '../../src/commands/offload.js';
import { nextRead } from '../../src/commands/read.js';
import { LONG_RECORD, readRecordSpans, type ResultFile } from '../../src/format/reader.js';
import type { RunCapture } from '../../src/io.js';
import { countQuery, planCount } from '../../src/query/count.js';
import { queryContentType, recordView } from '../../src/query/view.js';
import { planWhere, whereMatches } from '../../src/query/where.js';
import { OutputBatch } from '../../src/render/batch.js';
import { printCount } from '../../src/render/count-output.js';
import { GrepText } from '../../src/render/grep-output.js';
import { printRecords } from '../../src/render/read-output.js';
import { printWhere } from '../../src/render/where-output.js';
import { printStrings } from '../../src/render/grep-strings.js';
import { selectedStrings } from '../../src/search/strings.js';
import { OutputBudget, type Next } from '../../src/budget.js';
import { planGrep } from '../../src/search/grep-plan.js';
import { walkGrep } from '../../src/search/grep-values.js';
import type { GrepEvent } from '../../src/search/grep-types.js';
import { resolveResult } from '../../src/store/resolve.js';
import { compareResults, itemsFrom } from '../../src/compare/diff.js';
import type { Comparison, DiffItem } from '../../src/compare/model.js';
import { printDiff } from '../../src/compare/print.js';
import { jqOutputs } from '../../src/engines/jq-spec.js';
import { BudgetedLines } from '../../src/engines/jq-output.js';
import { listedResults } from '../../src/commands/ls.js';
import { tsvFields, tsvLine } from '../../src/render/store-table.js';
import { listStore } from '../../src/store/scan.js';
import { storeFor } from '../../src/store/open.js';
import { cleanup, tempDir } from '../helpers/cli.js';
import { fakeIO } from '../helpers/fake-io.js';

const root = tempDir();
afterAll(() => cleanup(root));
const env = { LRO_DIR: join(root, 'store'), NO_COLOR: '1' };
/** 12 records: status error at records 1, 4, 7, 10; the rest ok. */
const records = Array.from({ length: 12 }, (_, i) => JSON.stringify({ i: i + 1, status: i % 3 === 0 ? 'error' : 'ok', msg: `event ${i + 1}` }));
let rf: ResultFile;
/** The same records, record 5 with another status and record 12 left out. */
let changed: ResultFile;
/** A binary result: NUL-separated strings, the 2nd and 4th holding "key". */
let bin: ResultFile;
const binary = Buffer.concat(['\x7fELF', 'first string', 'key=alpha', 'middle', 'key=beta', 'last one'].map((t) => Buffer.from(`${t}\0\0\x01`, 'latin1')));

/** The next commands a printer is given: made as values without a command's declaration (what they hold is asserted). */
const nexts = { nextOf: (input: Record<string, unknown>): Next => ({ command: 'x', input, text: 'lro x' }), readOf: nextRead };

/** A printer's writer, and what it wrote. */
function sink(): { write: (s: string | Uint8Array) => void; text: () => string } {
  let out = '';
  return { write: (s) => void (out += typeof s === 'string' ? s : Buffer.from(s).toString('utf8')), text: () => out };
}

beforeAll(async () => {
  const f = fakeIO({ stdin: `${records.join('\n')}\n`, env });
  expect(await offloadCommand.run({ json: true, force: true }, f)).toBe(0);
  rf = resolveResult((JSON.parse(f.out()) as { id: string }).id, { env });
  const b = fakeIO({ stdin: binary, env });
  expect(await offloadCommand.run({ json: true, force: true }, b)).toBe(0);
  bin = resolveResult((JSON.parse(b.out()) as { id: string }).id, { env });
  expect(bin.header.content_type).toBe('binary');
  const other = records.slice(0, 11).map((r, i) => (i === 4 ? r.replace('"ok"', '"late"') : r));
  const c = fakeIO({ stdin: `${other.join('\n')}\n`, env });
  expect(await offloadCommand.run({ json: true, force: true }, c)).toBe(0);
  changed = resolveResult((JSON.parse(c.out()) as { id: string }).id, { env });
});

describe('the values each command gets', () => {
  it('count: the groups, most frequent first, with the first record of each', () => {
    const view = recordView(rf);
    const plan = planCount({ by: ['status'] }, queryContentType(rf), view.count);
    const res = countQuery(rf, plan.query, view);
    expect(res.groups).toEqual([
      { value: 'ok', count: 8, first: 2 },
      { value: 'error', count: 4, first: 1 },
    ]);
    expect([res.records, res.other]).toEqual([12, 0]);
  });

  it('where: the matching records, one by one as found', () => {
    const view = recordView(rf);
    const plan = planWhere(['status=error'], {}, view.count);
    expect([...whereMatches(rf, plan.query, view)].map((m) => [m.n, m.value])).toEqual(
      [1, 4, 7, 10].map((n) => [n, { i: n, status: 'error', msg: `event ${n}` }]),
    );
  });

  it('grep: the search as events, context and gaps included', async () => {
    const plan = planGrep('"error"', { afterContext: '1' }, rf.header.count);
    const events: GrepEvent[] = [];
    await walkGrep(rf, plan, {}, (ev) => (ev.kind === 'progress' || events.push(ev), true));
    const shape = events.map((ev) => ('n' in ev ? `${ev.kind} ${ev.n}` : ev.kind));
    expect(shape).toEqual(['match 1', 'context 2', 'gap', 'match 4', 'context 5', 'gap', 'match 7', 'context 8', 'gap', 'match 10', 'context 11']);
  });

  it('grep --strings: the strings the search selects, with their numbers and offsets', () => {
    const strings = [...selectedStrings(bin, planGrep('key', {}, Infinity).query)];
    expect(strings.map((x) => [x.n, x.offset, x.text])).toEqual([
      [2, 7 + 15, 'key=alpha'],
      [4, 7 + 15 + 12 + 9, 'key=beta'],
    ]); // (ELF, 3 printable bytes, is under the 4 a string takes)
    expect([...selectedStrings(bin, planGrep('key', { invertMatch: true, maxCount: '2' }, Infinity).query)].map((x) => x.text)).toEqual(['first string', 'middle']);
  });

  it('read: the spans of a range, each its stored line', () => {
    const spans = [...readRecordSpans(rf, 3, 4, LONG_RECORD)].map((s) => [s.n, s.line?.toString('utf8')]);
    expect(spans).toEqual([
      [3, records[2]],
      [4, records[3]],
    ]);
  });

  it('diff: the summary, and the items from one on, each with its section', () => {
    const c = compareResults(rf, changed, { key: 'i' });
    expect([c.summary.kind, c.summary.key, c.summary.equal]).toEqual(['records', '.i', false]);
    expect(c.summary.counts).toMatchObject({ records_changed: 1, records_added: 0, records_removed: 1 });
    const items = [...itemsFrom(c, rf, changed, 0)];
    expect(items.map((x) => [x.section, x.item.type, 'change' in x.item ? x.item.change : ''])).toEqual([
      [0, 'record', 'changed'],
      [2, 'record', 'removed'], // (section 1, the records added, is empty)
    ]);
    expect(items[0].item).toMatchObject({ key: '5', record_a: 5, record_b: 5, changes: [{ field: 'status', old: '"ok"', new: '"late"' }] });
    expect(items[1].item).toMatchObject({ key: '12', record_a: 12 });
    expect([...itemsFrom(c, rf, changed, 1)].map((x) => x.item)).toEqual([items[1].item]);
  });

  it('jq: each output as its JSON text, one at a time as jq makes them', async () => {
    const outputs: string[] = [];
    const io = { err: () => undefined, stallSeconds: 10 };
    expect(await jqOutputs(rf, 'select(.status == "error") | {i}', { compactOutput: true }, io, (t) => outputs.push(t))).toBe(0);
    expect(outputs).toEqual(['{"i":1}', '{"i":4}', '{"i":7}', '{"i":10}']);
  });

  it('ls: the results listed, newest first, the filter applied', () => {
    const store = storeFor(undefined, env);
    const listed = (f: { expired: boolean; now: number; operation?: string }) =>
      [...listedResults(store, listStore(env.LRO_DIR), f, () => true)].map((x) => (x.kind === 'result' ? [x.index, x.r.id] : x.kind));
    const ids = [changed, bin, rf].map((r) => r.header.id);
    expect(listed({ expired: false, now: Date.now() })).toEqual(ids.map((id, i) => [i, id]));
    expect(listed({ expired: true, now: Date.now() })).toEqual([]);
    expect(listed({ expired: true, now: Date.now() + 1e12 })).toHaveLength(3);
    expect(listed({ expired: false, now: Date.now(), operation: 'no-such' })).toEqual([]);
  });
});

describe('each printer prints the values it is handed', () => {
  const run = (): RunCapture => ({ lines: [], values: [], maxBytes: Infinity });

  it('count: a row per group, a value as lro where reads it, the totals last', async () => {
    const view = recordView(rf);
    const plan = planCount({ by: ['status'] }, queryContentType(rf), view.count);
    const out = sink();
    const made = { groups: [{ value: 'made here', count: 1234, first: 9 }, { value: null, count: 2, first: 11 }], records: 1236, other: 0, otherFirst: 0 };
    expect(await printCount(rf, plan, made, view, { env }, out.write, () => undefined, nexts)).toBe(0);
    expect(out.text()).toBe('  count   first  .status\n  1,234       9  made here\n      2      11  null\n1,236 records, 2 values\n');
  });

  it('count: a cut list ends with the continuation, its next command a value', async () => {
    const view = recordView(rf);
    const plan = planCount({ by: ['status'], maxTokens: '12' }, queryContentType(rf), view.count);
    const out = sink();
    const io = { env, run: run() };
    const made = { groups: Array.from({ length: 30 }, (_, i) => ({ value: `v${i}`, count: 30 - i, first: i + 1 })), records: 465, other: 0, otherFirst: 0 };
    await printCount(rf, plan, made, view, io, out.write, () => undefined, nexts);
    const [line] = io.run.lines;
    expect(out.text().endsWith(line.line)).toBe(true);
    expect(line.next?.input).toMatchObject({ id: rf.header.id, by: ['status'], groups: expect.stringMatching(/^\d+:$/) });
  });

  it('where: each record handed, numbered as lro read numbers it; exit 1 when none is', async () => {
    const view = recordView(rf);
    const plan = planWhere(['status=error'], {}, view.count);
    const out = sink();
    const line = Buffer.from('{"made":"here"}');
    expect(await printWhere(rf, plan, [{ n: 3, line, value: { made: 'here' } }], view, { env }, out.write, () => undefined, nexts)).toBe(0);
    expect(out.text()).toBe('3: {"made":"here"}\n');
    expect(await printWhere(rf, plan, [], view, { env }, sink().write, () => undefined, nexts)).toBe(1);
  });

  it('grep: matches, context and gaps as grep -n prints them; -c counts what it is handed', async () => {
    const plan = planGrep('boom', {}, rf.header.count);
    const out = sink();
    const text = new GrepText(rf, plan, { env }, out.write, nexts);
    for (const ev of [
      { kind: 'match', n: 5, text: 'boom' },
      { kind: 'context', n: 6, text: 'after' },
      { kind: 'gap' },
      { kind: 'match', n: 9, text: 'boom again' },
    ] as GrepEvent[]) expect(await text.take(ev)).toBe(true);
    expect(await text.end()).toBe(0);
    expect(out.text()).toBe('5:boom\n6-after\n--\n9:boom again\n');

    const counted = sink();
    const c = new GrepText(rf, planGrep('boom', { count: true }, rf.header.count), { env }, counted.write, nexts);
    await c.take({ kind: 'counted', matches: 41 });
    await c.take({ kind: 'match', n: 2, text: 'boom' });
    expect(await c.end()).toBe(0);
    expect(counted.text()).toBe('42\n');
  });

  it('grep --strings: each string handed as N:@OFFSET text; -c counts them', async () => {
    const made = [{ n: 7, offset: 4096, text: 'made here', length: 9 }];
    const out = sink();
    expect(await printStrings(bin, planGrep('x', {}, Infinity), made, { env }, async (t) => out.write(t), nexts.nextOf)).toBe(0);
    expect(out.text()).toBe('7:@4096 made here\n');
    const counted = sink();
    expect(await printStrings(bin, planGrep('x', { count: true }, Infinity), [...made, ...made], { env }, async (t) => counted.write(t), nexts.nextOf)).toBe(0);
    expect(counted.text()).toBe('2\n');
    expect(await printStrings(bin, planGrep('x', {}, Infinity), [], { env }, async (t) => out.write(t), nexts.nextOf)).toBe(1);
  });

  it('read: the spans handed, numbered; with a budget, cut with the next part', async () => {
    // (each a JSON line: the printer checks a record is what the result's kind holds)
    const made = (n: number) => JSON.stringify({ line: n, made: 'here' });
    const spans = [2, 3, 4].map((n) => ({ n, offset: 0, line: Buffer.from(made(n)) }));
    const out = sink();
    const batch = new OutputBatch({ write: async (d: string | Uint8Array) => out.write(d), isTTY: false, color: false, columns: 0 });
    const range = { from: 2, to: 4 };
    const ended = await printRecords(rf, spans, range, { raw: false }, new OutputBudget(0), batch, (select) => nextRead({ id: rf.header.id, ...select }));
    await batch.flush();
    expect(ended).toBe(false); // every span printed
    expect(out.text()).toBe(`2: ${made(2)}\n3: ${made(3)}\n4: ${made(4)}\n`);

    const cut = sink();
    const small = new OutputBatch({ write: async (d: string | Uint8Array) => cut.write(d), isTTY: false, color: false, columns: 0 });
    const many = Array.from({ length: 50 }, (_, i) => ({ n: i + 1, offset: 0, line: Buffer.from(made(i + 1)) }));
    expect(await printRecords(rf, many, { from: 1, to: 50 }, { raw: false }, new OutputBudget(40), small, (select) => nextRead({ id: rf.header.id, ...select }))).toBe(true);
    await small.flush();
    expect(cut.text()).toMatch(new RegExp(`^1: \\{"line":1,"made":"here"\\}\\n[\\s\\S]*\\[lro: showed records 1-\\d+ of 12 \\(--max-tokens 40\\); next: lro read ${rf.header.id} --records \\d+:\\]\\n$`));
  });

  it('diff: the summary, then each item handed under its section\'s heading; cut with the next command', async () => {
    const real = compareResults(rf, changed, { key: 'i' });
    const made: DiffItem[] = [
      { type: 'record', change: 'added', key: 'made-1', record_b: 40, count: 1 },
      { type: 'line', text: 'a line made here' },
    ];
    const section = (heading: string) => ({ heading, size: 1, needs: () => ({}), item: () => made[0] });
    const c: Comparison = { summary: real.summary, sections: [section('records added'), section('lines')] };
    const print = (max: number, items: DiffItem[], text: ReturnType<typeof sink>) =>
      printDiff(c, items.map((item, i) => ({ section: i, item })), {
        json: false,
        from: 0,
        budget: new OutputBudget(max),
        write: text.write,
        next: (from) => ({ command: 'diff', input: { from }, text: `lro diff A B --from ${from}` }),
      });
    const out = sink();
    expect(await print(0, made, out)).toBe(true);
    const body = out.text().split('\n').slice(3).join('\n'); // after A, B and the verdict
    expect(body).toBe('records added (1):\n  + made-1  B:40\nlines (1):\na line made here\n');
    expect(out.text()).toMatch(/^A \w{26} .*\nB \w{26} .*\ndifferent: records: 1 changed, 1 removed \(matched by \.i\)\n/);

    const cut = sink();
    expect(await print(1, made, cut)).toBe(false);
    expect(cut.text()).toMatch(/\[lro: the next item does not fit in --max-tokens 1; next: lro diff A B --from 0\]\n$/);
  });

  it('jq: the lines written, taken into the budget whole; the first that does not fit cuts the output', () => {
    const lines = new BudgetedLines(new OutputBudget(0), { lines: 1 }, false);
    for (const w of ['skipped\nfir', 'st\nsecond\n', 'last, no newline']) expect(lines.write(Buffer.from(w))).toBe(true);
    expect(lines.end()).toBe(true);
    expect([lines.taken, lines.cut]).toEqual([['first\n', 'second\n', 'last, no newline\n'], null]);

    const small = new BudgetedLines(new OutputBudget(3), { lines: 0 }, false);
    expect(small.write(Buffer.from('ok\n'))).toBe(true);
    expect(small.write(Buffer.from(`${'word '.repeat(50)}\nafter\n`))).toBe(false);
    expect(small.taken).toEqual(['ok\n']);
    expect(small.cut).toEqual({ consumed: 1, line: `${'word '.repeat(50)}\n`, partial: false });
  });

  it('ls: a row handed, as its line for a pipe', () => {
    const row = { kind: 'result' as const, id: 'ID', operation: 'made', records: 1234, tokens: 56, size: 789, createdMs: 0, expiresMs: 0, timestamp: 'T0', expiresAt: 'T1', session: null };
    expect(tsvLine(tsvFields(row)!)).toBe('ID\tmade\t1234\t56\t789\tT0\tT1\t-\n');
    expect(tsvFields({ kind: 'damaged', id: 'ID', operation: 'x', reason: 'why' })).toBeNull();
  });
});
