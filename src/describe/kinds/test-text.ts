// The text of a test run: pytest -v (path::test PASSED), go test -v (--- FAIL: TestX), cargo test (test x ... ok).
// Passed, failed and skipped counts, and the failing tests by name with their line, up front: those lines are
// the errors, and only those.
import type { KindFacts, TextSample } from './types.js';
import { shellQuote } from '../shell.js';
import { CARGO_TEST, GO_TEST, OUTCOME, PYTEST, type ResultLine } from './test-lines.js';

/** The runners whose -v lines make a test run's text (a summary line repeats a test, so it is not one of them). */
const RUNNERS: ResultLine[] = [PYTEST, GO_TEST, CARGO_TEST];

export function detectTestText(s: TextSample): KindFacts | null {
  for (const r of RUNNERS) {
    const counts: Record<string, number> = { passed: 0, failed: 0, skipped: 0 };
    const failing: { line: number; text: string }[] = [];
    const seen = new Set<string>();
    s.lines.forEach((l, i) => {
      const m = l.length < 600 ? r.read(l) : null;
      if (!m) return;
      const status = OUTCOME[m.word];
      // a name counts once (a rerun plugin, or a log printed twice, tells a test again)
      const key = `${status} ${m.name}`;
      if (seen.has(key)) return;
      seen.add(key);
      counts[status]++;
      if (status === 'failed') failing.push({ line: i + 1, text: l.trim() });
    });
    const tests = counts.passed + counts.failed + counts.skipped;
    if (tests < 3) continue;
    const names = failing.map((f) => r.read(f.text.startsWith('---') ? f.text : s.lines[f.line - 1])!.name);
    return {
      kind: 'test-run',
      facts: {
        runner: r.runner,
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
