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
 * indented). A suite's line comes after its subtests' plan (`    1..6`) and is no test: TapSuites tells it, and
 * names a test with its suites.
 */
export const TAP: ResultLine = {
  runner: 'tap',
  read: (line) => {
    const m = /^\s*(ok|not ok) \d+ - (.+?)(?: # (SKIP|TODO)\b.*)?$/.exec(line);
    return m ? { word: m[3] ? 'SKIP' : m[1], name: m[2] } : null;
  },
  fail: 'not ok ',
};

/** A TAP test's name with its suites': `cart > discount > total 4` (as vitest and JUnit paths are joined). */
export const tapPath = (suites: readonly string[], name: string): string => (suites.length ? `${suites.join(' > ')} > ${name}` : name);

/** Suites a TAP test is named with at most (the outermost); deeper ones are left out of its name. */
const TAP_DEPTH = 32;
/** Characters of a suite's name kept (its `# Subtest:` line read back gives the same). */
const TAP_NAME_MAX = 500;
const SUBTEST = /^(\s*)# Subtest: (.*)$/;
const RESULT = /^\s*(?:not )?ok \d/;
/** A span that has not ended (its suite is open). */
const OPEN = 2 ** 31 - 1;

/** The name a TAP `# Subtest: name` line opens (cut at TAP_NAME_MAX characters), or null. */
export function tapSubtest(line: string): string | null {
  const m = SUBTEST.exec(line);
  return m ? m[2].slice(0, TAP_NAME_MAX) : null;
}

/**
 * A TAP output's suites, fed every line in order: which result lines are suites' (the line right after a plan
 * indented deeper than itself: node --test prints a suite's subtests, their plan, then the suite's own
 * `ok`/`not ok`, which node does not count as a test), and the suites a test is in, so it is named
 * `suite > test` and two suites' tests of one name are two tests. node prints `# Subtest: name` before each test
 * and suite, the suite's subtests 4 deeper: a stack of those lines (at most TAP_DEPTH) by indentation; a result
 * line closes the deeper ones and its own (same indent, same name; a TAP 14 `# Subtest:` at its children's indent
 * names another, and stays their suite). With `spans`, each suite a test was in is kept as three numbers (its
 * `# Subtest:` line's record, its end, its parent), so `lro diff` can name a test from its record alone: it
 * reads back the lines of enclosing(n) (the names are not kept).
 */
export class TapSuites {
  private plan = -1;
  private readonly stack: { name: string; indent: number; line: number; span: number }[] = [];
  /** The names of the suites enclosing the last result line (null: to be joined again). */
  private path: string[] | null = [];
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private readonly parents: number[] = [];

  constructor(private readonly spans = false) {}

  /** Whether this line (record n) is a suite's result line; notes a plan for the next one, and the suites. */
  suite(line: string, n = 0): boolean {
    const indent = line.length - line.trimStart().length;
    const wasPlan = this.plan;
    this.plan = /^\s*1\.\.\d+\s*$/.test(line) ? indent : -1;
    if (line[indent] === '#') {
      const name = tapSubtest(line);
      if (name !== null) {
        this.close(indent - 1, n);
        if (this.stack.length < TAP_DEPTH) this.stack.push({ name, indent, line: n, span: -1 });
        this.path = null;
      }
      return false;
    }
    if (!RESULT.test(line)) return false;
    this.close(indent, n);
    const top = this.stack.at(-1);
    if (top && top.indent === indent && top.name === TAP.read(line)?.name.slice(0, TAP_NAME_MAX)) this.close(indent - 1, n);
    if (this.spans) this.keep();
    return wasPlan > indent;
  }

  /** Closes the suites indented deeper than `indent`, at record n. */
  private close(indent: number, n: number): void {
    while (this.stack.length && this.stack[this.stack.length - 1].indent > indent) {
      const s = this.stack.pop()!;
      if (s.span >= 0) this.ends[s.span] = n;
      this.path = null;
    }
  }

  /**
   * Keeps the spans of the suites open at a result line not kept yet, outermost first (so they are kept in order
   * of start; the kept ones are the stack's bottom, their parents kept before them).
   */
  private keep(): void {
    let i = this.stack.length;
    while (i > 0 && this.stack[i - 1].span < 0) i--;
    for (; i < this.stack.length; i++) {
      const s = this.stack[i];
      s.span = this.starts.length;
      this.starts.push(s.line);
      this.ends.push(OPEN);
      this.parents.push(i ? this.stack[i - 1].span : -1);
    }
  }

  /** The name of the test on the result line just fed: its suites' and its own (its bare name outside a suite). */
  named(name: string): string {
    if (!this.stack.length) return name;
    this.path ??= this.stack.map((s) => s.name);
    return tapPath(this.path, name);
  }

  /**
   * The records of the `# Subtest:` lines of the suites the result line at record n was in, outermost first
   * (kept with `spans`): the last suite that started before n, then its parents, until one had not ended at n.
   */
  enclosing(n: number): number[] {
    let lo = 0;
    let hi = this.starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.starts[mid] < n) lo = mid + 1;
      else hi = mid;
    }
    let s = lo - 1;
    while (s >= 0 && this.ends[s] <= n) s = this.parents[s];
    const out: number[] = [];
    for (; s >= 0; s = this.parents[s]) out.push(this.starts[s]);
    return out.reverse();
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

