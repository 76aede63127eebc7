// A command's values and its text apart, as gh tests a command's data and then its printing: the values each
// command gets from the room that finds them (countQuery's groups, whereMatches' records, walkGrep's events,
// readRecordSpans' spans) asserted as values; then each printer of render/ on values made here by hand, so a
// change in what is found and a change in how it is printed fail different tests.
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
import { cleanup, tempDir } from '../helpers/cli.js';
import { fakeIO } from '../helpers/fake-io.js';

const root = tempDir();
afterAll(() => cleanup(root));
const env = { LRO_DIR: join(root, 'store'), NO_COLOR: '1' };
/** 12 records: status error at records 1, 4, 7, 10; the rest ok. */
const records = Array.from({ length: 12 }, (_, i) => JSON.stringify({ i: i + 1, status: i % 3 === 0 ? 'error' : 'ok', msg: `event ${i + 1}` }));
let rf: ResultFile;
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
});
