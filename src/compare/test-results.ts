// Test results in a runner's output, for `lro diff`'s newly failing / newly passing / still failing: the
// records of `go test -json` (Action pass, fail or skip, with Package and Test), and the lines runners print:
// go test -v (`--- FAIL: TestName`, `ok  pkg 0.1s`, `FAIL pkg 0.1s`), pytest (`path::test PASSED`, the
// summary's `FAILED path::test - reason`), jest and vitest (`FAIL src/a.test.ts > suite > name`), cargo test
// (`test a::b ... FAILED`), vitest's verbose lines (`× a.test.ts > suite > name`), TAP
// (`not ok 3 - name`, node --test), JUnit XML (a `<testcase>` and the `<failure>` in it: compare/tests.ts reads
// those, a test's outcome being known at its element's end), each read as the descriptor reads it (describe/kinds/test-lines.ts). A name is what the
// runner calls the test; the same name in both results is the same test.
import type { JsonValue } from '../values/json-value.js';
import {
  CARGO_TEST,
  goOutcome,
  GO_PACKAGE,
  GO_TEST,
  JS_RUNNER,
  OUTCOME,
  type Outcome,
  PYTEST,
  PYTEST_SUMMARY,
  TAP,
  VITEST,
} from '../describe/kinds/test-lines.js';

export const PASS = 1;
export const FAIL = 2;
export const SKIP = 3;

/** One test's result as a line or record says it. */
export interface TestResult {
  name: string;
  status: number;
  /** A TAP line's (its name is the test's own: its suites are told by the lines before, see TapSuites). */
  tap?: true;
}

const isObject = (v: JsonValue): v is Record<string, JsonValue> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Whether a record is one of go test -json's events (it has a string Action and a string Package). */
export function isGoTestEvent(v: JsonValue): boolean {
  return isObject(v) && typeof v.Action === 'string' && typeof v.Package === 'string';
}

const STATUS: Record<Outcome, number> = { passed: PASS, failed: FAIL, skipped: SKIP };

/** The result a go test -json record gives: a test's (`TestX (pkg)`), or a package's (`pkg (package)`). */
export function goTestResult(v: JsonValue): TestResult | null {
  if (!isObject(v) || typeof v.Action !== 'string' || typeof v.Package !== 'string') return null;
  const outcome = goOutcome(v.Action);
  if (outcome === undefined) return null;
  const name = typeof v.Test === 'string' ? `${v.Test} (${v.Package})` : `${v.Package} (package)`;
  return { name, status: STATUS[outcome] };
}

/** Words a result line holds; a line without any is not looked at further (most lines of a log). */
const MAYBE = /PASS|FAIL|SKIP|ERROR|ignored|^ok\s| ok$|ok \d|[✓×↓]/;
const SGR = /\x1b\[[0-9;]*m/g;
/** Every kind of line that tells a test's result, the first that reads a line wins. */
const LINES = [GO_TEST, GO_PACKAGE, PYTEST, PYTEST_SUMMARY, JS_RUNNER, CARGO_TEST, VITEST, TAP];

/** The test result a line of a runner's output states, or null. */
export function lineTestResult(line: string): TestResult | null {
  if (!MAYBE.test(line)) return null;
  const s = line.includes('\x1b') ? line.replace(SGR, '') : line;
  for (const kind of LINES) {
    const m = kind.read(s);
    if (m) return kind === TAP ? { name: m.name, status: STATUS[OUTCOME[m.word]], tap: true } : { name: m.name, status: STATUS[OUTCOME[m.word]] };
  }
  return null;
}
