// Test results in a runner's output, for `lro diff`'s newly failing / newly passing / still failing: the
// records of `go test -json` (Action pass, fail or skip, with Package and Test), and the lines runners print:
// go test -v (`--- FAIL: TestName`, `ok  pkg 0.1s`, `FAIL pkg 0.1s`), pytest (`path::test PASSED`, the
// summary's `FAILED path::test - reason`), jest and vitest (`FAIL src/a.test.ts > suite > name`). A name is what
// the runner calls the test; the same name in both results is the same test.
import type { JsonValue } from '../query/json-value.js';

export const PASS = 1;
export const FAIL = 2;
export const SKIP = 3;

/** One test's result as a line or record says it. */
export interface TestResult {
  name: string;
  status: number;
}

const isObject = (v: JsonValue): v is Record<string, JsonValue> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Whether a record is one of go test -json's events (it has a string Action and a string Package). */
export function isGoTestEvent(v: JsonValue): boolean {
  return isObject(v) && typeof v.Action === 'string' && typeof v.Package === 'string';
}

const GO_ACTIONS: Record<string, number> = { pass: PASS, fail: FAIL, skip: SKIP };

/** The result a go test -json record gives: a test's (`TestX (pkg)`), or a package's (`pkg (package)`). */
export function goTestResult(v: JsonValue): TestResult | null {
  if (!isObject(v) || typeof v.Action !== 'string' || typeof v.Package !== 'string') return null;
  const status = GO_ACTIONS[v.Action];
  if (status === undefined) return null;
  const name = typeof v.Test === 'string' ? `${v.Test} (${v.Package})` : `${v.Package} (package)`;
  return { name, status };
}

/** Words a result line holds; a line without any is not looked at further (most lines of a log). */
const MAYBE = /PASS|FAIL|SKIP|ERROR|^ok\s/;
const SGR = /\x1b\[[0-9;]*m/g;
/** go test -v: `--- FAIL: TestName (0.01s)`, subtests indented (`    --- PASS: TestA/b`). */
const GO_TEST = /^\s*--- (PASS|FAIL|SKIP): (\S+)/;
/** go test: a package's line, `ok  \tpkg\t0.01s`, `FAIL\tpkg\t0.02s`, `ok  \tpkg\t(cached)`. */
const GO_PACKAGE = /^(ok|FAIL)\s+(\S+)\s+(?:\d[\d.]*s|\(cached\)|\[)/;
/** pytest -v: `tests/test_a.py::test_b[1] PASSED   [ 10%]`. */
const PYTEST = /^(\S+::\S+)\s+(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b/;
/** pytest's short summary: `FAILED tests/test_a.py::test_b - AssertionError`. */
const PYTEST_SUMMARY = /^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S+::\S+)/;
/** jest and vitest: `FAIL src/a.test.ts > suite > name` (a test), `PASS src/a.test.js` (a file). */
const JS_RUNNER = /^\s*(PASS|FAIL)\s+(\S+\.[cm]?[jt]sx?\b.*?)\s*$/;

const WORDS: Record<string, number> = {
  PASS,
  FAIL,
  SKIP,
  ok: PASS,
  PASSED: PASS,
  FAILED: FAIL,
  ERROR: FAIL,
  SKIPPED: SKIP,
  XFAIL: SKIP,
  XPASS: PASS,
};

/** The test result a line of a runner's output states, or null. */
export function lineTestResult(line: string): TestResult | null {
  if (!MAYBE.test(line)) return null;
  const s = line.includes('\x1b') ? line.replace(SGR, '') : line;
  let m = GO_TEST.exec(s);
  if (m) return { name: m[2], status: WORDS[m[1]] };
  m = GO_PACKAGE.exec(s);
  if (m) return { name: `${m[2]} (package)`, status: WORDS[m[1]] };
  m = PYTEST.exec(s);
  if (m) return { name: m[1], status: WORDS[m[2]] };
  m = PYTEST_SUMMARY.exec(s);
  if (m) return { name: m[2], status: WORDS[m[1]] };
  m = JS_RUNNER.exec(s);
  if (m) return { name: m[2], status: WORDS[m[1]] };
  return null;
}
