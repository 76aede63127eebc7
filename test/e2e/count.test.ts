// End-to-end: `lro count` over stored results, through the built binary.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';
import { corpusFile } from '../helpers/corpus.js';

let root: string;
let env: Record<string, string>;
beforeAll(() => {
  root = tempDir();
  env = { LRO_DIR: join(root, 'store') };
});
afterAll(() => cleanup(root));

async function store(input: string | Buffer): Promise<string> {
  const r = await lroHere(['offload', '--force'], { input, env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.out).id as string;
}

const records = Array.from({ length: 500 }, (_, i) =>
  JSON.stringify({ id: i, status: i % 10 === 0 ? 'error' : i % 3 === 0 ? 'warn' : 'ok', code: i % 10 === 0 ? 500 : 200, items: [{ kind: 'a' }, { kind: i % 2 ? 'b' : 'a' }], ...(i % 100 === 0 ? {} : { region: 'eu' }) }),
);

describe('lro count', () => {
  let id: string;
  beforeAll(async () => {
    id = await store(`${records.join('\n')}\n`);
  });

  it('counts by a field, most frequent first, with the first record of each value', async () => {
    const r = await lro(['count', id, '--by', 'status'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.out).toBe('  count   first  .status\n    300       2  ok\n    150       4  warn\n     50       1  error\n500 records, 3 values\n');
  });

  it('counts pairs, each element of [], and missing fields as null', async () => {
    expect((await lro(['count', id, '--by', 'status', '--by', '.code'], { env })).out).toBe(
      '  count   first  .status  .code\n    300       2  ok  200\n    150       4  warn  200\n     50       1  error  500\n500 records, 3 combinations\n',
    );
    expect((await lro(['count', id, '--by', '.items[].kind'], { env })).out).toBe('  count   first  .items[].kind\n    750       1  a\n    250       2  b\n500 records, 2 values\n');
    expect((await lro(['count', id, '--by', 'region'], { env })).out).toBe('  count   first  .region\n    495       2  eu\n      5       1  null\n500 records, 2 values\n');
  });

  it('--json is one object per group', async () => {
    const r = await lro(['count', id, '--by', 'code', '--json'], { env });
    expect(r.out).toBe('{"count":450,"first":2,"value":200}\n{"count":50,"first":1,"value":500}\n');
  });

  it('cuts at the budget with the command for the next groups', async () => {
    const many = await store(`${Array.from({ length: 300 }, (_, i) => JSON.stringify({ k: `value-${i % 150}` })).join('\n')}\n`);
    const all = (await lro(['count', many, '--by', 'k', '--max-tokens', '0'], { env })).out.split('\n').slice(1, -2);
    expect(all).toHaveLength(150);
    const r = await lro(['count', many, '--by', 'k', '--max-tokens', '200'], { env });
    const m = /\[lro: showed values 1-(\d+) of 150 \(--max-tokens 200\); next: (lro count \S+ --by k --max-tokens 200 --groups (\d+):)\]\n$/.exec(r.out);
    expect(m, r.out).not.toBeNull();
    expect(Number(m![3])).toBe(Number(m![1]) + 1);
    const next = spawnSync('bash', ['-c', m![2].replace(/^lro/, `"${process.execPath}" ${join(__dirname, '../../bin/lro.js')}`)], { env: { ...process.env, ...env }, encoding: 'utf8' });
    expect(next.stdout.split('\n')[1]).toBe(all[Number(m![1])]);
  });

  it('keeps at most 100,000 distinct values and counts the rest together, saying so', async () => {
    const many = await store(`${Array.from({ length: 100_050 }, (_, i) => `{"k":${i % 100_030},"s":"x"}`).join('\n')}\n`);
    const r = await lro(['count', many, '--by', 'k', '--json', '--max-tokens', '0'], { env });
    const lines = r.out.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(100_001);
    expect(lines.slice(0, 20).every((g) => g.count === 2)).toBe(true); // 0..19 come twice
    expect(lines.at(-1)).toMatchObject({ type: 'other', count: 30, first: 100_001 });
    expect(lines.reduce((s, g) => s + g.count, 0)).toBe(100_050);
  }, 60_000);

  it('--explain prints the lro jq command; a missing field is an error', async () => {
    expect((await lro(['count', id, '--by', 'status', '--explain'], { env })).out).toBe(
      `lro jq ${id} -s -c '[.[] | .status?] | group_by(.) | map({value: .[0], count: length}) | sort_by(-.count)'\n`,
    );
    const r = await lro(['count', id, '--by', 'staus'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^lro: no record has the field \.staus \(--by names it\): did you mean \.status\?/);
    expect((await lro(['count', id], { env })).out).toBe('500\n');
    expect((await lro(['count', id, '--records', '101:', '--json'], { env })).out).toBe('{"count":400}\n');
    expect((await lro(['count', id, '--explain'], { env })).out).toBe(`lro jq ${id} -s -c length\n`);
  });

  it('text: lines by level, by template and by what a regex captures', async () => {
    const t = await store(readFileSync(corpusFile('loghub/HDFS_2k.log')));
    expect((await lro(['count', t, '--by', 'level'], { env })).out).toBe('  count   first  level\n  1,920       1  INFO\n     80      78  WARN\n2,000 lines, 2 values\n');
    const tpl = (await lro(['count', t, '--by', 'template', '--max-tokens', '0'], { env })).out.split('\n');
    expect(tpl[0]).toBe('  count   first  template');
    expect(tpl[1]).toBe('    314       3  <*> INFO dfs.FSNamesystem: BLOCK* NameSystem.addStoredBlock: blockMap updated: <*> is added to <*> size <*>');
    expect(tpl.at(-2)).toBe('2,000 lines, 16 templates');
    const re = await lro(['count', t, '--by', 'dfs\\.(\\w+)', '--json'], { env });
    expect(re.out.split('\n')[0]).toBe('{"count":1058,"first":1,"value":"DataNode"}');
    const word = await lro(['count', t, '--by', 'status'], { env });
    expect(word.out).toMatch(/^  count   first  status\n  2,000       1  null\n/);
    // a column's name given to a text that is no table is not a silent column of nulls (issue 38)
    expect(word.stderr).toBe(
      `lro: result ${t} is text, not a table: --by status is a regular expression with no group, each line counted by the text it matches (null: no match); a group captures a value: --by 'status=(\\S+)'\n`,
    );
    expect((await lro(['count', t, '--by', 'dfs\\.(\\w+)'], { env })).stderr).toBe('');
    expect((await lro(['count', t, '--by', 'level', '--by', 'template'], { env })).stderr).toMatch(/^lro: a text result is counted by one of/);
  });
});
