// End-to-end: `lro count ID [--by F] COND…` counts only the records where lro where's conditions hold, and
// `--distinct` says how many distinct values there are, then lists them within the budget.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';

let root: string;
let env: Record<string, string>;
beforeAll(() => {
  root = tempDir();
  env = { LRO_DIR: join(root, 'store') };
});
afterAll(() => cleanup(root));

async function store(input: string): Promise<string> {
  const r = await lroHere(['offload', '--force'], { input, env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.out).id as string;
}

/** go test -json like events: test T(i%5), fail every 4th; a big id beyond 2^53 on two of them. */
const events = Array.from({ length: 40 }, (_, i) => {
  const big = i === 7 ? ',"big":9007199254740993' : i === 8 ? ',"big":9007199254740992' : '';
  return `{"Test":"T${i % 5}","Action":"${i % 4 === 3 ? 'fail' : 'pass'}","n":${i}${big}}`;
});

/** Runs a printed `lro …` command (a next: line or an --explain) as given. */
async function follow(command: string): Promise<string> {
  const words = command.match(/'[^']*'|\S+/g)!.map((w) => (w.startsWith("'") ? w.slice(1, -1) : w));
  expect(words[0]).toBe('lro');
  const r = await lro(words.slice(1), { env });
  expect(r.code, r.stderr).toBe(0);
  return r.out;
}

describe('lro count with conditions', () => {
  let id: string;
  beforeAll(async () => {
    id = await store(`${events.join('\n')}\n`);
  });

  it('counts by a field only the records where every condition holds', async () => {
    const r = await lro(['count', id, '--by', 'Test', 'Action=fail'], { env });
    expect(r.code, r.stderr).toBe(0);
    // ties in jq's order of values, as group_by sorts them
    expect(r.out).toBe('  count   first  .Test\n      2      16  T0\n      2      12  T1\n      2       8  T2\n      2       4  T3\n' +
      '      2      20  T4\n10 records, 5 values\n');
    const two = await lro(['count', id, '--by', 'Test', 'Action=fail', 'n<10'], { env });
    expect(two.out).toBe('  count   first  .Test\n      1       8  T2\n      1       4  T3\n2 records, 2 values\n');
  });

  it('without --by counts the matching records, as lro where -c does; --any is OR', async () => {
    for (const conds of [['Action=fail'], ['Action=fail', 'Test=T3'], ['Test in T1,T2', 'n>=30']]) {
      const c = await lro(['count', id, ...conds], { env });
      const w = await lro(['where', id, ...conds, '-c'], { env });
      expect(c.out, conds.join(' ')).toBe(w.out);
    }
    expect((await lro(['count', id, 'Action=fail'], { env })).out).toBe('10\n');
    expect((await lro(['count', id, 'Test=T0', 'Test=T1', '--any'], { env })).out).toBe('16\n');
  });

  it('compares numbers beyond 2^53 exactly, as where does', async () => {
    expect((await lro(['count', id, 'big=9007199254740993'], { env })).out).toBe('1\n');
    expect((await lro(['count', id, '--by', 'Test', 'big?'], { env })).out).toBe('  count   first  .Test\n      1       8  T2\n      1       9  T3\n2 records, 2 values\n');
  });

  it('a condition naming a field no record has is an error (exit 2), naming the closest', async () => {
    const r = await lro(['count', id, '--by', 'Test', 'Acton=fail'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no record has the field \.Acton .*did you mean \.Action\?/);
    expect((await lro(['count', id, 'n=5x'], { env })).out).toBe('0\n');
  });

  it('--explain includes the conditions, and its jq command gives the same answer', async () => {
    const ex = (await lro(['count', id, '--by', 'Test', 'Action=fail', '--explain'], { env })).out.trim();
    expect(ex).toBe(`lro jq ${id} -s -c '[.[] | select(.Action? == "fail") | .Test?] | group_by(.) | map({value: .[0], count: length}) | sort_by(-.count)'`);
    const groups = JSON.parse(await follow(ex)) as { value: string; count: number }[];
    expect(groups.map((g) => g.count)).toEqual([2, 2, 2, 2, 2]);
    const total = (await lro(['count', id, 'Action=fail', 'n<20', '--explain'], { env })).out.trim();
    expect(await follow(total)).toBe('5\n');
    expect((await lro(['count', id, 'Action=fail', 'n<20'], { env })).out).toBe('5\n');
  });

  it('tests the line of a text result, as where does', async () => {
    const text = await store(`${Array.from({ length: 30 }, (_, i) => `${i % 3 ? 'INFO' : 'ERROR'} job ${i % 2 ? 'db' : 'web'} ${i}`).join('\n')}\n`);
    const r = await lro(['count', text, '--by', 'level', '.~ db '], { env });
    expect(r.out).toBe('  count   first  level\n     10       2  INFO\n      5       4  ERROR\n15 lines, 2 values\n');
    expect((await lro(['count', text, '.~^ERROR'], { env })).out).toBe((await lro(['where', text, '.~^ERROR', '-c'], { env })).out);
  });
});

describe('lro count --distinct', () => {
  it('says how many distinct values, then lists them most frequent first; --json too', async () => {
    const id = await store(`${events.join('\n')}\n`);
    const r = await lro(['count', id, '--by', 'Test', '--distinct', 'Action=pass'], { env });
    expect(r.out).toBe('5 distinct values of .Test in 30 records\nT0\nT1\nT2\nT3\nT4\n');
    const j = await lro(['count', id, '--by', 'Action', '--distinct', '--json'], { env });
    expect(j.out).toBe('{"distinct":2,"records":40}\n{"value":"pass"}\n{"value":"fail"}\n');
    const bad = await lro(['count', id, '--distinct'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--distinct .*add --by FIELD/);
  });

  it('cuts at the budget; following next: to the end gives the whole list', async () => {
    const many = await store(`${Array.from({ length: 400 }, (_, i) => JSON.stringify({ k: `value-${i % 200}`, even: i % 2 === 0 })).join('\n')}\n`);
    const whole = (await lro(['count', many, '--by', 'k', '--distinct', 'even=true', '--max-tokens', '0'], { env })).out;
    expect(whole.split('\n')[0]).toBe('100 distinct values of .k in 200 records');
    let out = (await lro(['count', many, '--by', 'k', '--distinct', 'even=true', '--max-tokens', '150'], { env })).out;
    const values: string[] = [];
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(50);
      const lines = out.split('\n').slice(1, -1);
      const last = lines[lines.length - 1];
      const m = /^\[lro: showed values \d+-\d+ of 100 \(--max-tokens 150\); next: (lro count .*)\]$/.exec(last ?? '');
      values.push(...(m ? lines.slice(0, -1) : lines));
      if (!m) break;
      expect(m[1]).toContain('even=true');
      out = await follow(m[1]);
    }
    expect(values.join('\n')).toBe(whole.split('\n').slice(1, -1).join('\n'));
  });
});
