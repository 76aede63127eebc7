// The text of a test run: pytest -v (path::test PASSED), go test -v (--- FAIL: TestX), cargo test (test x ... ok),
// vitest --reporter=verbose (✓ a.test.ts > suite > name), TAP as node --test prints it (not ok 3 - name).
// Passed, failed and skipped counts over the whole run, and the failing tests by name with their line, up front:
// those lines are the errors, and only those. Each failing test's own section (its traceback, assertion and
// output) is found by its lines too, so the next command reads it, not the progress lines: pytest's FAILURES (and
// ERRORS) block, a `____ test_name ____` heading per test; cargo's `failures:` block, `---- name stdout ----` per
// test; go test's lines from the test's last `=== RUN`/`=== CONT` to its `--- FAIL:`.
import { fed, type KindCounter, type KindFacts, type TextSample } from './types.js';
import type { Words } from '../commands.js';
import { CARGO_TEST, GO_PACKAGE, GO_TEST, OUTCOME, PYTEST, PYTEST_SUMMARY, type ResultLine, TAP, TapSuites, VITEST } from './test-lines.js';

/** The runners whose -v lines make a test run's text (a summary line repeats a test, so it is not one of them). */
const RUNNERS: ResultLine[] = [PYTEST, GO_TEST, CARGO_TEST, VITEST, TAP];
/** Failing tests named (the descriptor shows them whole: see kind-summary.ts UNCUT). */
const NAMED = 20;
/**
 * Outcomes remembered to count a test once when a rerun plugin or a log printed twice tells it again; past this
 * many, a test told twice counts twice (memory stays bounded).
 */
const SEEN_MAX = 200_000;
/** Sections remembered by their heading (a failing test's is looked up at the end). */
const SECTIONS_MAX = 2_000;
/** Lines of the failures block the first next command reads at most. */
const READ_LINES = 60;

/** A runner's sections of failures: the block that holds them, each test's heading, where a block ends. */
interface SectionRule {
  block: RegExp;
  heading: RegExp;
  /** A line that ends the block (and its last section). */
  end: RegExp;
  /** The heading's name for a failing test's name (pytest's `a.py::TestC::test_d` is headed `TestC.test_d`). */
  headed: (name: string) => string;
}

const SECTION_RULES: Record<string, SectionRule> = {
  pytest: {
    block: /^=+ (?:FAILURES|ERRORS) =+$/,
    heading: /^_{3,} (?:ERROR at \w+ of )?(.+?) _{3,}$/,
    end: /^=+ .+ =+$/,
    headed: (name) => name.split('::').slice(1).join('.'),
  },
  'cargo test': {
    block: /^failures:$/,
    heading: /^---- (\S+) stdout ----$/,
    end: /^(?:failures:|test result: .*)$/,
    headed: (name) => name,
  },
  vitest: {
    block: /^⎯+ Failed Tests \d+ ⎯+$/,
    heading: /^ FAIL {2}(.+?)\s*$/,
    end: /^(?:⎯+ [A-Z][\w ]+ ⎯+| Test Files .*)$/,
    headed: (name) => name,
  },
};
/** TAP's YAML block under a result line ends with `...` (a failing test's section: its line to that end). */
const TAP_END = /^\s*\.\.\.\s*$/;
const GO_START = /^\s*=== (?:RUN|CONT)\s+(\S+)/;
const GO_FAIL = /^\s*--- FAIL: (\S+)/;
/** pytest without -v: a progress line, a character per test (`test_a.py ..F.s   [ 25%]`, `-q`: no file). */
const PYTEST_PROGRESS = /^(?:\S+\.py )?([.FEsxX]+) *\[ *\d+%\]$/;
/** What a progress character says of its test. */
const PROGRESS_OUTCOME: Record<string, 'passed' | 'failed' | 'skipped'> = { '.': 'passed', X: 'passed', F: 'failed', E: 'failed', s: 'skipped', x: 'skipped' };

class TestRunCounter implements KindCounter {
  private readonly counts: Record<string, number> = { passed: 0, failed: 0, skipped: 0 };
  private readonly seen = new Set<string>();
  private failed = 0;
  private readonly failing: { line: number; text: string; name: string }[] = [];
  private readonly lastFailing: { line: number; text: string; name: string }[] = [];
  /** Each section's lines by its heading's name (go: by test name, its start until its FAIL line ends it). */
  private readonly sections = new Map<string, { from: number; to: number }>();
  private readonly rule: SectionRule | undefined;
  /** The failures block: where it starts and ends (to: 0 while open), and the section being read in it. */
  private block: { from: number; to: number } | null = null;
  private open: { from: number; to: number } | null = null;
  private goStarts = new Map<string, number>();
  private readonly suites = new TapSuites();
  /** A failing TAP test whose YAML block is being read: its name (with its suites) and first line. */
  private tapOpen: { name: string; from: number } | null = null;

  constructor(private readonly r: ResultLine) {
    this.rule = SECTION_RULES[r.runner];
  }

  /** Notes the failure sections' bounds (see SectionRule); `m` is the line's test result, `tapSuite` a TAP suite's line. */
  private section(l: string, n: number, m: { word: string; name: string } | null, tapSuite: boolean): void {
    if (this.r === GO_TEST) {
      const start = GO_START.exec(l);
      if (start) {
        if (this.goStarts.size >= SECTIONS_MAX) this.goStarts.clear();
        this.goStarts.set(start[1], n);
        return;
      }
      const fail = GO_FAIL.exec(l);
      const from = fail && this.goStarts.get(fail[1]);
      if (fail && from && this.sections.size < SECTIONS_MAX) this.sections.set(fail[1], { from, to: n });
      return;
    }
    if (this.r === TAP) {
      if (m || tapSuite) this.tapOpen = m?.word === 'not ok' ? { name: m.name, from: n } : null;
      else if (this.tapOpen && TAP_END.test(l)) {
        if (this.sections.size < SECTIONS_MAX && !this.sections.has(this.tapOpen.name)) this.sections.set(this.tapOpen.name, { from: this.tapOpen.from, to: n });
        this.tapOpen = null;
      }
      return;
    }
    const rule = this.rule;
    if (!rule) return;
    if (!this.block || this.block.to) {
      // (a second block, pytest's ERRORS after FAILURES, extends the first)
      if (rule.block.test(l)) this.block = { from: this.block?.from ?? n, to: 0 };
      return;
    }
    const heading = rule.heading.exec(l);
    if (heading || rule.end.test(l)) {
      if (this.open) this.open.to = n - 1;
      this.open = null;
    }
    if (heading) {
      this.open = { from: n, to: 0 };
      if (this.sections.size < SECTIONS_MAX && !this.sections.has(heading[1])) this.sections.set(heading[1], this.open);
    } else if (rule.end.test(l)) this.block.to = n - 1;
  }

  /** pytest without -v: the tests are counted from the progress lines, and named by the short summary's FAILED lines. */
  private progress = false;

  /** A line of pytest's progress or, after one, of its short summary: whether it was one. */
  private pytestProgress(l: string, n: number): boolean {
    const p = PYTEST_PROGRESS.exec(l);
    if (p) {
      this.progress = true;
      for (const c of p[1]) {
        const status = PROGRESS_OUTCOME[c];
        this.counts[status]++;
        if (status === 'failed') this.failed++;
      }
      return true;
    }
    const summary = this.progress ? PYTEST_SUMMARY.read(l) : null;
    if (!summary || OUTCOME[summary.word] !== 'failed') return false;
    // (counted from its character already: named here)
    if (!this.seen.has(`failed ${summary.name}`) && this.failing.length < NAMED) {
      this.seen.add(`failed ${summary.name}`);
      this.failing.push({ line: n, text: l.trim(), name: summary.name });
    }
    return true;
  }

  line(l: string, n: number): void {
    if (this.r === PYTEST && l.length < 600 && this.pytestProgress(l, n)) {
      this.section(l, n, null, false);
      return;
    }
    // (a TAP suite's own line is not a test: node --test counts its subtests alone; a TAP test is named with its
    // suites, `cart > total 4`, so two suites' tests of one name are two tests)
    const tapSuite = this.r === TAP && this.suites.suite(l);
    const read = l.length < 600 && !tapSuite ? this.r.read(l) : null;
    const m = read && this.r === TAP ? { word: read.word, name: this.suites.named(read.name) } : read;
    if (l.length < 600) this.section(l, n, m, tapSuite);
    if (!m) {
      if (this.r === GO_TEST && l.length < 600) this.goPackage(l);
      return;
    }
    const status = OUTCOME[m.word];
    // (go test: a test is its package's; its tests come before its ok/FAIL line, and two packages may each have a
    // TestParse)
    const key = this.r === GO_TEST ? `${status} ${this.packages.ok + this.packages.failed} ${m.name}` : `${status} ${m.name}`;
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

  /** go test's packages: ok and failed, and the failed ones' names (a package that fails to build has no test). */
  private readonly packages = { ok: 0, failed: 0 };
  private readonly failedPackages: string[] = [];

  private goPackage(l: string): void {
    const p = GO_PACKAGE.read(l);
    if (!p) return;
    if (p.word === 'ok') this.packages.ok++;
    else {
      this.packages.failed++;
      if (this.failedPackages.length < NAMED) this.failedPackages.push(p.name.replace(/ \(package\)$/, ''));
    }
  }

  get tests(): number {
    return this.counts.passed + this.counts.failed + this.counts.skipped;
  }

  /** The failing tests' sections as `from:to` by test name, and the block that holds them. */
  private failureSections(total: number): { at: Record<string, string>; block: { from: number; to: number } | null } {
    if (this.open && !this.open.to) this.open.to = total;
    const block = this.block ? { from: this.block.from, to: this.block.to || total } : null;
    const at: Record<string, string> = {};
    for (const f of this.failing) {
      const s = this.sections.get(this.rule ? this.rule.headed(f.name) : f.name);
      if (s) at[f.name] = `${s.from}:${s.to}`;
    }
    return { at, block };
  }

  end(total: number): KindFacts {
    const r = this.r;
    const more = this.failed - this.failing.length;
    const { at, block } = this.failureSections(total);
    const first = this.failing.find((f) => at[f.name]);
    // the next command reads the failures themselves: the block from its start (60 lines at most), else the first
    // failing test's own section, else the lines after its result line
    const read: Words | null = block
      ? ['read', 'ID', '--records', `${block.from}:${Math.min(block.to, block.from + READ_LINES)}`]
      : first
        ? ['read', 'ID', '--records', `${at[first.name]}`]
        : this.failing.length
          ? ['read', 'ID', '--records', `${this.failing[0].line}:${this.failing[0].line + 30}`]
          : null;
    return {
      kind: 'test-run',
      facts: {
        runner: r.runner,
        tests: this.tests,
        ...this.counts,
        failing: this.failing.map((f) => f.name),
        ...(more > 0 ? { failing_not_named: more } : {}),
        ...(block ? { failures_section: `${block.from}:${block.to}` } : {}),
        ...(Object.keys(at).length ? { failure_lines: at } : {}),
        ...(r === GO_TEST && this.packages.ok + this.packages.failed ? { packages: { ...this.packages }, ...(this.failedPackages.length ? { failed_packages: this.failedPackages } : {}) } : {}),
      },
      errors: 'own',
      errorLines: [...this.failing.slice(0, 10), ...this.failing.slice(10), ...this.lastFailing].map(({ line, text }) => ({ line, text })),
      errorCount: this.failed,
      levels: false,
      // (a pattern that starts with - goes after --: go's `--- FAIL: ` is no option)
      nextCommands: read ? [read, grepFailed(this.progress ? PYTEST_SUMMARY.fail : r.fail)] : [],
    };
  }
}

/** The grep of a runner's failure lines (pytest without -v: its summary's `FAILED `); a pattern that starts with -
 * goes after -- (go's `--- FAIL: ` is no option). */
function grepFailed(fail: string): Words {
  return fail.startsWith('-') ? ['grep', 'ID', '-F', '-C', '3', '--', fail] : ['grep', 'ID', fail, '-F', '-C', '3'];
}

export function countTestText(s: TextSample): KindCounter | null {
  for (const r of RUNNERS) {
    const c = fed(new TestRunCounter(r), s);
    if (c.tests >= 3) return c;
  }
  return null;
}
