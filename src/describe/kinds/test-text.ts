// The text of a test run: pytest -v (path::test PASSED), go test -v (--- FAIL: TestX), cargo test (test x ... ok).
// Passed, failed and skipped counts over the whole run, and the failing tests by name with their line, up front:
// those lines are the errors, and only those.
import { fed, type KindCounter, type KindFacts, type TextSample } from './types.js';
import { shellQuote } from '../shell.js';
import { CARGO_TEST, GO_TEST, OUTCOME, PYTEST, type ResultLine } from './test-lines.js';

/** The runners whose -v lines make a test run's text (a summary line repeats a test, so it is not one of them). */
const RUNNERS: ResultLine[] = [PYTEST, GO_TEST, CARGO_TEST];
/** Failing tests named (the descriptor shows them whole: see kind-summary.ts UNCUT). */
const NAMED = 20;
/**
 * Outcomes remembered to count a test once when a rerun plugin or a log printed twice tells it again; past this
 * many, a test told twice counts twice (memory stays bounded).
 */
const SEEN_MAX = 200_000;

class TestRunCounter implements KindCounter {
  private readonly counts: Record<string, number> = { passed: 0, failed: 0, skipped: 0 };
  private readonly seen = new Set<string>();
  private failed = 0;
  private readonly failing: { line: number; text: string; name: string }[] = [];
  private readonly lastFailing: { line: number; text: string; name: string }[] = [];

  constructor(private readonly r: ResultLine) {}

  line(l: string, n: number): void {
    const m = l.length < 600 ? this.r.read(l) : null;
    if (!m) return;
    const status = OUTCOME[m.word];
    const key = `${status} ${m.name}`;
    if (this.seen.has(key)) return;
    if (this.seen.size < SEEN_MAX) this.seen.add(key);
    this.counts[status]++;
    if (status !== 'failed') return;
    this.failed++;
    const f = { line: n, text: l.trim(), name: m.name };
    if (this.failing.length < NAMED) this.failing.push(f);
    else {
      this.lastFailing.push(f);
      if (this.lastFailing.length > 10) this.lastFailing.shift();
    }
  }

  get tests(): number {
    return this.counts.passed + this.counts.failed + this.counts.skipped;
  }

  end(): KindFacts {
    const r = this.r;
    const more = this.failed - this.failing.length;
    return {
      kind: 'test-run',
      facts: {
        runner: r.runner,
        tests: this.tests,
        ...this.counts,
        failing: this.failing.map((f) => f.name),
        ...(more > 0 ? { failing_not_named: more } : {}),
      },
      errors: 'own',
      errorLines: [...this.failing.slice(0, 10), ...this.failing.slice(10), ...this.lastFailing].map(({ line, text }) => ({ line, text })),
      errorCount: this.failed,
      levels: false,
      next: this.failing.length
        ? [`lro grep ID ${shellQuote(r.fail)} -F -C 3`, `lro read ID --records ${this.failing[0].line}:${this.failing[0].line + 30}`]
        : [],
    };
  }
}

export function countTestText(s: TextSample): KindCounter | null {
  for (const r of RUNNERS) {
    const c = fed(new TestRunCounter(r), s);
    if (c.tests >= 3) return c;
  }
  return null;
}
