// Hostile arguments: ids that try to leave the store or break the message, ranges that are negative, reversed,
// zero, not numbers, past the end or absurdly large, regular expressions that backtrack for ages, jq filters that
// never end. Each ends within a bounded time with one clear line (or a normal answer), and the store is left
// exactly as it was.
// @module-tag soak: every test here is part of `npm run test:soak`, not of `npm test` (vitest.config.ts)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { resolveResult } from '../../src/store/resolve.js';
import { LroError } from '../../src/errors.js';
import { linearTime } from '../../src/search/pattern.js';
import { parseRange } from '../../src/ranges.js';
import { BIN, cleanup, lro as run, tempDir } from '../helpers/cli.js';
import { expectOneLineError, pool, report, snapshot, timed as timedRun } from './lib.js';

let root: string;
let store: string;
let before: Record<string, string>;
let textId: string;
let jsonlId: string;
const env = () => ({ LRO_DIR: store });
/** Generous bound for anything hostile given --timeout 1 (the worker start, the stall, the exit). */
const BOUND_MS = 30_000;

beforeAll(async () => {
  root = tempDir('lro-torture-hostile-');
  store = join(root, 'store');
  // long runs of "a" that end in something the catastrophic patterns cannot match, and a line with 19 a's
  // spread out for (.*a){20}
  const text = [...Array.from({ length: 29 }, (_, i) => `${'a'.repeat(i % 2 ? 40 : 5000)}!`), `${'xa'.repeat(19)}${'y'.repeat(3000)}`].join('\n');
  const t = await lro(['offload', '--force', '--operation', 'text'], { input: text, env: env() });
  textId = JSON.parse(t.out).id;
  const jsonl = Array.from({ length: 50 }, (_, i) => JSON.stringify({ n: i, s: 'a'.repeat(30) })).join('\n');
  const j = await lro(['offload', '--force', '--operation', 'jsonl'], { input: jsonl, env: env() });
  jsonlId = JSON.parse(j.out).id;
  // a FIFO named like a result: opening it must not block
  execFileSync('mkfifo', [join(root, 'lro-offload-01ARZ3NDEKTSV4RRFFQ69G5FAV.jsonl')]);
  writeFileSync(join(root, 'notes.txt'), 'not lro\n');
  before = snapshot(store);
});
/** Hostile invocations run (for the soak's figures). */
let cases = 0;
const lro: typeof run = (...a) => (cases++, run(...a));
const timed: typeof timedRun = (...a) => (cases++, timedRun(...a));
afterAll(() => {
  const after = snapshot(store);
  const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => before[k] !== after[k]).length;
  report({ suite: 'hostile', cases, losses: changed });
  cleanup(root);
});

const COMMANDS: [string, (ref: string) => string[]][] = [
  ['cat', (ref) => ['cat', ref]],
  ['info', (ref) => ['info', ref]],
  ['read', (ref) => ['read', ref]],
  ['grep', (ref) => ['grep', ref, 'a']],
  ['jq', (ref) => ['jq', ref, '.']],
  ['where', (ref) => ['where', ref, 'a=1']],
  ['count', (ref) => ['count', ref, '--by', 'a']],
];

describe('hostile ids', () => {
  const ids = () => [
    '/',
    '..',
    '../',
    '../../../../etc/passwd',
    `${store}/../notes.txt`,
    '/etc/passwd',
    '/dev/zero',
    '/dev/stdin',
    '/proc/self/fd/0',
    join(root, 'lro-offload-01ARZ3NDEKTSV4RRFFQ69G5FAV.jsonl'), // a FIFO
    join(store, '..', 'store', 'lro-offload-01ARZ3NDEKTSV4RRFFQ69G5FAV.jsonl'), // missing
    'lro-offload-01ARZ3NDEKTSV4RRFFQ69G5FAV.jsonl',
    'a'.repeat(100_000),
    '/'.repeat(50_000),
    '🙂'.repeat(2000),
    'ｌａｓｔ',
    'LAST',
    ' last',
    '-',
    '',
    'x\ny\rz',
    '\u001b[31mred',
    '01ARZ3NDEKTSV4RRFFQ69G5FAV', // a ULID that is not there
    '01ARZ3NDEKTSV4RRFFQ69G5FA', // one short
    '81ARZ3NDEKTSV4RRFFQ69G5FAV', // time part too large
    `${textId}/`,
    `${textId}.jsonl`,
  ];

  for (const [cmd, args] of COMMANDS) {
    it(`lro ${cmd} refuses each with one line and exit 2, quickly`, async () => {
      const problems: string[] = [];
      for (const id of ids()) {
        const r = await timed(args(id), { env: env(), timeout: BOUND_MS });
        try {
          expectOneLineError(r, id.slice(0, 40));
          expect(r.ms).toBeLessThan(BOUND_MS);
          expect(r.stdout.length).toBe(0);
        } catch {
          problems.push(`${JSON.stringify(id.slice(0, 40))}: exit ${r.code} ${r.signal ?? ''} ${JSON.stringify(r.stderr.slice(0, 200))}`);
        }
      }
      expect(problems).toEqual([]);
    });
  }

  it('an id with a NUL byte (which no argv can carry) is refused by the library', () => {
    expect(() => resolveResult(`${textId}\0`, { dir: store, env: {} })).toThrow(LroError);
    expect(() => resolveResult('../\0/etc/passwd', { dir: store, env: {} })).toThrow(/NUL/);
  });

  it('an option-like id is a usage error, not a file', async () => {
    for (const id of ['-rf', '--dir', '--']) {
      const r = await lro(['cat', id], { env: env() });
      expectOneLineError(r, id);
    }
  });
});

describe('hostile ranges', () => {
  const bad: [string, string[]][] = [
    ['read', ['--records', '-5']],
    ['read', ['--records', '5:1']],
    ['read', ['--records', '0']],
    ['read', ['--records', '0:0']],
    ['read', ['--records', 'abc']],
    ['read', ['--records', '1e30']],
    ['read', ['--records', '1000000000000000000000000000000']],
    ['read', ['--records', ':']],
    ['read', ['--records', '1:2:3']],
    ['read', ['--records', '🙂']],
    ['read', ['--records', '31:']],
    ['read', ['--lines', '-1:']],
    ['read', ['--head', '-1']],
    ['read', ['--head', '1e30']],
    ['read', ['--tail', '-3']],
    ['read', ['--chars', '-1:5']],
    ['read', ['--chars', '5:1']],
    ['read', ['--chars', '1e30:']],
    ['read', ['--chars', '1000000000000000000000000000000:']],
    ['read', ['--chars', '99999999:']],
    ['read', ['--columns', '9:2']],
    ['read', ['--max-tokens', '-1']],
    ['read', ['--records', '1:2', '--head', '3']],
    ['grep', ['a', '--records', '5:1']],
    ['grep', ['a', '--records', '31:']],
    ['grep', ['a', '--records', '0']],
    ['grep', ['a', '-m', '-1']],
    ['grep', ['a', '-C', '-1']],
    ['grep', ['a', '-A', 'many']],
    ['grep', ['a', '--timeout', '0']],
    ['grep', ['a', '--timeout', '-1']],
    ['grep', ['a', '--max-tokens', 'lots']],
    ['jq', ['.', '--records', '5:1']],
    ['jq', ['.', '--records', '31:']],
    ['jq', ['.', '--records', '-2']],
    ['jq', ['.', '--skip-lines', '-1']],
    ['jq', ['.', '--indent', '99']],
    ['jq', ['.', '--argjson', 'x', '{bad']],
    ['jq', ['.', '--arg', '1x', 'v']],
    ['jq', ['.', '--timeout', '0']],
    ['offload', ['--ttl', '99999999999d']],
    ['offload', ['--ttl', '-1s']],
    ['offload', ['--threshold', '-5']],
    ['offload', ['--preview-tokens', 'lots']],
  ];
  it('bad ranges and counts are one-line usage errors (exit 2)', async () => {
    const problems: string[] = [];
    for (const [cmd, args] of bad) {
      const r = await timed(cmd === 'offload' ? [cmd, '--force', ...args] : [cmd, textId, ...args], { env: env(), timeout: BOUND_MS, input: 'x\n' });
      try {
        expectOneLineError(r, `${cmd} ${args.join(' ')}`);
        expect(r.stdout.length).toBe(0);
      } catch {
        problems.push(`${cmd} ${args.join(' ')}: exit ${r.code} ${JSON.stringify(r.stderr.slice(0, 200))} ${JSON.stringify(r.out.slice(0, 100))}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('huge but valid ends mean "to the end", and the next command printed stays runnable', async () => {
    const huge = '1000000000000000000000000000000';
    for (const [cmd, args] of [
      ['read', ['--records', `2:${huge}`, '--max-tokens', '50']],
      ['grep', ['a', '--records', `2:${huge}`, '--max-tokens', '50']],
      ['jq', ['-c', '.', '--records', `2:${huge}`, '--max-tokens', '50']],
    ] as [string, string[]][]) {
      const id = cmd === 'jq' ? jsonlId : textId;
      const r = await lro([cmd, id, ...args], { env: env() });
      expect(r.code, `${cmd}: ${r.stderr}`).toBe(0);
      const next = /next: (lro .*)\]$/m.exec(r.out);
      expect(next, `${cmd} prints a next command`).not.toBeNull();
      expect(next![1]).not.toMatch(/e\+/);
      expect(next![1]).toMatch(/--records \d+:( |$)/);
    }
    expect(parseRange(`3:${huge}`, '--records')).toEqual({ from: 3, to: Infinity });
    expect(() => parseRange(huge, '--records')).toThrow(/past the end/);
  });

  it('large but valid counts are answered normally', async () => {
    for (const args of [
      ['read', textId, '--head', '99999999999999999999'],
      ['read', textId, '--tail', '99999999999999999999'],
      ['read', textId, '--chars', '0:99999999999999999999'],
      ['read', textId, '--max-tokens', '99999999999999999999'],
      ['grep', textId, '!', '-A', '99999999999999999999', '-m', '1'],
    ]) {
      const r = await lro(args, { env: env() });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.out.length).toBeGreaterThan(0);
    }
  });
});

describe('runaway patterns and filters', () => {
  it('patterns that are exponential despite bounded repetition are not trusted as linear', () => {
    for (const p of ['^(a|a){1,40}b', 'a{1,2000}a{1,2000}a{1,2000}b', '(a?){25}a{25}', `${'a?'.repeat(25)}${'a'.repeat(25)}`, '(x|y|z){3}(x|y|z){3}(x|y|z){3}']) {
      expect(linearTime(p), p).toBe(false);
    }
    for (const p of ['error', 'ERROR|WARN|FATAL', '"status":"(error|fail)"', '\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}', 'colou?r', '[a-z]{3}x']) {
      expect(linearTime(p), p).toBe(true);
    }
  });

  // each must reach the regex on the long lines: ^(a|a){1,40}b never would (its required literal `ab` is on no line,
  // so the literal prefilter answers it at once, as the next test checks), nor would a{1,2000}a{1,2000}a{1,2000}b
  // or (a|a)*b and (a*)*b (`b`); ^(a|a){1,40}! and a{1,2000}a{1,2000}a{1,2000}[^a!] do (`a!` ends every line,
  // `aaa` is on every line), and (a|a)*\d and (a*)*\d (ten digits, too many needles for the prefilter)
  // lro's own regex engine (a DFA, linear by construction) answers those it takes at once; with a lookahead it
  // declines them, and the JavaScript regex that runs them instead is stopped
  const patterns = ['(a+)+$', '(a|a)*\\d', '(.*a){20}', '(a*)*\\d', '^(a|a){1,40}!', 'a{1,2000}a{1,2000}a{1,2000}[^a!]', '(a|aa)+$', '(?:a+)+(?=b)'];
  const declined = ['(a+)+(?=$)', '(a|aa)+(?=$)', '(?:a+)+(?=b)', '(a|a)*(?=\\d)'];
  it('grep answers each catastrophic pattern its DFA takes, and stops the others at --timeout 1 with one line', async () => {
    const all = [...new Set([...patterns, ...declined])];
    const results = await pool(all, 2, (p) => timed(['grep', textId, p, '-c', '--timeout', '1'], { env: env(), timeout: BOUND_MS }));
    for (const [i, p] of all.entries()) {
      const r = results[i];
      expect(r.ms, p).toBeLessThan(BOUND_MS);
      if (declined.includes(p) || r.code === 2) {
        expectOneLineError(r, p);
        expect(r.stderr, p).toMatch(/no progress|backtracking/);
      } else {
        expect([r.code, r.stderr], p).toEqual([r.out.trim() === '0' ? 1 : 0, '']);
      }
    }
    // the DFA takes most of them: a change that sends them back to the backtracking regex shows here
    expect(all.filter((p, i) => results[i].code !== 2).length, 'answered by the DFA').toBeGreaterThanOrEqual(4);
  });

  it('a catastrophic pattern whose required literal is on no line is answered by the prefilter, not stopped', async () => {
    for (const p of ['^(a|a){1,40}b', 'a{1,2000}a{1,2000}a{1,2000}b', '(a|a)*b', '(a*)*b']) {
      const r = await timed(['grep', textId, p, '-c', '--timeout', '1'], { env: env(), timeout: BOUND_MS });
      expect(r.code, `${p}: ${r.stderr}`).toBe(1);
      expect(r.stderr, p).toBe('');
      expect(r.ms, p).toBeLessThan(BOUND_MS);
    }
  });

  // an endless output is not an error: jq is stopped once the budget is spent, and the next command printed
  it('jq cuts an endless output at the budget, with the next command (records, -n, -s)', async () => {
    const results = await pool([[], ['-n'], ['-s']], 3, (extra) => timed(['jq', jsonlId, '-c', 'repeat(1)', '--timeout', '1', ...extra], { env: env(), timeout: BOUND_MS }));
    for (const r of results) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.out).toMatch(/^1\n1\n[\s\S]*\n\[lro: output cut at --max-tokens 2000; next: lro jq \S+ 'repeat\(1\)' -c .*--skip-lines \d+\]\n$/);
      expect(r.ms).toBeLessThan(BOUND_MS);
    }
  });

  const filters = ['def f: f; f', '[range(1e9)]', 'last(range(1e12))', '[limit(1e8; repeat(1))] | length', 'def f: [f]; f', 'reduce range(1e9) as $i (0; . + $i)', 'until(false; .)'];
  it('jq stops each endless filter within the bound with one line (records, -n, -s)', async () => {
    const runs = filters.flatMap((f) => [[], ['-n'], ['-s']].map((extra) => ({ f, extra })));
    const results = await pool(runs, 3, ({ f, extra }) => timed(['jq', jsonlId, f, '--timeout', '1', ...extra], { env: env(), timeout: BOUND_MS }));
    for (const [i, { f, extra }] of runs.entries()) {
      expectOneLineError(results[i], `${f} ${extra.join(' ')}`);
      expect(results[i].ms, f).toBeLessThan(BOUND_MS);
    }
  });

  it('the engine dying (endless recursion that allocates) is one line, without its own "Aborted()" noise', async () => {
    const results = await pool([[], ['-n']], 2, (extra) => timed(['jq', jsonlId, 'def f: [f]; f', '--timeout', '60', ...extra], { env: env(), timeout: 120_000 }));
    for (const r of results) {
      expectOneLineError(r, 'def f: [f]; f');
      expect(r.stderr).toMatch(/memory or stack/);
    }
  });

  it('a filter that nests too deep becomes one clear line', async () => {
    // (no budget: with one, the value's start is printed and cut before jq's printing of it runs out of stack)
    const r = await lro(['jq', jsonlId, 'reduce range(100000) as $_ ([];[.])', '--timeout', '5', '--max-tokens', '0'], { env: env(), timeout: BOUND_MS });
    expectOneLineError(r, 'deep');
  });
});

describe('a reader that goes away', () => {
  // Found after the soak: with stdout closed (`lro jq ID . | head -c 10`), a jq filter or a watched grep
  // pattern whose output passed 8 MB left its worker waiting for a reader forever, and the process with it
  // (engines/guard.ts finish() terminated the worker only when the output went well).
  it('a closed stdout ends jq and a watched grep quietly, even with more than 8 MB to print', async () => {
    const big = Array.from({ length: 200_000 }, (_, i) => `line ${i} ${'x'.repeat(50)}`).join('\n');
    const o = await lro(['offload', '--force', '--operation', 'big'], { input: big, env: env() });
    const id = JSON.parse(o.out).id as string;
    for (const args of [['jq', id, '.', '--max-tokens', '0'], ['grep', id, 'x+', '--max-tokens', '0']]) {
      const start = Date.now();
      const r = await new Promise<{ code: number | null; signal: string | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, LRO_DIR: store }, stdio: ['ignore', 'pipe', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => (stderr += d));
        child.stdout.destroy(); // the reader is gone before lro writes
        const timer = setTimeout(() => child.kill('SIGKILL'), BOUND_MS);
        child.on('close', (code, signal) => {
          clearTimeout(timer);
          resolve({ code, signal, stderr });
        });
      });
      expect(r.signal, `${args[0]} did not end`).toBeNull();
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expect(Date.now() - start).toBeLessThan(BOUND_MS);
    }
    before = snapshot(store); // the result added here is part of the store from now on
  });
});

describe('afterwards', () => {
  it('the store is exactly as it was: same names, modes, sizes, times and contents', () => {
    expect(snapshot(store)).toEqual(before);
  });
});
