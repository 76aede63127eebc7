// End-to-end: `lro jq` against native jq on the same records (`tail -n +2 FILE | jq`), exit codes, budgets,
// engine limits, endless filters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';
import { corpusFile } from '../helpers/corpus.js';
import { followNext, offloaded, shellWords } from '../helpers/pages.js';

let root: string;
let env: Record<string, string>;
beforeAll(() => {
  root = tempDir();
  env = { LRO_DIR: join(root, 'store') };
  if (spawnSync('jq', ['--version']).status !== 0) throw new Error('jq is needed for these tests: apt-get install jq');
});
afterAll(() => cleanup(root));

/** Native jq over the records of a stored result, as the contract defines lro jq. */
function nativeJq(path: string, args: string[]): { code: number; out: string } {
  const r = spawnSync('bash', ['-c', 'tail -n +2 "$0" | jq "$@"', path, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  return { code: r.status ?? -1, out: r.stdout };
}

/** JSON values of a jq output (one per line with -c). */
const values = (out: string) => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as unknown);

const files: [string, [string, string[]][]][] = [
  [
    'json-docs/github_events.json',
    [
      ['select(.type == "PushEvent") | .id', ['-c']],
      ['.actor.login', ['-c']],
      ['{id, type, repo: .repo.name}', ['-c']],
      ['group_by(.type) | map({type: .[0].type, n: length})', ['-s', '-c']],
      ['[paths] | length', ['-c']],
      ['.payload | keys', ['-c']],
      ['[.id, .type, .actor.login] | @tsv', ['-r']],
      ['select(.type == $t) | .repo.name', ['-r', '--arg', 't', 'PushEvent']],
      ['select(.public == $p) | .id', ['-c', '--argjson', 'p', 'true']],
      ['map(.created_at) | sort | first', ['-s', '-r']],
      ['.', []],
    ],
  ],
  [
    'shell-output/go-test-json.out',
    [
      ['select(.Action == "fail") | .Test', ['-r']],
      ['select(.Elapsed != null) | [.Test, .Elapsed]', ['-c']],
      ['map(select(.Output != null)) | length', ['-s']],
      ['.Output // empty | ascii_downcase | select(test("panic"))', ['-r']],
    ],
  ],
  [
    'json-docs/amazon_cellphones.ndjson',
    [
      ['.[1]', ['-r']],
      ['select(.[5] | type == "number" and . > 4.5) | .[0]', ['-c']],
      ['[.[] | type] | unique', ['-c', '-s']],
    ],
  ],
];

describe('lro jq agrees with jq on the same records', () => {
  for (const [file, filters] of files) {
    it(file, async () => {
      const id = await offloaded(corpusFile(file), env);
      const path = JSON.parse((await lro(['info', id], { env })).out).file_path as string;
      for (const [k, [filter, opts]] of filters.entries()) {
        // the first filter as the built binary, the others in this process
        const ours = await (k === 0 ? lro : lroHere)(['jq', id, filter, ...opts, '--max-tokens', '0'], { env });
        const ref = nativeJq(path, [...opts, filter]);
        const what = `${file}: ${opts.join(' ')} ${filter}`;
        expect(ours.code, `${what}: ${ours.stderr}`).toBe(ref.code);
        if (opts.includes('-r')) expect(ours.out, what).toBe(ref.out);
        else if (opts.includes('-c')) expect(values(ours.out), what).toEqual(values(ref.out));
        else expect(JSON.parse(`[${ours.out.trim().replace(/\n(?=[{[\d"tfn-])/g, ',')}]`), what).toEqual(JSON.parse(`[${ref.out.trim().replace(/\n(?=[{[\d"tfn-])/g, ',')}]`));
      }
    });
  }
});

describe('lro jq', () => {
  it('has jq exit codes: 3 compile error, 5 runtime error, -e 1 and 4', async () => {
    const id = await offloaded(corpusFile('json-docs/github_events.json'), env);
    const compile = await lro(['jq', id, '.type |'], { env });
    expect(compile.code).toBe(3);
    expect(compile.stderr).toMatch(/syntax error/);
    const runtime = await lro(['jq', id, '.type | error("boom")'], { env });
    expect(runtime.code).toBe(5);
    expect(runtime.stderr).toMatch(/jq: error \(at record 1\): boom/);
    expect(runtime.stderr).toMatch(/lro: jq printed 30 error lines/);
    expect((await lro(['jq', id, '-e', '.public | not'], { env })).code).toBe(1);
    expect((await lro(['jq', id, '-e', 'empty'], { env })).code).toBe(4);
    expect((await lro(['jq', id, '-e', '.id'], { env })).code).toBe(0);
  });

  it('keeps integers beyond 2^53 digit for digit', async () => {
    const d = JSON.parse((await lroHere(['offload', '--force'], { input: '[{"id": 12345678901234567890, "n": 1.000000000000000005}]', env })).out);
    const r = await lro(['jq', d.id, '-c', '.'], { env });
    expect(r.out).toBe('{"id":12345678901234567890,"n":1.000000000000000005}\n');
  });

  it('prints output exactly as jq does: leading spaces, empty strings, -j', async () => {
    const input = ['  indented', '', '\tTab', 'end  '].map((l) => JSON.stringify(l)).join('\n');
    const d = JSON.parse((await lroHere(['offload', '--force', '--format', 'jsonl'], { input, env })).out);
    for (const args of [['-r', '.'], ['-j', '.'], ['-c', '.'], ['-r', '"", .']]) {
      const ours = await lro(['jq', d.id, ...args], { env });
      expect(ours.out, args.join(' ')).toBe(nativeJq(d.file_path, args).out);
    }
  });

  it('runs on the header with --header', async () => {
    const id = await offloaded(corpusFile('json-docs/github_events.json'), env);
    const r = await lro(['jq', id, '--header', '-r', '.count, .content_type'], { env });
    expect(r.out).toBe('30\njson\n');
  });

  // one lro after another for every page (each with its own bound): the test's bound is for all of them, not speed
  it('cuts at the budget on a record boundary; following the next commands gives every output once', { timeout: 180_000 }, async () => {
    const id = await offloaded(corpusFile('shell-output/go-test-json.out'), env);
    const path = JSON.parse((await lro(['info', id], { env })).out).file_path as string;
    const expected = nativeJq(path, ['-c', 'select(.Output) | {Test, Output}']).out.split('\n').filter(Boolean);
    const { lines: seen, pages } = await followNext(['jq', id, '-c', 'select(.Output) | {Test, Output}', '--max-tokens', '300'], env, [0], 200);
    expect(pages).toBeGreaterThan(5);
    expect(seen).toEqual(expected);
  });

  it('continues a cut pretty-printed output of one big record with --skip-lines', async () => {
    const d = JSON.parse((await lroHere(['offload', '--force'], { input: JSON.stringify({ a: Array.from({ length: 400 }, (_, i) => ({ i })) }), env })).out);
    const all = (await lro(['jq', d.id, '.', '--max-tokens', '0'], { env })).out.split('\n').filter(Boolean);
    const seen: string[] = [];
    let cmd: string[] | null = ['jq', d.id, '.', '--max-tokens', '500'];
    while (cmd) {
      const r = await lro(cmd, { env });
      cmd = null;
      for (const line of r.out.split('\n')) {
        const next = /^\[lro: .*; next: lro (.*)\]$/.exec(line);
        if (next) cmd = shellWords(next[1]);
        else if (line) seen.push(line);
      }
    }
    expect(seen).toEqual(all);
  });

  it('slurps, and turns the engine running out of memory into a clear error', async () => {
    const id = await offloaded(corpusFile('json-docs/github_events.json'), env);
    expect((await lro(['jq', id, '-s', 'length'], { env })).out).toBe('30\n');
    // (unbounded: with a budget, the start of the value is printed before jq's printing of it runs out of stack)
    const deep = await lro(['jq', id, '-n', 'reduce range(100000) as $_ ([];[.])', '--max-tokens', '0'], { env, timeout: 60_000 });
    expect(deep.code).toBe(2);
    expect(deep.stderr).toMatch(/^lro: jq ran out of memory .*too large to slurp; try a streaming filter or narrow it with grep first/);
    expect(deep.stderr).not.toMatch(/RuntimeError|at .*\.js/);
  });

  // jq's output is taken into the budget as jq writes it, and jq is stopped there: before, a record's outputs
  // were all collected first (range(1e8): nothing printed, stopped after the timeout)
  it('stops jq once the output of one record is past the budget, with the next command', async () => {
    const d = JSON.parse((await lroHere(['offload', '--force'], { input: '{"a":1}', env })).out);
    const r = await lro(['jq', d.id, 'range(1e8)', '--timeout', '20'], { env, timeout: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines.slice(0, 3)).toEqual(['0', '1', '2']);
    const shown = lines.length - 1;
    expect(lines.at(-1)).toBe(`[lro: output cut at --max-tokens 2000; next: lro jq ${d.id} 'range(1e8)' --records 1: --skip-lines ${shown}]`);
    // one endless line (-j: the whole output is one line) and one call of the engine (-n) are cut the same way
    const joined = await lro(['jq', d.id, '-j', 'range(1e8)', '--timeout', '20'], { env, timeout: 60_000 });
    expect(joined.code, joined.stderr).toBe(0);
    expect(joined.out).toMatch(/^012345.*…\n\[lro: this output line has at least [\d,]+ characters, more than --max-tokens 2000 allows/);
    const nullInput = await lro(['jq', d.id, '-n', '-c', 'range(1e8)', '--timeout', '20'], { env, timeout: 60_000 });
    expect(nullInput.code, nullInput.stderr).toBe(0);
    expect(nullInput.out).toMatch(/\n\[lro: output cut at --max-tokens 2000; next: lro jq \S+ 'range\(1e8\)' -c -n --skip-lines \d+\]\n$/);
  });

  it('cuts inside the one record of a batch whose output explodes, resuming at that record', async () => {
    const input = Array.from({ length: 2000 }, (_, i) => JSON.stringify({ i: i + 1 })).join('\n');
    const d = JSON.parse((await lroHere(['offload', '--force', '--format', 'jsonl'], { input, env })).out);
    const filter = 'if .i == 300 then range(1e8) else .i end';
    const r = await lro(['jq', d.id, filter, '--timeout', '20'], { env, timeout: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    const next = /^\[lro: output cut at --max-tokens 2000; next: lro jq \S+ .* --records 300: --skip-lines (\d+)\]$/.exec(lines.at(-1)!);
    expect(next, lines.at(-1)).not.toBeNull();
    const k = Number(next![1]);
    const expected = [...Array.from({ length: 299 }, (_, i) => String(i + 1)), ...Array.from({ length: k }, (_, i) => String(i))];
    expect(lines.slice(0, -1)).toEqual(expected);
  });

  it('continues a cut output of -n with the lines it skipped counted once', async () => {
    const id = await offloaded(corpusFile('json-docs/github_events.json'), env);
    const page = await lro(['jq', id, '-n', '-c', 'range(100)', '--max-tokens', '30', '--skip-lines', '12'], { env });
    const shown = page.out.trimEnd().split('\n').slice(0, -1);
    expect(shown[0]).toBe('12');
    expect(page.out).toContain(`--skip-lines ${12 + shown.length} `);
    const { lines } = await followNext(['jq', id, '-n', '-c', 'range(100)', '--max-tokens', '30'], env);
    expect(lines).toEqual(Array.from({ length: 100 }, (_, i) => String(i)));
  });

  it('stops an endless filter within the timeout, exit 2', async () => {
    const id = await offloaded(corpusFile('json-docs/github_events.json'), env);
    const start = Date.now();
    const r = await lro(['jq', id, 'last(range(infinite))', '--timeout', '2'], { env, timeout: 30_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^lro: the jq filter ran 2 s without finishing/);
    expect(Date.now() - start).toBeLessThan(15_000);
    const rep = await lro(['jq', id, 'repeat(1)', '--max-tokens', '0', '--timeout', '5'], { env, timeout: 60_000 });
    expect(rep.code).toBe(2);
    expect(rep.stderr).toMatch(/^lro: /);
  });

  // A filter that allocates rather than loops, over many records: each call that died (or was stopped past the
  // budget) was run again on half its records, a dozen calls of up to the engine's memory and the timeout each
  // (`[range(1e9)]` 77-90 s, `def f: [f]; f` 53 s, `"x" * 1e9` 32-38 s and 4.9 GB resident).
  describe('a filter that allocates, over many records', () => {
    let id: string;
    beforeAll(async () => {
      const input = Array.from({ length: 50_000 }, (_, i) => JSON.stringify({ i: i + 1, s: 'some text' })).join('\n');
      id = JSON.parse((await lroHere(['offload', '--force', '--format', 'jsonl'], { input, env })).out).id;
    });

    // (how many calls each takes is counted in test/engines/jq-calls.test.ts: here, what the binary prints)
    it('dies on every record: one line naming the first', async () => {
      const r = await lro(['jq', id, 'def f: [f]; f', '--timeout', '60'], { env, timeout: 120_000 });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^lro: jq ran out of memory or stack on record 1 \(.*\n$/);
    });

    it('dies on one record deep in: one line, the calls that died past their one allowance, the --timeout', async () => {
      // (in the second batch: the first is printed before; a call dies after about 1.5 s, or more under load)
      const filter = 'if .i == 15000 then def f: [f]; f else .i end | select(. == 1)';
      const r = await lro(['jq', id, filter, '--timeout', '4'], { env, timeout: 120_000 });
      expect(r.code).toBe(2);
      expect(r.out).toBe('1\n');
      expect(r.stderr).toMatch(/^lro: (jq ran out of memory or stack, or past the output budget, in calls that together took [\d.]+ s, the --timeout \(4 s\), the last on records? [\d:]+|the jq filter ran 4 s without finishing .*): check the filter/);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    });

    it('makes one huge line (1 GB): cut, the next command skipping it', async () => {
      // one call of about 1.5 s here, more than the default 10 s on a slow CI machine
      const r = await lro(['jq', id, 'if .i == 2 then "x" * 1e9 else empty end', '--timeout', '60'], { env, timeout: 120_000 });
      expect(r.code, r.stderr).toBe(0);
      expect(r.out).toMatch(/^"x{100,}…\n\[lro: this output line has at least [\d,]+ characters, more than --max-tokens 2000 allows .*--records 1: --skip-lines 1\]\n$/);
    });
  });

  it('skips the non-JSON lines of a jsonl result, saying so', async () => {
    const d = JSON.parse((await lroHere(['offload', '--force'], { input: '{"a":1}\n{"a":2}\ngarbage\n{"a":3}\n{"a":4}\n', env })).out);
    const r = await lro(['jq', d.id, '-c', '.a'], { env });
    expect(r.out).toBe('1\n2\n3\n4\n');
    expect(r.stderr).toMatch(/lro: skipped 1 record that is not JSON \(lro read \S+ --records 3 shows it\)/);
  });

  // as with jq 1.8: after --, a word is the filter even if it looks like an option (jq's own -h, --seq)
  it('takes a filter that starts with "-" after --, and says so when one is taken for an option', async () => {
    const d = JSON.parse((await lroHere(['offload', '--force'], { input: '{"a":1}', env })).out);
    expect((await lro(['jq', d.id, '--', '-.a'], { env })).out).toBe('-1\n');
    const help = await lro(['jq', d.id, '--', '-h'], { env });
    expect(help.code).toBe(3);
    expect(help.stderr).toMatch(/^jq: error: h\/0 is not defined/);
    for (const word of ['--seq', '-.a']) {
      const r = await lro(['jq', d.id, word], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`lro: unknown option '${word}' (if it is the filter, write it after --: lro jq ID [options] -- ${word}): see lro jq --help\n`);
    }
    // the next command of a cut output writes such a filter after -- too
    const { lines } = await followNext(['jq', d.id, '--max-tokens', '10', '--', '-(range(40))'], env);
    expect(lines).toEqual(Array.from({ length: 40 }, (_, i) => String(-i)));
  });

  it('refuses bad options with exit 2', async () => {
    const id = await offloaded(corpusFile('json-docs/github_events.json'), env);
    for (const args of [['--arg', '1x', 'v'], ['--records', '5:1'], ['--timeout', '0'], ['--header', '--records', '1:2']]) {
      const r = await lro(['jq', id, '.', ...args], { env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(execFileSync('true').length).toBe(0);
  });
});
