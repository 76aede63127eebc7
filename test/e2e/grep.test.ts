// End-to-end: `lro grep` against ripgrep on the original logs, JSON records, budgets, exit codes, runaway patterns.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';
import { corpusDir, corpusFile } from '../helpers/corpus.js';
import { followNext, offloaded } from '../helpers/pages.js';

let root: string;
let env: Record<string, string>;
beforeAll(() => {
  root = tempDir();
  env = { LRO_DIR: join(root, 'store') };
  const rg = spawnSync('rg', ['--version']);
  if (rg.status !== 0) throw new Error('ripgrep (rg) is needed for these tests: apt-get install ripgrep');
});
afterAll(() => cleanup(root));

/** grep-style output lines: [kind, number, text] ('--' for a gap), CR at line ends dropped. */
function parse(out: string): [string, number, string][] {
  return out
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      if (l.replace(/\r$/, '') === '--') return ['--', 0, ''] as [string, number, string];
      const m = /^(\d+)([:-])([\s\S]*)$/.exec(l);
      if (!m) throw new Error(`unexpected line: ${l.slice(0, 80)}`);
      return [m[2], Number(m[1]), m[3].replace(/\r$/, '')] as [string, number, string];
    })
    // a long record's windows (`N:[A-B/LENGTH] …`, one line each) stand for the one line rg prints
    .filter((e, i, all) => !(i > 0 && e[0] !== '--' && all[i - 1][0] === e[0] && all[i - 1][1] === e[1] && /^\[\d+-\d+\/\d+\] /.test(e[2])));
}

const logs = ['Android_2k.log', 'Apache_2k.log', 'HDFS_2k.log', 'HealthApp_2k.log', 'Linux_2k.log', 'OpenSSH_2k.log', 'Proxifier_2k.log', 'Spark_2k.log'];
const cases: [string, string[]][] = [
  ['error', []],
  ['error', ['-i']],
  ['Failed password', ['-F']],
  ['ERROR|WARN|FATAL', []],
  ['blk_-?[0-9]+', []],
  ['^Jun 1[45]', []],
  ['ssh2$', []],
  ['session (opened|closed)', []],
  ['user', ['-w']],
  ['[0-9]{3}\\.[0-9]+\\.[0-9]+\\.[0-9]+', []],
  ['exception', ['-i', '-C', '2']],
  ['terminating', ['-A', '1', '-m', '20']],
  ['Receiving block', ['-B', '3', '-m', '10']],
  ['INFO', ['-v', '-m', '50']],
  ['\\bkernel\\b', ['-c']],
];

/** The logs compared in `npm test`: one with CRLF line ends, one with LF; the soak compares the rest. */
const QUICK = ['OpenSSH_2k.log', 'Proxifier_2k.log'];

describe('lro grep agrees with rg -n on the original text', () => {
  for (const log of logs) {
    it(log, { tags: QUICK.includes(log) ? [] : ['soak'] }, async () => {
      const file = corpusFile(`loghub/${log}`);
      const id = await offloaded(file, env);
      for (const [k, [pattern, opts]] of cases.entries()) {
        // the first case as the built binary, the others in this process
        const ours = await (k === 0 ? lro : lroHere)(['grep', id, pattern, ...opts, '--max-tokens', '0'], { env });
        // rg --crlf: lro stores CRLF lines without the CR, so $ matches before it, as here
        const ref = spawnSync('rg', ['-n', '--crlf', '--no-heading', '--color=never', ...opts, '--', pattern, file], { encoding: 'utf8' });
        const what = `${log}: ${pattern} ${opts.join(' ')}`;
        expect(ours.code, `${what}: ${ours.stderr}`).toBe(ref.status);
        if (opts.includes('-c')) {
          expect(ours.out.trim(), what).toBe((ref.stdout || '0').trim());
          continue;
        }
        const a = parse(ours.out);
        const b = parse(ref.stdout);
        expect(a.map(([k, n]) => `${k}${n}`), what).toEqual(b.map(([k, n]) => `${k}${n}`));
        // text too, except for records over 1000 characters, which lro shows as windows
        a.forEach(([, , text], i) => {
          if (b[i][2].length <= 1000) expect(text, `${what} line ${b[i][1]}`).toBe(b[i][2]);
        });
      }
    });
  }
});

describe('lro grep on a result larger than its read chunks', () => {
  it('agrees with rg -n across chunk boundaries, with context', async () => {
    // about 12 MB: every corpus log, repeated, so lines straddle the 4 MB chunks
    const logs = ['Android_2k.log', 'HDFS_2k.log', 'OpenSSH_2k.log', 'Spark_2k.log', 'Linux_2k.log'].map((l) => readFileSync(corpusFile(`loghub/${l}`)));
    const unit = Buffer.concat(logs);
    const big = Buffer.concat(Array.from({ length: Math.ceil(12e6 / unit.length) }, () => unit));
    const file = join(root, 'big.log');
    writeFileSync(file, big);
    const id = await offloaded(file, env);
    for (const [pattern, opts] of [['Failed password', []], ['session (opened|closed)', ['-C', '1']], ['zzz-none', []], ['WARN', ['-c']]] as [string, string[]][]) {
      const ours = await lro(['grep', id, pattern, ...opts, '--max-tokens', '0'], { env });
      const ref = spawnSync('rg', ['-n', '--crlf', '--no-heading', '--color=never', ...opts, '--', pattern, file], { encoding: 'utf8', maxBuffer: 1 << 30 });
      expect(ours.code, pattern).toBe(ref.status);
      expect(ours.out === ref.stdout.replace(/\r(?=\n)/g, ''), `${pattern}: output differs from rg`).toBe(true);
    }
  });
});

describe('lro grep', () => {
  it('matches JSON records as compact JSON', async () => {
    const records = Array.from({ length: 300 }, (_, i) => ({ id: i, status: i % 30 === 0 ? 'error' : 'ok', msg: `message ${i}` }));
    const input = records.map((r) => JSON.stringify(r, null, 0).replace(/,/g, ', ').replace(/":/g, '": ')).join('\n');
    const d = JSON.parse((await lroHere(['offload', '--force'], { input, env })).out);
    expect(d.summary.content_type).toBe('jsonl');
    const r = await lro(['grep', d.id, '"status":"error"', '-c'], { env });
    expect(r.out).toBe('10\n');
    const j = await lro(['grep', d.id, '"id":30,', '--json'], { env });
    const obj = JSON.parse(j.out.trim());
    expect(obj).toMatchObject({ type: 'match', record: 31, text: '{"id":30,"status":"error","msg":"message 30"}', offset: 0, matches: [{ start: 1, end: 9 }] });
  });

  it('exits 0 on a match, 1 on none, 2 on a bad pattern or id', async () => {
    const id = await offloaded(corpusFile('loghub/Linux_2k.log'), env);
    expect((await lro(['grep', id, 'sshd'], { env })).code).toBe(0);
    expect((await lro(['grep', id, 'zzzz-not-there'], { env })).code).toBe(1);
    const bad = await lro(['grep', id, '(unclosed'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^lro: invalid regular expression '\(unclosed'.*-F/);
    expect((await lro(['grep', 'nope', 'x'], { env })).code).toBe(2);
    expect((await lro(['grep', id, 'x', '-m', 'many'], { env })).code).toBe(2);
  });

  it('cuts at the budget; the next commands find every match once', { tags: ['soak'] }, async () => {
    const id = await offloaded(corpusFile('loghub/OpenSSH_2k.log'), env);
    const { lines, pages } = await followNext(['grep', id, 'Failed password|Invalid user', '--max-tokens', '400'], env, [0, 1]);
    const seen = lines.map((l) => Number(/^(\d+):/.exec(l)![1]));
    const ref = execFileSync('rg', ['-n', 'Failed password|Invalid user', corpusFile('loghub/OpenSSH_2k.log')], { encoding: 'utf8' });
    const expected = ref.split('\n').filter(Boolean).map((l) => Number(l.split(':')[0]));
    expect(pages).toBeGreaterThan(5);
    expect(seen).toEqual(expected);
  });

  /** 120 lines, every tenth a MATCH: stored once for the tests of cuts inside a match's context. */
  let contextCut: { id: string; file: string } | undefined;
  async function contextCutResult(): Promise<{ id: string; file: string }> {
    if (contextCut) return contextCut;
    const text = `${Array.from({ length: 120 }, (_, i) => `line ${i + 1} ${(i + 1) % 10 === 0 ? 'MATCH here' : 'plain filler words'}`).join('\n')}\n`;
    const file = join(root, 'context-cut.log');
    writeFileSync(file, text);
    contextCut = { id: await offloaded(file, env), file };
    return contextCut;
  }

  // one test a set of flags: each follows a dozen next: commands, a few seconds each set on a loaded machine
  it.each([[['-A', '3']], [['-A', '3', '-m', '7']], [['-B', '2', '-A', '12']]])(
    "a cut inside a match's context (%j): the parts followed by next: give rg's lines, each once, in order",
    async (flags) => {
      const { id, file } = await contextCutResult();
      const whole = (await lro(['grep', id, 'MATCH', ...flags, '--max-tokens', '0'], { env })).out;
      const { lines, pages } = await followNext(['grep', id, 'MATCH', ...flags, '--max-tokens', '60'], env, [0, 1]);
      expect(pages).toBeGreaterThan(2);
      // every line once, in order (a part never starts with the -- between groups)
      const records = (out: string[]) => out.filter((l) => l !== '--');
      expect(records(lines)).toEqual(records(whole.trimEnd().split('\n')));
      const rg = execFileSync('rg', ['-n', 'MATCH', ...flags, file], { encoding: 'utf8' });
      expect(whole).toBe(rg);
    },
  );

  it("a cut inside a match's after-context: the next part starts with the rest of it (--from)", async () => {
    const { id } = await contextCutResult();
    // the next command a cut inside the after-context of record 20 gives
    const first = (await lro(['grep', id, 'MATCH', '-A', '3', '--max-tokens', '60'], { env })).out;
    const [, start, from] = /next: lro grep \w+ MATCH -A 3 --max-tokens 60 --records (\d+): --from (\d+)\]\n$/.exec(first)!;
    expect(Number(from) - Number(start)).toBe(3);
    expect(first).toContain(`\n${Number(from) - 1}-line ${Number(from) - 1} plain`); // the cut is inside a context
    const bad = await lro(['grep', id, 'MATCH', '--from', 'x'], { env });
    expect([bad.code, bad.stderr]).toEqual([2, "lro: invalid --from 'x': with one result, give a record number N (1 or more)\n"]);
  });

  it('shows windows around matches in a very long record', async () => {
    const items = Array.from({ length: 20_000 }, (_, i) => (i === 12_345 ? '"needle"' : `"hay${i}"`));
    const d = JSON.parse((await lroHere(['offload', '--force', '--format', 'jsonl'], { input: `[${items.join(',')}]\n`, env })).out);
    const r = await lro(['grep', d.id, 'needle'], { env });
    expect(r.code).toBe(0);
    const m = /^1:\[(\d+)-(\d+)\/(\d+)\] …(.*)…$/.exec(r.out.trim());
    expect(m).not.toBeNull();
    expect(m![4]).toContain('"hay12344","needle","hay12346"');
    expect(r.out.length).toBeLessThan(400);
  });

  it('a long record with a match every few characters: bounded windows, printed within the budget, exit 0', async () => {
    const input = `${Array.from({ length: 8000 }, (_, i) => `function f${i}(a,b){return a+b};`).join('')}\n`;
    const d = JSON.parse((await lroHere(['offload', '--force'], { input, env })).out);
    const r = await lro(['grep', d.id, 'return'], { env });
    expect(r.code, r.out.slice(0, 300) + r.stderr).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines).toHaveLength(11);
    for (const l of lines.slice(0, 10)) expect(l).toMatch(/^1:\[\d+-\d+\/254890\] .*return/);
    expect(lines[10]).toMatch(/^1:\[… \d+ more windows with matches in this record\]$/);
    expect(r.out).not.toContain('next:'); // it was: nothing printed, exit 1, and a next command repeating this one
    // a budget smaller than one window: the record's start, cut, still exit 0, and how to read all of it
    const small = await lro(['grep', d.id, 'return', '--max-tokens', '60'], { env });
    expect(small.code).toBe(0);
    expect(small.out).toMatch(
      new RegExp(`^1:\\[0-\\d+/254890\\] function f0\\(a,b\\)\\{return a\\+b\\};.*…\\n\\[lro: record 1 is larger than --max-tokens 60 allows and is shown in part; all of it: lro read ${d.id} --records 1\\]\\n$`),
    );
  });

  it('a line larger than the whole budget is shown cut, with the command that reads all of it', async () => {
    const line = `1 error ${Array.from({ length: 75 }, (_, i) => `word${i}`).join(' ')}`;
    const d = JSON.parse((await lroHere(['offload', '--force'], { input: `${line}\n2 fine\n`, env })).out);
    const r = await lro(['grep', d.id, 'error', '--max-tokens', '40'], { env });
    expect(r.code).toBe(0);
    const [shown, note, ...rest] = r.out.split('\n');
    expect(shown).toMatch(/^1:1 error word0 .*…$/);
    expect(line.startsWith(shown.slice(2, -1))).toBe(true);
    expect(rest).toEqual(['']);
    const read = /; all of it: lro (read \S+ --records 1)\]$/.exec(note);
    expect(read, note).not.toBeNull();
    const whole = await lro([...read![1].split(' '), '--max-tokens', '0'], { env });
    expect(whole.out).toBe(`1: ${line}\n`);
    // searched in a store named by --dir: the command names it too (it read another store, or none)
    const elsewhere = { ...env, LRO_DIR: '/nonexistent' };
    const inDir = await lro(['grep', d.id, 'error', '--max-tokens', '40', '--dir', env.LRO_DIR], { env: elsewhere });
    const there = /; all of it: lro (read \S+ --records 1 --dir \S+)\]$/.exec(inDir.out.split('\n')[1]);
    expect(there, inDir.out).not.toBeNull();
    expect((await lro([...there![1].split(' '), '--max-tokens', '0'], { env: elsewhere })).out).toBe(`1: ${line}\n`);
  });

  it('-m 0 selects nothing and prints nothing, -c included, as grep: exit 1', async () => {
    const d = JSON.parse((await lroHere(['offload', '--force'], { input: `${'error here\n'.repeat(3000)}`, env })).out);
    for (const flags of [['-m', '0'], ['-c', '-m', '0']]) {
      const r = await lro(['grep', d.id, 'error', ...flags], { env });
      expect([r.code, r.out, r.stderr], flags.join(' ')).toEqual([1, '', '']);
    }
  });

  it('stops a runaway pattern within the timeout, exit 2', async () => {
    const input = `${'a'.repeat(50_000)}!\nsecond line\n`;
    const d = JSON.parse((await lroHere(['offload', '--force'], { input, env })).out);
    const start = Date.now();
    // (a lookahead keeps the pattern from lro's own engine, search/dfa.ts: the JavaScript regex runs it)
    const r = await lro(['grep', d.id, '(a+)+(?=$)', '--timeout', '2'], { env, timeout: 30_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^lro: the pattern made no progress for 2 s/);
    expect(Date.now() - start).toBeLessThan(15_000);
    const i = await lro(['grep', d.id, '(a|aa)+(?=$)', '-i', '--timeout', '2'], { env, timeout: 30_000 });
    expect(i.code).toBe(2);
    // lro's engine takes the same patterns without the lookahead: linear, nothing to stop
    for (const p of ['(a+)+$', '(a|aa)+$']) {
      const dfa = await lro(['grep', d.id, p, '-i', '--timeout', '2'], { env, timeout: 30_000 });
      expect([dfa.code, dfa.out, dfa.stderr]).toEqual([1, '', '']);
    }
  });

  // progress by offset: `a+b` ends every attempt (each reads the rest of the line), `(a+)+b` never ends its first
  it('tells a pattern only slow on a huge line from a stuck one, and says what to do instead', async () => {
    const input = `${'a'.repeat(256 << 10)}\nsecond line\n`;
    const d = JSON.parse((await lroHere(['offload', '--force'], { input, env })).out);
    // (a+(?=\s) requires no literal: a+b would be ruled out by its literal ab without running; the lookahead
    // keeps it from lro's own engine, which takes a+\s in linear time)
    const slow = await lro(['grep', d.id, 'a+(?=\\s)', '--timeout', '1'], { env, timeout: 30_000 });
    expect(slow.code).toBe(2);
    expect(slow.stderr).toMatch(/^lro: the pattern is slow on record 1 \(262 kB in one line\), not stuck: each of its 262,144 starting positions takes about [\d.]+ ms/);
    expect(slow.stderr).toContain(`use -F for a fixed string, a narrower pattern`);
    expect(slow.stderr).toContain(`lro read ${d.id} --records 1 --columns 1:2000`);
    expect(slow.stderr).not.toMatch(/catastrophic/);
    // ((a+)+b is ruled out without running: no record holds a b, search/chunk-regex.ts finds)
    const stuck = await lro(['grep', d.id, '(a+)+(?=\\s)', '--timeout', '1'], { env, timeout: 30_000 });
    expect(stuck.code).toBe(2);
    expect(stuck.stderr).toMatch(/^lro: the pattern made no progress for 1 s on record 1 \(262 kB\), stuck at offset 0 \(catastrophic backtracking\?\)/);
    for (const p of ['a+\\s', '(a+)+\\s']) {
      const dfa = await lro(['grep', d.id, p, '--timeout', '1'], { env, timeout: 30_000 });
      expect([dfa.code, dfa.out, dfa.stderr]).toEqual([1, '', '']);
    }
  });

  it('--explain says which engine runs a pattern and why, and searches nothing', async () => {
    const d = JSON.parse((await lroHere(['offload', '--force'], { input: 'size 12345678 x\nquux q12u\n', env })).out);
    const explain = async (...args: string[]) => {
      const r = await lro(['grep', d.id, ...args, '--explain'], { env });
      expect(r.code).toBe(0);
      return r.out;
    };
    expect(await explain('q[a-z0-9]{2}u')).toMatch(/^engine: lro's DFA \(linear time by construction: a lazy DFA over \d+ byte classes, in WebAssembly\), as no literal is required by every match\n/);
    expect(await explain('size\\s[0-9]{8}\\s')).toMatch(/^engine: literal scan \(the SIMD kernel\) for "size"\nthen: lro's DFA/);
    expect(await explain('-F', 'q12u')).toMatch(/^engine: literal scan .* for "q12u"\na hit in a record without escapes is a match/);
    expect(await explain('(q)\\1')).toMatch(/^not lro's DFA: it has a backreference\nengine: the JavaScript regex \(backtracking: watched, stopped after the timeout\), record by record/);
    expect(await explain('\\d-?\\d', '-w')).toMatch(/^engine: lro's DFA as a prefilter .*\nword boundaries \(\\b, \\B, -w\) are not in it/);
    expect(await explain('\\d\\-\\d')).toMatch(/^not lro's DFA: it is valid only without the u flag .*\nengine: the JavaScript regex .* over 64 KB windows/);
  });

  it('searches a range of records', async () => {
    const id = await offloaded(corpusFile('loghub/HDFS_2k.log'), env);
    const r = await lro(['grep', id, 'INFO', '--records', '10:12'], { env });
    expect(parse(r.out).map(([, n]) => n)).toEqual([10, 11, 12]);
  });

  it('finds matches in every corpus text, fast path and slow path alike', async () => {
    const dir = corpusDir();
    const id = await offloaded(join(dir, 'binary/sherlock-nul.txt'), env);
    const text = readFileSync(join(dir, 'binary/sherlock-nul.txt'), 'latin1').split('\n');
    const expected = text.map((l, i) => (/Holmes/.test(l) ? i + 1 : 0)).filter(Boolean);
    const fast = await lro(['grep', id, 'Holmes', '-c'], { env });
    const slow = await lro(['grep', id, 'Holm[e]s', '-c'], { env });
    expect(fast.out.trim()).toBe(String(expected.length));
    expect(slow.out.trim()).toBe(String(expected.length));
  });
});
