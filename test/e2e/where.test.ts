// End-to-end: `lro where` over stored results, through the built binary (and through bash for quoting).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, lro, storeOnPath } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';
import { corpusFile } from '../helpers/corpus.js';

let root: string;
let env: Record<string, string>;
beforeAll(() => ({ root, env } = storeOnPath()));
afterAll(() => cleanup(root));

async function store(input: string | Buffer, extra: string[] = []): Promise<string> {
  const r = await lroHere(['offload', '--force', ...extra], { input, env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.out).id as string;
}

/** Runs a command line through bash, as an agent's shell would. */
function bash(cmd: string): { code: number; out: string; err: string } {
  const r = spawnSync('bash', ['-c', cmd], { env: { ...process.env, ...env, NO_COLOR: '1' }, encoding: 'utf8' });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

const calls = Array.from({ length: 300 }, (_, i) =>
  JSON.stringify({ id: i + 1, status: i % 25 === 7 ? 'error' : 'ok', latency: (i * 37) % 1000, msg: i % 50 === 3 ? 'connection refused: a=b' : `call ${i}`, user: { name: ['al', 'bo', 'cy'][i % 3] }, tags: i % 10 === 0 ? ['urgent', 'x'] : [] }),
).join('\n');

describe('lro where', () => {
  let id: string;
  beforeAll(async () => {
    id = await store(`${calls}\n`);
  });

  it('prints the matching records numbered like read, exit 0; none: exit 1', async () => {
    const r = await lro(['where', id, 'status=error', 'latency>300'], { env });
    expect(r.code, r.stderr).toBe(0);
    const want = calls.split('\n').map((l, i) => [i + 1, l] as const).filter(([, l]) => JSON.parse(l).status === 'error' && JSON.parse(l).latency > 300);
    expect(r.out).toBe(want.map(([n, l]) => `${n}: ${l}\n`).join(''));
    const none = await lro(['where', id, 'status=nothing'], { env });
    expect(none.code).toBe(1);
    expect(none.out).toBe('');
  });

  it('--any, -c, -m, --records, --fields', async () => {
    expect((await lro(['where', id, 'status=error', 'tags[]=urgent', '--any', '-c'], { env })).out).toBe('42\n');
    expect((await lro(['where', id, 'status=error', 'tags[]=urgent', '-c'], { env })).out).toBe('0\n');
    expect((await lro(['where', id, 'status=error', '-m', '2'], { env })).out.split('\n').filter(Boolean).map((l) => l.split(':')[0])).toEqual(['8', '33']);
    expect((await lro(['where', id, 'status=error', '--records', '30:60', '-c'], { env })).out).toBe('2\n');
    const f = await lro(['where', id, 'id<3', '--fields', 'id,user.name,tags[]'], { env });
    expect(f.out).toBe('1: {"id":1,"user.name":"al","tags[]":["urgent","x"]}\n2: {"id":2,"user.name":"bo","tags[]":[]}\n');
  });

  it("a condition's trailing spaces are its value's, in where, in count and in --explain (issue 38)", async () => {
    const procs = await store(`${['node server.js', 'nodemon x', 'node', 'node  a', 'npm run'].map((cmd, i) => JSON.stringify({ pid: i, cmd })).join('\n')}\n`);
    expect(bash(`lro where ${procs} 'cmd~^node ' --fields pid`).out).toBe('1: {"pid":0}\n4: {"pid":3}\n');
    expect(bash(`lro where ${procs} cmd '~' '^node ' -c`).out).toBe('2\n');
    expect(bash(`lro count ${procs} 'cmd~^node ' --by cmd --json`).out.trim().split('\n').length).toBe(2);
    expect(bash(`lro where ${procs} 'cmd=node ' -c`).out).toBe('0\n');
    const ex = bash(`lro where ${procs} 'cmd~^node ' --explain`).out;
    expect(ex).toContain('test("^node ")');
    expect(bash(ex).out.trim().split('\n')).toHaveLength(2);
  });

  it('survives a shell: status=error, latency>500 quoted, values with spaces and =', () => {
    expect(bash(`lro where ${id} status=error -c`).out).toBe('12\n');
    expect(bash(`lro where ${id} 'latency>500' -c`).out).toBe(`${calls.split('\n').filter((l) => JSON.parse(l).latency > 500).length}\n`);
    expect(bash(`lro where ${id} 'latency >= 500' 'latency<=600' -c`).out).toBe(`${calls.split('\n').filter((l) => JSON.parse(l).latency >= 500 && JSON.parse(l).latency <= 600).length}\n`);
    expect(bash(`lro where ${id} 'msg=connection refused: a=b' -c`).out).toBe('6\n');
    expect(bash(`lro where ${id} msg='connection refused: a=b' -c`).out).toBe('6\n');
    expect(bash(`lro where ${id} user.name in al,bo -c`).out).toBe('200\n');
    expect(bash(`lro where ${id} 'user.name in al,bo' -c`).out).toBe('200\n');
    expect(bash(`lro where ${id} 'id="7"' -c`).out).toBe('0\n'); // the string "7" is not the number 7
  });

  it('--explain prints an lro jq command that gives the same records', async () => {
    const r = await lro(['where', id, 'status=error', 'latency>300', '--explain'], { env });
    expect(r.out).toBe(`lro jq ${id} -c 'select(.status? == "error" and any(.latency?; type == "number" and . > 300))'\n`);
    const jq = bash(r.out.trim());
    const ours = await lro(['where', id, 'status=error', 'latency>300'], { env });
    expect(ours.out.replace(/^\d+: /gm, '')).toBe(jq.out);
  });

  it('a field no record has: exit 2, the fields there are and the closest name', async () => {
    const r = await lro(['where', id, 'stauts=error'], { env });
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.stderr).toMatch(/^lro: no record has the field \.stauts \(a condition or --fields names it\): did you mean \.status\? fields: \.id, \.status, \.latency, \.msg, \.user, \.tags, \.user\.name\n$/);
    const f = await lro(['where', id, 'id=1', '--fields', 'nmae'], { env });
    expect(f.code).toBe(2);
  });

  it('bad conditions are one line, exit 2', async () => {
    for (const [args, msg] of [
      [['status'], /no operator after status/],
      [['a<true'], /compares numbers or strings/],
      [['msg~(unclosed'], /invalid regular expression/],
      [['.a[x]=1'], /is not \[\], \[N\] or \["key"\]/],
    ] as const) {
      const r = await lro(['where', id, ...args], { env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(msg);
      expect(r.stderr.split('\n')).toHaveLength(2);
    }
  });

  // one lro after another for every page: the test's bound is for all of them, not speed
  it('cuts at the budget; following the next: commands prints every match exactly once', { timeout: 180_000 }, async () => {
    const all = (await lro(['where', id, 'latency<500', '--max-tokens', '0'], { env })).out;
    let cmd = `lro where ${id} 'latency<500' --max-tokens 300`;
    let got = '';
    for (let i = 0; i < 100 && cmd; i++) {
      const r = bash(cmd);
      const m = /\[lro: [^\n]*; next: (.*)\]\n$/.exec(r.out);
      got += m ? r.out.slice(0, m.index) : r.out;
      cmd = m ? m[1] : '';
    }
    expect(cmd).toBe('');
    expect(got).toBe(all);
  });

  it('a record larger than the budget is shown as a window, with the command for the rest', async () => {
    const big = await store(`${JSON.stringify({ k: 'v', text: 'word '.repeat(5000) })}\n${JSON.stringify({ k: 'w' })}\n`);
    const r = await lro(['where', big, 'k=v', '--max-tokens', '200'], { env });
    expect(r.out).toMatch(/^1:\[0-\d+\/25019\] \{"k":"v","text":"word word/);
    expect(r.out).toMatch(new RegExp(`the rest: lro read ${big} --records 1 --columns \\d+:; next: lro where ${big} k=v --max-tokens 200 --records 2:\\]\\n$`));
    // the rest, read as the line says, is the rest of the record, in the same store when another was named
    const fit = Number(/--columns (\d+):/.exec(r.out)![1]);
    const inDir = await lro(['where', big, 'k=v', '--max-tokens', '200', '--dir', env.LRO_DIR], { env: { ...env, LRO_DIR: '/nonexistent' } });
    const rest = /the rest: lro (read .* --dir \S+);/.exec(inDir.out);
    expect(rest, inDir.out).not.toBeNull();
    const read = await lro([...rest![1].split(' '), '--max-tokens', '0'], { env: { ...env, LRO_DIR: '/nonexistent' } });
    expect(read.code, read.stderr).toBe(0);
    expect(read.out).toBe(`1:[${fit}-25019/25019] ${JSON.stringify({ k: 'v', text: 'word '.repeat(5000) }).slice(fit)}\n`);
    // --fields shows an object of its own, which lro read cannot show the rest of: a larger budget does
    const fields = await lro(['where', big, 'k=v', '--fields', 'text', '--max-tokens', '200'], { env });
    expect(fields.out).toMatch(/more than --max-tokens 200 allows; the rest: a larger --max-tokens; next: lro where /);
  });

  it('numbers compare exactly beyond 2^53 (twitter ids)', async () => {
    const t = await store(readFileSync(corpusFile('json-docs/twitter.json')));
    const r = await lro(['where', t, 'id=505874924095815700', '--fields', 'id,id_str'], { env });
    expect(r.out).toBe('1: {"id":505874924095815700,"id_str":"505874924095815681"}\n');
    // 505874924095815681 and ...700 are one float; as literals they differ
    expect((await lro(['where', t, 'id=505874924095815681', '-c'], { env })).out).toBe('0\n');
    expect((await lro(['where', t, 'id>505874924095815681', 'id<505874924095815701', '-c'], { env })).out).toBe('1\n');
    const s = await lro(['where', t, 'id_str=505874924095815681'], { env });
    expect(s.code).toBe(1);
    expect(s.stderr).toBe(`lro: no record matched: id_str holds string values, not number: for the string, quote it: 'id_str="505874924095815681"'\n`);
    expect((await lro(['where', t, 'id_str="505874924095815681"', '-c'], { env })).out).toBe('1\n');
  });

  it('text results: the line itself is the value; fields are an error that says what to do', async () => {
    const t = await store(readFileSync(corpusFile('loghub/HDFS_2k.log')));
    const r = await lro(['where', t, '.~Got exception', '-m', '1'], { env });
    expect(r.out).toMatch(/^78: 081109 214043 2561 WARN dfs\.DataNode\$DataXceiver: 10\.251\.30\.85:50010:Got exception/);
    const f = await lro(['where', t, 'level=WARN'], { env });
    expect(f.code).toBe(2);
    expect(f.stderr).toMatch(/is text: its lines have no field \.level: test the line itself/);
  });

  it('jsonl lines that are not JSON are skipped, and said so once', async () => {
    const j = await store(`{"a":1}\nnot json\n{"a":2}\n`, ['--format', 'jsonl']);
    const r = await lro(['where', j, 'a>0'], { env });
    expect(r.out).toBe('1: {"a":1}\n3: {"a":2}\n');
    expect(r.stderr).toBe(`lro: skipped 1 record that is not JSON (lro read ${j} --records 2 shows it)\n`);
  });

  it('a pattern that could run away runs where it can be stopped', async () => {
    const j = await store(`${JSON.stringify({ s: `${'a'.repeat(40)}!` })}\n${JSON.stringify({ s: 'aaa' })}\n`);
    const ok = await lro(['where', j, 's~^a+$'], { env }); // unbounded: guarded, and quick
    expect(ok.out).toBe('2: {"s":"aaa"}\n');
    const stuck = await lro(['where', j, 's~^(a|a)+$', '--timeout', '1'], { env });
    expect(stuck.code).toBe(2);
    expect(stuck.stderr).toMatch(/^lro: the pattern made no progress for 1 s/);
  });
});
