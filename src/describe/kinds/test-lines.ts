// What a line of a test runner's output says: which test, and whether it passed, failed or was skipped. One reader
// per kind of line, shared by the descriptor (a test run's counts and failing names: describe/kinds/test-text.ts)
// and `lro diff` (newly failing tests: compare/test-results.ts), so both read a runner's lines the same way.

export type Outcome = 'passed' | 'failed' | 'skipped';

/** One kind of result line: what it says of a test (its outcome word and name), or null. */
export interface ResultLine {
  runner: string;
  read: (line: string) => { word: string; name: string } | null;
  /** A fixed string that starts or ends each failure's line, for `lro grep -F`. */
  fail: string;
}

const match = (re: RegExp, word: number, name: number) => (line: string) => {
  const m = re.exec(line);
  return m ? { word: m[word], name: m[name] } : null;
};

/** pytest -v: `tests/test_a.py::test_b[1] PASSED   [ 10%]` (a parameter may hold spaces). */
export const PYTEST: ResultLine = {
  runner: 'pytest',
  read: match(/^(\S+::\S+(?: \S+)*?)\s+(PASSED|FAILED|SKIPPED|ERROR|XFAIL|XPASS)\b/, 2, 1),
  fail: ' FAILED',
};

/** pytest's short summary: `FAILED tests/test_a.py::test_b - AssertionError` (a test already told, told again). */
export const PYTEST_SUMMARY: ResultLine = {
  runner: 'pytest',
  read: match(/^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S+::\S+)/, 1, 2),
  fail: 'FAILED ',
};

/** go test -v: `--- FAIL: TestName (0.01s)`, subtests indented (`    --- PASS: TestA/b`). */
export const GO_TEST: ResultLine = {
  runner: 'go test',
  read: match(/^\s*--- (PASS|FAIL|SKIP): (\S+)/, 1, 2),
  fail: '--- FAIL: ',
};

/** go test: a package's line, `ok  \tpkg\t0.01s`, `FAIL\tpkg\t0.02s`, `ok  \tpkg\t(cached)`; named `pkg (package)`. */
export const GO_PACKAGE: ResultLine = {
  runner: 'go test',
  read: (line) => {
    const m = /^(ok|FAIL)\s+(\S+)\s+(?:\d[\d.]*s|\(cached\)|\[)/.exec(line);
    return m ? { word: m[1], name: `${m[2]} (package)` } : null;
  },
  fail: 'FAIL\t',
};

/** cargo test: `test parser::tests::empty ... ok`. */
export const CARGO_TEST: ResultLine = {
  runner: 'cargo test',
  read: match(/^test (\S+) \.\.\. (ok|FAILED|ignored)$/, 2, 1),
  fail: ' ... FAILED',
};

/**
 * vitest --reporter=verbose: `✓ a.test.ts > suite > name 2ms`, `× …` failed, `↓ …` skipped (the file is part of the
 * name, as in its failures block's `FAIL  a.test.ts > suite > name` heading, which JS_RUNNER reads the same).
 */
export const VITEST: ResultLine = {
  runner: 'vitest',
  read: match(/^\s*([✓×↓])\s+(\S+\.[cm]?[jt]sx? > .+?)(?: \d+ms)?\s*$/, 1, 2),
  fail: ' × ',
};

/**
 * TAP, as node --test prints it: `ok 3 - name`, `not ok 4 - name`, `ok 5 - name # SKIP reason` (subtests
 * indented). A suite's line comes after its subtests' plan (`    1..6`) and is no test: TapSuites tells it.
 */
export const TAP: ResultLine = {
  runner: 'tap',
  read: (line) => {
    const m = /^\s*(ok|not ok) \d+ - (.+?)(?: # (SKIP|TODO)\b.*)?$/.exec(line);
    return m ? { word: m[3] ? 'SKIP' : m[1], name: m[2] } : null;
  },
  fail: 'not ok ',
};

/**
 * Which TAP result lines are suites': the line right after a plan indented deeper than itself (node --test prints
 * a suite's subtests, their plan, then the suite's own `ok`/`not ok`, which node does not count as a test). Fed
 * every line in order.
 */
export class TapSuites {
  private plan = -1;

  /** Whether this line is a suite's result line (and notes a plan for the next one). */
  suite(line: string): boolean {
    const indent = line.length - line.trimStart().length;
    const wasPlan = this.plan;
    this.plan = /^\s*1\.\.\d+\s*$/.test(line) ? indent : -1;
    return wasPlan > indent && /^\s*(?:not )?ok \d/.test(line);
  }
}

/** jest and vitest: `FAIL src/a.test.ts > suite > name` (a test), `PASS src/a.test.js` (a file). */
export const JS_RUNNER: ResultLine = {
  runner: 'jest',
  read: match(/^\s*(PASS|FAIL)\s+(\S+\.[cm]?[jt]sx?\b.*?)\s*$/, 1, 2),
  fail: 'FAIL ',
};

/** What each runner's word means. */
export const OUTCOME: Record<string, Outcome> = {
  PASSED: 'passed',
  PASS: 'passed',
  ok: 'passed',
  XPASS: 'passed',
  FAILED: 'failed',
  FAIL: 'failed',
  ERROR: 'failed',
  SKIPPED: 'skipped',
  SKIP: 'skipped',
  ignored: 'skipped',
  XFAIL: 'skipped',
  'not ok': 'failed',
  '✓': 'passed',
  '×': 'failed',
  '↓': 'skipped',
};

const GO_ACTION: Record<string, Outcome> = { pass: 'passed', fail: 'failed', skip: 'skipped' };

/** The outcome a go test -json event's Action tells (pass, fail, skip), or undefined for the others (run, output). */
export const goOutcome = (action: string): Outcome | undefined => (Object.hasOwn(GO_ACTION, action) ? GO_ACTION[action] : undefined);

