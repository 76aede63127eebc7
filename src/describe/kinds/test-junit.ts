// A JUnit XML test report (the junit reporters of vitest, jest, pytest, maven, gradle): passed, failed and skipped
// counted over every <testcase> of the file, the failing tests by name (classname > name) with their failure
// message, and each failing test's own <testcase> element addressable by its lines, so the next command reads
// exactly it. Read line by line (vitest and jest write an element per line, pytest the whole report on one), memory bounded by the names kept.
import { fed, KIND_LINE_CHARS, type KindCounter, type KindFacts, type TextSample } from './types.js';
import { junitLine, type JunitLine, type Outcome } from './test-lines.js';

/** Failing tests named (the descriptor shows them whole). */
const NAMED = 20;
/** Characters of a failure message kept. */
const MESSAGE_CHARS = 200;
/** Lines of the sample that may hold the report's root element. */
const ROOT_LINES = 5;

class JunitCounter implements KindCounter {
  private readonly counts: Record<Outcome, number> = { passed: 0, failed: 0, skipped: 0 };
  private failed = 0;
  private readonly failing: { name: string; line: number; text: string; message: string; to: number }[] = [];
  /** The testcase being read: its name, first line, outcome so far and failure message. */
  private open: { name: string; from: number; text: string; status: Outcome; message: string } | null = null;

  private close(to: number): void {
    const o = this.open;
    this.open = null;
    if (!o) return;
    this.counts[o.status]++;
    if (o.status !== 'failed') return;
    this.failed++;
    if (this.failing.length < NAMED) this.failing.push({ name: o.name, line: o.from, text: o.text, message: o.message, to });
  }

  /** A line longer than a counter sees (a long one-line report): its counts would not be the whole file's. */
  private cut = false;

  line(l: string, n: number): void {
    if (l.length >= KIND_LINE_CHARS) this.cut = true;
    for (const j of junitLine(l)) this.element(j, l, n);
  }

  private element(j: JunitLine, l: string, n: number): void {
    if (j.tag === 'case') {
      this.close(this.open?.from === n ? n : n - 1);
      this.open = { name: j.name, from: n, text: l.trim(), status: 'passed', message: '' };
      if (j.closed) this.close(n);
    } else if (j.tag === 'end') this.close(n);
    else if (this.open && j.tag === 'failed') {
      this.open.status = 'failed';
      this.open.message ||= j.message.length > MESSAGE_CHARS ? `${j.message.slice(0, MESSAGE_CHARS)}…` : j.message;
    } else if (this.open && j.tag === 'skipped' && this.open.status === 'passed') this.open.status = 'skipped';
  }

  get tests(): number {
    return this.counts.passed + this.counts.failed + this.counts.skipped;
  }

  end(total: number): KindFacts | null {
    if (this.cut) return null;
    if (this.open) this.close(total);
    const more = this.failed - this.failing.length;
    const first = this.failing[0];
    return {
      kind: 'test-run',
      facts: {
        runner: 'junit',
        tests: this.tests,
        ...this.counts,
        failing: this.failing.map((f) => f.name),
        ...(more > 0 ? { failing_not_named: more } : {}),
        ...(this.failing.length ? { failure_lines: Object.fromEntries(this.failing.map((f) => [f.name, `${f.line}:${f.to}`])) } : {}),
        ...(this.failing.length ? { failure_messages: Object.fromEntries(this.failing.map((f) => [f.name, f.message])) } : {}),
      },
      errors: 'own',
      errorLines: this.failing.slice(0, 10).map(({ line, text }) => ({ line, text })),
      errorCount: this.failed,
      levels: false,
      next: first ? [`lro read ID --records ${first.line}:${first.to}`, `lro grep ID '<failure' -F -C 3`] : [],
    };
  }
}

/** A JUnit report: a `<testsuites` or `<testsuite` root in its first lines, and a testcase in the sample. */
export function countJunit(s: TextSample): KindCounter | null {
  if (!s.lines.slice(0, ROOT_LINES).some((l) => /<testsuites?[\s>]/.test(l))) return null;
  const c = fed(new JunitCounter(), s);
  return c.tests > 0 || s.lines.some((l) => l.includes('<testcase')) ? c : null;
}
