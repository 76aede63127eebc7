// End-to-end: `lro diff A B` on real kinds of output: two runs of a test suite (go test -json, go test -v and
// pytest text), two versions of a kubectl-like JSON listing, two windows of a real log; exit codes, the output
// budget and its next: line, --json, --lines, and the library's diff().
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';
import { corpusFile } from '../helpers/corpus.js';
import { diff } from '../../src/index.js';

let root: string;
let env: Record<string, string>;
beforeAll(() => {
  root = tempDir();
  env = { LRO_DIR: join(root, 'store') };
});
afterAll(() => cleanup(root));

async function store(input: string, query: string): Promise<string> {
  const r = await lroHere(['offload', '--force', '--no-dedupe', '--query', query], { input, env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.out).id as string;
}

/** A go test -json run: each test's run, output and result events; `fails` are the tests that fail. */
function goTestJson(fails: string[]): string {
  const out: string[] = [];
  const pkg = 'example.com/shop/cart';
  for (const t of ['TestAdd', 'TestRemove', 'TestTotal', 'TestDiscount', 'TestEmpty']) {
    out.push(JSON.stringify({ Time: '2026-01-01T00:00:00Z', Action: 'run', Package: pkg, Test: t }));
    out.push(JSON.stringify({ Action: 'output', Package: pkg, Test: t, Output: `=== RUN   ${t}\n` }));
    if (fails.includes(t)) out.push(JSON.stringify({ Action: 'output', Package: pkg, Test: t, Output: `    cart_test.go:${t.length}: ${t} got 3, want 4\n` }));
    const action = fails.includes(t) ? 'fail' : 'pass';
    out.push(JSON.stringify({ Action: action, Package: pkg, Test: t, Elapsed: 0.01 }));
  }
  out.push(JSON.stringify({ Action: fails.length ? 'fail' : 'pass', Package: pkg, Elapsed: 0.2 }));
  return `${out.join('\n')}\n`;
}

describe('lro diff: two runs of a test suite', () => {
  it('go test -json: newly failing, newly passing, still failing, with their records in B', async () => {
    const a = await store(goTestJson(['TestTotal', 'TestDiscount']), 'go test -json ./...');
    const b = await store(goTestJson(['TestDiscount', 'TestEmpty']), 'go test -json ./...');
    const r = await lro(['diff', a, b], { env });
    expect(r.code, r.stderr).toBe(1);
    const lines = r.out.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^A ${a}  \\S+  jsonl  18 records  .*\\$ go test -json \\./\\.\\.\\.$`));
    expect(lines[1]).toMatch(new RegExp(`^B ${b}  `));
    expect(lines[2]).toBe(
      'different: tests: 1 newly failing, 1 newly passing, 2 still failing (A: 3 passed, 3 failed, 0 skipped; ' +
        'B: 3 passed, 3 failed, 0 skipped)',
    );
    expect(lines.slice(3).join('\n')).toBe(
      [
        'tests newly failing (1):',
        '  TestEmpty (example.com/shop/cart)  A:17 B:17',
        '      cart_test.go:9: TestEmpty got 3, want 4',
        'tests newly passing (1):',
        '  TestTotal (example.com/shop/cart)  A:10 B:9',
        'tests still failing (2):',
        '  TestDiscount (example.com/shop/cart)  A:14 B:13',
        '      cart_test.go:12: TestDiscount got 3, want 4',
        '  example.com/shop/cart (package)  A:18 B:18',
        '',
      ].join('\n'),
    );
  });

  it('go test -v and pytest text: the tests named by their result lines', async () => {
    const goV = (fail: string) =>
      ['TestA', 'TestB', 'TestC']
        .map((t) => `=== RUN   ${t}\n${t === fail ? '    x_test.go:17: got 3, want 4\n' : ''}--- ${t === fail ? 'FAIL' : 'PASS'}: ${t} (0.00s)\n`)
        .join('') + `${fail ? 'FAIL' : 'ok  '}\texample.com/x\t0.01s\n`;
    const a = await store(goV(''), 'go test -v');
    const b = await store(goV('TestB'), 'go test -v');
    const r = await lro(['diff', a, b], { env });
    expect(r.code).toBe(1);
    // each failing test with the line that says why (go prints it before --- FAIL), and nothing else: the
    // failures' templates and error lines would tell them again
    expect(r.out.split('\n').slice(2).join('\n')).toBe(
      [
        'different: tests: 2 newly failing (A: 4 passed, 0 failed, 0 skipped; B: 2 passed, 2 failed, 0 skipped); the other lines are not compared: see --lines',
        'tests newly failing (2):',
        '  TestB  A:4 B:5',
        '      x_test.go:17: got 3, want 4',
        '  example.com/x (package)  A:7 B:8',
        '',
      ].join('\n'),
    );

    const pytest = (failing: string[]) =>
      ['test_login', 'test_logout', 'test_signup'].map((t) => `tests/test_auth.py::${t} ${failing.includes(t) ? 'FAILED' : 'PASSED'}  [ 33%]\n`).join('') +
      failing.map((t) => `FAILED tests/test_auth.py::${t} - AssertionError: assert 401 == 200\n`).join('');
    const pa = await store(pytest(['test_logout']), 'pytest -v');
    const pb = await store(pytest(['test_signup']), 'pytest -v');
    const p = await lro(['diff', pa, pb, '--json'], { env });
    expect(p.code).toBe(1);
    const items = p.out.trim().split('\n').map((l) => JSON.parse(l));
    expect(items[0].kind).toBe('text');
    expect(items.filter((i) => i.type === 'test')).toEqual([
      { type: 'test', change: 'newly_failing', name: 'tests/test_auth.py::test_signup', record_a: 3, record_b: 4, message: 'AssertionError: assert 401 == 200' },
      { type: 'test', change: 'newly_passing', name: 'tests/test_auth.py::test_logout', record_a: 4, record_b: 2 },
    ]);
  });

  it('two real pytest -v runs (fixtures/outputs/pytest-v*.txt): each failing test with its message, nothing else', async () => {
    // pytest-v-after.txt is the next run, by bench/make-pytest-after.mjs: case 5 fixed, test_error_handling_30 broken
    const fixture = (name: string) => readFileSync(resolve(__dirname, '../../fixtures/outputs', name), 'utf8');
    const a = await store(fixture('pytest-v.txt'), 'pytest -v');
    const b = await store(fixture('pytest-v-after.txt'), 'pytest -v');
    const r = await lro(['diff', a, b], { env });
    expect(r.code).toBe(1);
    expect(r.out.split('\n').slice(3).join('\n')).toBe(
      [
        'tests newly failing (1):',
        '  test_sample.py::test_error_handling_30  A:39 B:105',
        "      KeyError: 'status'",
        'tests newly passing (1):',
        '  test_sample.py::test_parse_case_5  A:104 B:14',
        'tests still failing (3):',
        '  test_sample.py::test_parse_case_22  A:105 B:104',
        '      AssertionError: error: off by one',
        '  test_sample.py::test_parse_case_39  A:106 B:106',
        '      AssertionError: error: off by one',
        '  test_sample.py::test_parse_case_56  A:107 B:107',
        '      AssertionError: error: off by one',
        '',
      ].join('\n'),
    );
    expect(r.out).not.toContain('^^^^'); // no traceback
    // --lines still gives every line that differs
    const lines = await lro(['diff', a, b, '--lines'], { env });
    expect(lines.out).toContain('+E       KeyError: \'status\'');
  });

  it('two real vitest JUnit reports (fixtures/outputs/vitest-junit*.xml): tests by classname > name, each with its message', async () => {
    // made by bench/make-vitest-runs.mjs: the after run fixes parse > case 3 and breaks format > width 20
    const fixture = (name: string) => readFileSync(resolve(__dirname, '../../fixtures/outputs', name), 'utf8');
    const a = await store(fixture('vitest-junit.xml'), 'vitest --reporter=junit');
    const b = await store(fixture('vitest-junit-after.xml'), 'vitest --reporter=junit');
    const r = await lro(['diff', a, b], { env });
    expect(r.code).toBe(1);
    expect(r.out).toContain('tests: 1 newly failing, 1 newly passing, 2 still failing (A: 54 passed, 3 failed, 3 skipped; B: 54 passed, 3 failed, 3 skipped)');
    expect(r.out.split('\n').slice(3).join('\n')).toBe(
      [
        'tests newly failing (1):',
        '  format.test.js > format > width 20  A:44 B:44',
        "      expected 'xxxxxxxxxxxxxxxxxxx' to have a length of 20 but got 19",
        'tests newly passing (1):',
        '  parse.test.js > parse > case 3  A:72 B:83',
        'tests still failing (2):',
        '  parse.test.js > parse > case 13  A:104 B:104',
        '      expected 14 to be 13 // Object.is equality',
        '  parse.test.js > parse > case 23  A:136 B:136',
        '      expected 24 to be 23 // Object.is equality',
        '',
      ].join('\n'),
    );
    // B's record of a test is its <testcase> line, so reading it starts the test's own element
    expect(fixture('vitest-junit-after.xml').split('\n')[43]).toMatch(/<testcase classname="format.test.js" name="format &gt; width 20"/);
  });

  it('two real pytest --junitxml reports (fixtures/outputs/pytest-junit*.xml, few long lines): tests compared one by one', async () => {
    // made by bench/make-pytest-junit.mjs: the after run fixes test_parse_case_150 and breaks test_error_handling_30
    const fixture = (name: string) => readFileSync(resolve(__dirname, '../../fixtures/outputs', name), 'utf8');
    const a = await store(fixture('pytest-junit.xml'), 'pytest --junitxml');
    const b = await store(fixture('pytest-junit-after.xml'), 'pytest --junitxml');
    const r = await lro(['diff', a, b], { env });
    expect(r.code).toBe(1);
    expect(r.out).toContain('tests: 1 newly failing, 1 newly passing, 2 still failing (A: 387 passed, 3 failed, 10 skipped; B: 387 passed, 3 failed, 10 skipped)');
    expect(r.out.split('\n').slice(3).join('\n')).toBe(
      [
        'tests newly failing (1):',
        '  test_suite > test_error_handling_30  A:1 B:1',
        "      KeyError: 'status'",
        'tests newly passing (1):',
        '  test_suite > test_parse_case_150  A:1 B:6',
        'tests still failing (2):',
        '  test_suite > test_parse_case_260  A:6 B:6',
        '      AssertionError: error: off by one / assert (260 + 1) == 260',
        '  test_suite > test_parse_case_377  A:11 B:11',
        '      AssertionError: error: off by one / assert (377 + 1) == 377',
        '',
      ].join('\n'),
    );
  });

  it('two real vitest --reporter=verbose runs and two real node --test TAP runs: each failing test with its message', async () => {
    // made by bench/make-vitest-runs.mjs and bench/make-node-test-runs.mjs
    const fixture = (name: string) => readFileSync(resolve(__dirname, '../../fixtures/outputs', name), 'utf8');
    const pair = async (before: string, after: string, query: string) => {
      const r = await lro(['diff', await store(fixture(before), query), await store(fixture(after), query)], { env });
      expect(r.code).toBe(1);
      return r.out.split('\n').slice(2).join('\n');
    };
    expect(await pair('vitest-verbose.txt', 'vitest-verbose-after.txt', 'vitest --reporter=verbose')).toBe(
      [
        'different: tests: 1 newly failing, 1 newly passing, 2 still failing (A: 54 passed, 3 failed, 3 skipped; B: 54 passed, 3 failed, ' +
          '3 skipped); the other lines are not compared: see --lines',
        'tests newly failing (1):',
        '  format.test.js > format > width 20  A:24 B:70',
        "      → expected 'xxxxxxxxxxxxxxxxxxx' to have a length of 20 but got 19",
        'tests newly passing (1):',
        '  parse.test.js > parse > case 3  A:70 B:38',
        'tests still failing (2):',
        '  parse.test.js > parse > case 13  A:89 B:89',
        '      → expected 14 to be 13 // Object.is equality',
        '  parse.test.js > parse > case 23  A:108 B:108',
        '      → expected 24 to be 23 // Object.is equality',
        '',
      ].join('\n'),
    );
    // TAP: a suite's own line is no test; node's counts (37 passed, 2 failed, 1 skipped) on both sides; a test is
    // named with its suite, as the descriptor names it
    expect(await pair('node-test-tap.txt', 'node-test-tap-after.txt', 'node --test')).toBe(
      [
        'different: tests: 1 newly failing, 1 newly passing, 1 still failing (A: 37 passed, 2 failed, 1 skipped; B: 37 passed, 2 failed, ' +
          '1 skipped); the other lines are not compared: see --lines',
        'tests newly failing (1):',
        '  tax > rate 9  A:200 B:180',
        '      Expected values to be strictly deep-equal: / + actual - expected / { / +   rate: 0.09 / -   rate: 9 / }',
        'tests newly passing (1):',
        '  cart > total 4  A:24 B:24',
        'tests still failing (1):',
        '  cart > total 14  A:94 B:74',
        '      Expected values to be strictly equal: / 28 !== 14',
        '',
      ].join('\n'),
    );
  });

  it('node --test TAP: suites holding tests of one name are told apart, each named with its suites', async () => {
    // made by bench/make-node-test-runs.mjs: `total` at the top and in cart, tax and cart > discount; `empty` in cart
    // and tax. In B cart > total is fixed, the top-level total, tax > total and cart > discount > total broken.
    const fixture = (name: string) => readFileSync(resolve(__dirname, '../../fixtures/outputs', name), 'utf8');
    const a = await store(fixture('node-test-tap-suites.txt'), 'node --test');
    const b = await store(fixture('node-test-tap-suites-after.txt'), 'node --test');
    const r = await lro(['diff', a, b, '--json'], { env });
    expect(r.code).toBe(1);
    const [summary, ...items] = r.out.trim().split('\n').map((l) => JSON.parse(l));
    expect(summary.tests).toEqual({ a: { passed: 3, failed: 3, skipped: 0 }, b: { passed: 1, failed: 5, skipped: 0 } });
    expect(items.map(({ change, name, record_a, record_b }) => ({ change, name, record_a, record_b }))).toEqual([
      { change: 'newly_failing', name: 'total', record_a: 3, record_b: 3 },
      { change: 'newly_failing', name: 'cart > discount > total', record_a: 147, record_b: 145 },
      { change: 'newly_failing', name: 'tax > total', record_a: 169, record_b: 202 },
      { change: 'newly_passing', name: 'cart > total', record_a: 9, record_b: 30 },
      { change: 'still_failing', name: 'cart > empty', record_a: 37, record_b: 35 },
      { change: 'still_failing', name: 'tax > empty', record_a: 174, record_b: 230 },
    ]);
    // each record is the test's own result line, under its suite's `# Subtest:` line
    const lines = [fixture('node-test-tap-suites.txt').split('\n'), fixture('node-test-tap-suites-after.txt').split('\n')];
    for (const { name, record_a, record_b } of items) {
      for (const [side, n] of [[0, record_a], [1, record_b]]) {
        const bare = name.split(' > ').at(-1);
        expect(lines[side][n - 1]).toMatch(new RegExp(`^\\s*(?:not )?ok \\d+ - ${bare}$`));
        const suites = name.split(' > ').slice(0, -1);
        const above = lines[side].slice(0, n - 1).findLast((l: string) => l.includes('# Subtest: ') && l.length - l.trimStart().length < lines[side][n - 1].length - lines[side][n - 1].trimStart().length);
        expect(above?.trim() ?? null).toBe(suites.length ? `# Subtest: ${suites.at(-1)}` : null);
      }
    }
    // each failing test's message: its `error: |-` block's lines, not the first alone (nor, for the last test of a
    // suite, the suite's own `error: '1 subtest failed'` under it); cut at 300 characters
    const text = await lro(['diff', a, b], { env });
    expect(text.out.split('\n').slice(3).join('\n')).toBe(
      [
        'tests newly failing (3):',
        '  total  A:3 B:3',
        '      Expected values to be strictly equal: / 5 !== 4',
        '  cart > discount > total  A:147 B:145',
        "      Expected values to be strictly deep-equal: / + actual - expected / { / code: 'SPRING', / +   percent: 15 / -   percent: 10 / }",
        '  tax > total  A:169 B:202',
        '      Expected values to be strictly equal: / 10 !== 20',
        'tests newly passing (1):',
        '  cart > total  A:9 B:30',
        'tests still failing (2):',
        '  cart > empty  A:37 B:35',
        `      Expected values to be strictly deep-equal: / + actual - expected / + [ / ${Array.from({ length: 24 }, (_, i) => `+   ${i},`).join(' / ')}…`,
        '  tax > empty  A:174 B:230',
        '      Expected values to be strictly equal: / 1 !== 0',
        '',
      ].join('\n'),
    );
    expect(items.find((i) => i.name === 'cart > empty').message).toHaveLength(301);
  });

  it('cargo test text and a pytest parameter with spaces: tests named as the descriptor names them', async () => {
    const cargo = (fail: string) =>
      ['parse::empty', 'parse::nested', 'eval::sum'].map((t) => `test ${t} ... ${t === fail ? 'FAILED' : 'ok'}\n`).join('');
    const a = await store(cargo(''), 'cargo test');
    const b = await store(cargo('parse::nested'), 'cargo test');
    const r = await lro(['diff', a, b, '--json'], { env });
    expect(r.code).toBe(1);
    const items = r.out.trim().split('\n').map((l) => JSON.parse(l));
    expect(items.filter((i) => i.type === 'test')).toEqual([
      { type: 'test', change: 'newly_failing', name: 'parse::nested', record_a: 2, record_b: 2 },
    ]);
    const info = await lro(['info', b], { env });
    expect(JSON.parse(info.out).summary.kind_facts).toMatchObject({ runner: 'cargo test', failed: 1, failing: ['parse::nested'] });

    const pytest = (fail: boolean) =>
      ['a', 'b c', 'd'].map((p, i) => `tests/test_p.py::test_x[${p}] ${fail && i === 1 ? 'FAILED' : 'PASSED'}  [ ${i}%]\n`).join('');
    const p = await lro(['diff', await store(pytest(false), 'pytest -v'), await store(pytest(true), 'pytest -v'), '--json'], { env });
    const tests = p.out.trim().split('\n').map((l) => JSON.parse(l)).filter((i) => i.type === 'test');
    expect(tests.map((t) => [t.change, t.name])).toEqual([['newly_failing', 'tests/test_p.py::test_x[b c]']]);
  });
});

/** A kubectl get pods -o json listing: `changes` edits pods by index; `drop` leaves one out, `add` one more. */
function pods(o: { crash?: number; drop?: number; add?: string } = {}): string {
  const items = [];
  for (let i = 0; i < 30; i++) {
    if (i === o.drop) continue;
    const crash = i === o.crash;
    items.push({
      metadata: { name: `web-${i}`, namespace: 'shop', labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'shop/web:1.4' }] },
      status: { phase: crash ? 'CrashLoopBackOff' : 'Running', restartCount: crash ? 4 : 0 },
    });
  }
  if (o.add) items.push({ metadata: { name: o.add, namespace: 'shop' }, status: { phase: 'Pending' } });
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items }, null, 2);
}

describe('lro diff: two versions of a JSON listing', () => {
  let a: string;
  let b: string;
  beforeAll(async () => {
    a = await store(pods(), 'kubectl get pods -o json');
    b = await store(pods({ crash: 12, drop: 20, add: 'web-canary' }), 'kubectl get pods -o json');
  });

  it('matches records by an id-like field found in the data: changed (field: old → new), added, removed', async () => {
    const r = await lro(['diff', a, b], { env });
    expect(r.code, r.stderr).toBe(1);
    expect(r.out.split('\n').slice(2).join('\n')).toBe(
      [
        'different: records: 1 changed, 1 added, 1 removed (matched by .metadata.name)',
        'records changed (1):',
        '  ~ web-12  A:13 B:13',
        '      status.phase: "Running" → "CrashLoopBackOff"',
        '      status.restartCount: 0 → 4',
        'records added in B (1):',
        '  + web-canary  B:30',
        'records removed from A (1):',
        '  - web-20  A:21',
        '',
      ].join('\n'),
    );
  });

  it('--key picks the field; a key that is not unique is said to be so', async () => {
    const r = await lro(['diff', a, b, '--key', 'metadata.namespace', '--json'], { env });
    expect(r.code).toBe(1);
    const summary = JSON.parse(r.out.split('\n')[0]);
    expect(summary.key).toBe('.metadata.namespace');
    expect(summary.key_repeats).toEqual({ a: 29, b: 29 });
    const text = await lro(['diff', a, b, '--key', 'metadata.namespace'], { env });
    expect(text.out.split('\n')[2]).toMatch(/; the key is not unique \(29 records of A, 29 of B repeat one\): pick another with --key$/);
  });

  it('a number key is matched by its value: 7 and 7.0 are one key, as jq compares them, not one removed and one added', async () => {
    const recs = (ids: string[], v: number) => `${ids.map((id, i) => `{"id":${id},"v":${i === 2 ? v : 0}}`).join('\n')}\n`;
    const x = await store(recs(['1', '7', '12', '300000000000000000001'], 1), 'numbers A');
    const y = await store(recs(['1.0', '7e0', '1.2e1', '3.00000000000000000001e20'], 2), 'numbers B');
    for (const key of [[], ['--key', 'id']]) {
      const r = await lro(['diff', x, y, '--json', ...key], { env });
      expect(r.code, r.stderr).toBe(1);
      const summary = JSON.parse(r.out.split('\n')[0]);
      expect(summary.key).toBe('.id');
      const items = r.out.trim().split('\n').slice(1).map((l) => JSON.parse(l));
      // matched by value: none added or removed; only record 3 has a field that changed, the rarer change first,
      // then the three whose values are only written differently, as one item
      expect(items.map((i) => [i.change, i.record_a, i.record_b, i.count])).toEqual([
        ['changed', 3, 3, 1],
        ['changed', 1, 1, 3],
      ]);
      expect(items.map((i) => i.changes.map((c: { field: string }) => c.field))).toEqual([['v'], []]);
      expect(items[1].keys).toEqual(['1', '7', '3.00000000000000000001e20']); // as B writes them
    }
    const text = await lro(['diff', x, y], { env });
    expect(text.out).toContain('records changed (4 in 2 groups, the smallest first):\n');
    expect(text.out).toContain('  ~ 3 × 1, 7, 3.00000000000000000001e20  A:1 B:1  (the same values, written differently)\n');
    expect(text.out).toContain('  ~ 12  A:3 B:3\n      v: 1 → 2\n');
  });

  it('a bad --key is a one-line error, exit 2', async () => {
    const r = await lro(['diff', a, b, '--key', '.[['], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^lro: invalid --key '\.\[\['.*\n$/);
  });
});

describe('lro diff: two pod listings of a rollout, by entity (fixtures/outputs/kubectl-get-pods*.json)', () => {
  // B is made from A by bench/make-pods-after.mjs: 26 web pods bumped to 2.1.0, one api pod in CrashLoopBackOff,
  // two cron pods gone, three worker pods new
  const fixture = (name: string) => readFileSync(resolve(__dirname, '../../fixtures/outputs', name), 'utf8');
  let a: string;
  let b: string;
  beforeAll(async () => {
    a = await store(fixture('kubectl-get-pods.json'), 'kubectl get pods -A -o json');
    b = await store(fixture('kubectl-get-pods-after.json'), 'kubectl get pods -A -o json');
  });

  it('records changed alike are one item with their count and first keys, the rare change first', async () => {
    const r = await lro(['diff', a, b], { env });
    expect(r.code, r.stderr).toBe(1);
    const lines = r.out.split('\n');
    expect(lines[2]).toBe('different: records: 27 changed, 3 added, 2 removed (matched by .metadata.name)');
    expect(lines.slice(3, 6)).toEqual([
      'records changed (27 in 2 groups, the smallest first):',
      '  ~ api-a7sdl-3h0c  A:5 B:4',
      '      status.containerStatuses[0].restartCount: 44 → 51',
    ]);
    expect(r.out).toContain(
      '  ~ 26 × web-53w6s-1qi6, web-fbokd-57ii, web-903h0-8oiu, web-cwar8-fmji, web-6kpnw-j3ju, … (+21)  A:3 B:3\n' +
        '      spec.containers[0].image: "registry.example.com/web:1.4.0" → "registry.example.com/web:2.1.0"\n',
    );
    expect(r.out).toContain('records added in B (3 in 1 group, the smallest first):\n  + 3 × worker-*-*: worker-qk2vd-x8pm, worker-qk2vd-r4tn, worker-qk2vd-m7wz  B:119\n');
    expect(r.out).toContain('records removed from A (2 in 1 group, the smallest first):\n  - 2 × cron-*-*: cron-fxj0n-2lr9, cron-9lxxa-62rl  A:4\n');
    // the CrashLoopBackOff is on the first screen, however small the budget that still holds one item
    expect(r.out.indexOf('CrashLoopBackOff')).toBeLessThan(r.out.indexOf('web:2.1.0'));
    expect(r.out.length).toBeLessThan(1500);
  });

  it('--json: one object a group, with count, keys and more_keys; the groups cover every record once', async () => {
    const r = await lro(['diff', a, b, '--json'], { env });
    const [summary, ...items] = r.out.trim().split('\n').map((l) => JSON.parse(l));
    expect(summary.counts).toMatchObject({ records_changed: 27, records_added: 3, records_removed: 2 });
    expect(items.map((i) => [i.change, i.count])).toEqual([
      ['changed', 1],
      ['changed', 26],
      ['added', 3],
      ['removed', 2],
    ]);
    expect(items[0]).toMatchObject({ key: 'api-a7sdl-3h0c', record_a: 5, record_b: 4 });
    expect(items[0].keys).toBeUndefined();
    expect(items[1]).toMatchObject({ key: 'web-53w6s-1qi6', more_keys: 21, changes: [{ field: 'spec.containers[0].image' }] });
    expect(items[1].keys).toHaveLength(5);
    expect(items[2]).toMatchObject({ pattern: 'worker-*-*', keys: ['worker-qk2vd-x8pm', 'worker-qk2vd-r4tn', 'worker-qk2vd-m7wz'] });
    // the truth, from the files: 26 web pods on 1.4.0 in A
    const web = JSON.parse(fixture('kubectl-get-pods.json')).items.filter((p: { spec: { containers: { image: string }[] } }) => p.spec.containers[0].image.endsWith('web:1.4.0'));
    expect(web).toHaveLength(items[1].count);
    expect(items[1].keys).toEqual(web.slice(0, 5).map((p: { metadata: { name: string } }) => p.metadata.name));
  });

  it('a field with values of its own on every record (resourceVersion) does not split the groups', async () => {
    // a real rollout bumps every pod's resourceVersion: gathered by their values, no two pods changed alike
    const bump = (text: string, base: number) => {
      const doc = JSON.parse(text);
      doc.items.forEach((p: { metadata: Record<string, unknown> }, i: number) => (p.metadata.resourceVersion = String(base + i * 7)));
      return JSON.stringify(doc, null, 2);
    };
    const ra = await store(bump(fixture('kubectl-get-pods.json'), 5000), 'kubectl get pods -A -o json');
    const rb = await store(bump(fixture('kubectl-get-pods-after.json'), 9000), 'kubectl get pods -A -o json');
    const r = await lro(['diff', ra, rb, '--json'], { env });
    const [summary, ...items] = r.out.trim().split('\n').map((l) => JSON.parse(l));
    const changed = items.filter((i) => i.change === 'changed');
    expect(summary.counts.records_changed).toBe(118); // every pod that is in both
    // the crash alone first, then the 26 web pods, then the 91 that only got a new resourceVersion
    expect(changed.map((i) => i.count ?? 1)).toEqual([1, 26, 91]);
    expect(changed[0].key).toBe('api-a7sdl-3h0c');
    const rv = (i: { changes: { field: string; varies?: boolean }[] }) => i.changes.find((c) => c.field === 'metadata.resourceVersion');
    expect(rv(changed[0])?.varies).toBeUndefined(); // one record: its own values, nothing to say
    expect(rv(changed[1])).toMatchObject({ varies: true });
    expect(changed[1].changes.map((c: { field: string }) => c.field)).toContain('spec.containers[0].image');
    const text = await lro(['diff', ra, rb], { env });
    expect(text.out).toContain('records changed (118 in 3 groups, the smallest first):');
    expect(text.out).toMatch(/ {6}metadata\.resourceVersion: "\d+" → "\d+" \(the first; each record its own values\)\n/);
  });

  it('a small budget: the rare change first, and the next: line reaches the rest', async () => {
    const r = await lro(['diff', a, b, '--max-tokens', '300'], { env });
    expect(r.out).toContain('CrashLoopBackOff');
    expect(r.out).not.toContain('web:2.1.0');
    const next = /next: (lro diff [^\]]*)\]$/m.exec(r.out);
    expect(next, r.out).not.toBeNull();
    const rest = await lro(next![1].split(' ').slice(1), { env });
    expect(rest.out).toContain('records changed (27 in 2 groups, the smallest first, continued):\n  ~ 26 × web-53w6s-1qi6');
  });
});

describe('lro diff: two windows of a real log', () => {
  const log = readFileSync(corpusFile('loghub/Linux_2k.log'), 'utf8').split('\n').slice(0, 2000);
  let a: string;
  let b: string;
  beforeAll(async () => {
    a = await store(`${log.slice(0, 1000).join('\n')}\n`, 'tail -n 1000 /var/log/messages');
    b = await store(`${log.slice(1000, 2000).join('\n')}\n`, 'tail -n 1000 /var/log/messages');
  });

  it('templates new in B and gone from A, counts changed, and new error lines with their record in B', async () => {
    const r = await lro(['diff', a, b, '--max-tokens', '0', '--json'], { env });
    expect(r.code, r.stderr).toBe(1);
    const [summary, ...items] = r.out.trim().split('\n').map((l) => JSON.parse(l));
    expect(summary.kind).toBe('text');
    expect(summary.counts.templates_new).toBeGreaterThan(0);
    expect(summary.counts.templates_gone).toBeGreaterThan(0);
    const fresh = items.filter((i) => i.type === 'template' && i.change === 'new');
    expect(fresh).toHaveLength(summary.counts.templates_new);
    for (const t of fresh) expect(t.count_a).toBe(0);
    const errors = items.filter((i) => i.type === 'error_line');
    expect(errors.length).toBe(summary.counts.error_lines_new);
    expect(errors.length).toBeGreaterThan(0);
    // each new error line is line record_b of B, and no line of A is the same once numbers are masked
    const masked = (s: string) => s.replace(/\d+/g, '0');
    const aLines = new Set(log.slice(0, 1000).map(masked));
    for (const e of errors) {
      expect(e.text).toBe(log[1000 + e.record_b - 1]);
      expect(aLines.has(masked(e.text))).toBe(false);
    }
  });

  it('a cut output ends with a next: command; following them gives every item once, in order', async () => {
    const whole = await lro(['diff', a, b, '--max-tokens', '0'], { env });
    const body = (out: string) => out.split('\n').slice(3).filter((l) => l !== '' && !l.startsWith('[lro:') && !/^\S.*\(\d[\d,]*(, continued)?\):$/.test(l));
    const parts: string[] = [];
    let pages = 0;
    let args = ['diff', a, b, '--max-tokens', '1000'];
    for (let i = 0; i < 50; i++) {
      const r = await lro(args, { env });
      pages++;
      expect(r.code).toBe(1);
      const last = r.out.trimEnd().split('\n').at(-1)!;
      parts.push(...body(r.out));
      const next = /; next: lro (.*)\]$/.exec(last);
      if (!next) break;
      expect(r.out.split('\n')[2]).toBe(whole.out.split('\n')[2]); // the summary comes first on every page
      args = next[1].split(' ');
    }
    expect(parts).toEqual(body(whole.out));
    expect(parts.length).toBeGreaterThan(20);
    expect(pages).toBeGreaterThan(2);
  });
});

describe('lro diff: two results that differ inside one long line', () => {
  it('--lines shows the line where it differs (by byte offset), not its same first 1,000 characters', async () => {
    const line = Array.from({ length: 300_000 }, (_, i) => `w${i % 97}`).join(' '); // about 1.3 MB
    const changed = `${line.slice(0, 1_100_000)}CHANGED${line.slice(1_100_007)}`;
    const a = await store(`head\n${line}\ntail\n`, 'long a');
    const b = await store(`head\n${changed}\ntail\n`, 'long b');
    const r = await lro(['diff', a, b, '--lines'], { env });
    expect(r.code).toBe(1);
    const minus = r.out.split('\n').find((l) => l.startsWith('-['))!;
    const plus = r.out.split('\n').find((l) => l.startsWith('+['))!;
    expect(minus).toMatch(/^-\[bytes 1099800-1100800\/\d+\] …/);
    expect(plus).toMatch(/^\+\[bytes 1099800-1100800\/\d+\] …/);
    expect(plus).toContain('CHANGED');
    expect(minus).not.toContain('CHANGED');
  });
});

describe('lro diff: exit codes, names and --lines', () => {
  it('0 when equal, 1 when different, 2 for an id that is not there; last and last~1', async () => {
    const text = Array.from({ length: 300 }, (_, i) => `line ${i}: request served in ${i % 7} ms`).join('\n');
    const a = await store(`${text}\n`, 'run 1');
    const b = await store(`${text}\n`, 'run 2');
    const same = await lro(['diff', a, b], { env });
    expect(same.code).toBe(0);
    expect(same.out.split('\n')[2]).toBe('equal: the same content');
    const c = await store(`${text}\nline 300: ERROR upstream timed out after 30000 ms\n`, 'run 3');
    const r = await lro(['diff', 'last~1', 'last', '--lines'], { env });
    expect(r.code).toBe(1);
    expect(r.out).toContain(`A ${b}  `);
    expect(r.out).toContain(`B ${c}  `);
    expect(r.out).toContain('new error lines in B (1):\n  B:301  line 300: ERROR upstream timed out after 30000 ms\n');
    expect(r.out).toContain(
      'unified diff (--lines) (5):\n@@ -298,3 +298,4 @@\n line 297: request served in 3 ms\n line 298: request served in 4 ms\n' +
        ' line 299: request served in 5 ms\n+line 300: ERROR upstream timed out after 30000 ms\n',
    );
    const bad = await lro(['diff', a, '01ZZZZZZZZZZZZZZZZZZZZZZZZ'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^lro: no result 01ZZZZZZZZZZZZZZZZZZZZZZZZ in .*\n$/);
    const key = await lro(['diff', a, c, '--key', 'id'], { env });
    expect(key.code).toBe(2);
    expect(key.stderr).toBe(`lro: --key matches JSON records or the rows of two tables, and A (${a}) is text, not a table: leave --key out\n`);
    const far = await lro(['diff', 'last~99', 'last'], { env });
    expect(far.code).toBe(2);
    expect(far.stderr.split('\n')).toHaveLength(2);
  });

  it('the library: diff(a, b) returns the --json shape, a page at a time', async () => {
    const a = await store(goTestJson(['TestAdd']), 'go test -json');
    const b = await store(goTestJson(['TestAdd', 'TestRemove']), 'go test -json');
    const out = diff(a, b, { env, limit: 1 });
    const cli = (await lro(['diff', a, b, '--json'], { env })).out.trim().split('\n').map((l) => JSON.parse(l));
    expect(out.summary).toEqual(cli[0]);
    expect(out.items).toEqual(cli.slice(1, 2));
    expect(out.next_from).toBe(1);
    expect(diff(a, b, { env, from: 1 }).items).toEqual(cli.slice(2));
  });
});

// Two real ps aux listings (fixtures/tables, bench/make-tables.mjs): between them one sleep ended, one was stopped
// (its STAT S -> T), a new one started, and ps itself ran again with another PID.
describe('lro diff: two tables, row by row', () => {
  const TABLES = resolve(__dirname, '../../fixtures/tables');
  const rows = (name: string) =>
    readFileSync(join(TABLES, name), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l, i) => {
        const f = l.trim().split(/\s+/);
        return { n: i + 2, pid: f[1], stat: f[7], command: f.slice(10).join(' '), line: f.join(' ') };
      });

  it('matched by PID: a process whose STAT changed is changed, the one that ended removed, a new one added', async () => {
    const before = rows('ps-aux-before.txt');
    const after = rows('ps-aux-after.txt');
    const a = await store(readFileSync(join(TABLES, 'ps-aux-before.txt'), 'utf8'), 'ps aux');
    const b = await store(readFileSync(join(TABLES, 'ps-aux-after.txt'), 'utf8'), 'ps aux');
    const pids = (xs: { pid: string }[]) => new Set(xs.map((x) => x.pid));
    const gone = before.filter((x) => !pids(after).has(x.pid));
    const added = after.filter((x) => !pids(before).has(x.pid));
    const stopped = after.filter((x) => before.some((y) => y.pid === x.pid && y.stat !== x.stat));
    expect(stopped.map((x) => x.stat)).toEqual(['T']);
    for (const key of [[], ['--key', 'PID']]) {
      const r = await lro(['diff', a, b, '--json', ...key], { env });
      expect(r.code, r.stderr).toBe(1);
      const [summary, ...items] = r.out.trim().split('\n').map((l) => JSON.parse(l));
      expect(summary).toMatchObject({ kind: 'records', key: '.PID', rows: true });
      const of = (change: string) => items.filter((i) => i.change === change);
      expect(of('removed').map((i) => [i.key, i.record_a, i.row])).toEqual(gone.map((x) => [x.pid, x.n, x.line]));
      expect(of('added').map((i) => [i.key, i.record_b, i.row])).toEqual(added.map((x) => [x.pid, x.n, x.line]));
      const stat = of('changed').filter((i) => i.changes.some((c: { field: string }) => c.field === 'STAT'));
      expect(stat).toEqual([expect.objectContaining({ key: stopped[0].pid, changes: expect.arrayContaining([{ field: 'STAT', old: '"S"', new: '"T"' }]) })]);
    }
    const text = await lro(['diff', a, b], { env });
    expect(text.out.split('\n')[2]).toMatch(/^different: rows: \d+ changed, \d+ added, \d+ removed \(matched by \.PID\)$/);
    expect(text.out).toContain(`rows removed from A (${gone.length}):\n${gone.map((x) => `  - ${x.pid}  A:${x.n}  ${x.line}\n`).join('')}`);
    // another column as the key, named as the header writes it; a column no row has is an error
    const byCommand = await lro(['diff', a, b, '--key', 'COMMAND', '--json'], { env });
    expect(JSON.parse(byCommand.out.split('\n')[0])).toMatchObject({ key: '.COMMAND', key_repeats: expect.anything() });
    const none = await lro(['diff', a, b, '--key', 'PIDS'], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^lro: --key PIDS: the rows of both tables have no such column; they have 'USER', 'PID', .*'COMMAND'\n$/);
  });
});
