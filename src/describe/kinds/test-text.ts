// The text of a test run: pytest -v (path::test PASSED), go test -v (--- FAIL: TestX), cargo test (test x ... ok).
// Passed, failed and skipped counts, and the failing tests by name with their line, up front: those lines are
// the errors, and only those.
import type { KindFacts, TextSample } from './types.js';
import { shellQuote } from '../shell.js';

interface Runner {
  name: string;
  /** A line's test outcome: [status, test name] or null. */
  line: (l: string) => [string, string] | null;
  fail: string;
}

const RUNNERS: Runner[] = [
  {
    name: 'pytest',
    line: (l) => {
      const m = /^(\S+::\S+(?: \S+)*?) (PASSED|FAILED|SKIPPED|ERROR|XFAIL|XPASS)\b/.exec(l);
      return m ? [m[2], m[1]] : null;
    },
    fail: ' FAILED',
  },
  {
    name: 'go test',
    line: (l) => {
      const m = /^\s*--- (PASS|FAIL|SKIP): (\S+)/.exec(l);
      return m ? [m[1], m[2]] : null;
    },
    fail: '--- FAIL: ',
  },
  {
    name: 'cargo test',
    line: (l) => {
      const m = /^test (\S+) \.\.\. (ok|FAILED|ignored)$/.exec(l);
      return m ? [m[2], m[1]] : null;
    },
    fail: ' ... FAILED',
  },
];

const STATUS: Record<string, string> = {
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
};

export function detectTestText(s: TextSample): KindFacts | null {
  for (const r of RUNNERS) {
    const counts: Record<string, number> = { passed: 0, failed: 0, skipped: 0 };
    const failing: { line: number; text: string }[] = [];
    const seen = new Set<string>();
    s.lines.forEach((l, i) => {
      const m = l.length < 600 ? r.line(l) : null;
      if (!m) return;
      const status = STATUS[m[0]];
      // pytest repeats a failure in its short summary ("FAILED path::test - …"); a name counts once
      const key = `${status} ${m[1]}`;
      if (seen.has(key)) return;
      seen.add(key);
      counts[status]++;
      if (status === 'failed') failing.push({ line: i + 1, text: l.trim() });
    });
    const tests = counts.passed + counts.failed + counts.skipped;
    if (tests < 3) continue;
    const names = failing.map((f) => r.line(f.text.startsWith('---') ? f.text : s.lines[f.line - 1])![1]);
    return {
      kind: 'test-run',
      facts: {
        runner: r.name,
        tests,
        ...counts,
        ...(s.complete ? {} : { from_first_lines: s.lines.length }),
        failing: names.slice(0, 20),
      },
      errors: 'own',
      errorLines: failing,
      errorCount: failing.length,
      levels: false,
      next: failing.length
        ? [`lro grep ID ${shellQuote(r.fail)} -F -C 3`, `lro read ID --records ${failing[0].line}:${failing[0].line + 30}`]
        : [],
    };
  }
  return null;
}
