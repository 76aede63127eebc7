// Two runs of a test suite compared test by test: each test's last status in A and in B (a test re-run keeps
// its last word), and the tests that fail in B and did not in A (newly failing), that failed in A and pass in B
// (newly passing), that fail in both (still failing). Held by hash: a name is read back from its record only
// for the items printed. A test failing in B is shown with its failure message: what its summary line says after
// the name (pytest's `FAILED path::test - AssertionError: …`), else the line of its output that tells where and
// why (go's last `    cart_test.go:12: got 3, want 4`, vitest's `→ expected 4 to be 3`, in go test -v's text under the test's `=== RUN` or `=== CONT`
// line, or in go test -json's output events of the test), kept as a record number per test. Two JUnit reports are
// read tag by tag instead (their testcases need not have lines of their own: pytest writes a report on one line):
// each test comes with its name, its <testcase>'s line and its <failure>'s message, and the names and messages the
// lists need are kept as they pass (`named`).
import { parseRecord, type JsonValue } from '../values/json-value.js';
import { HASH, hashString, KeyTable } from './hash.js';
import type { DiffItem, Section, TestTally } from './model.js';
import { TapSuites, tapPath, tapSubtest } from '../describe/kinds/test-lines.js';
import type { JunitTest } from '../describe/kinds/test-junit.js';
import { FAIL, goTestResult, lineTestResult, PASS, SKIP, type TestResult } from './test-results.js';

type Change = 'newly_failing' | 'newly_passing' | 'still_failing';

/** A line of go test's output that says where and why a test failed: `    cart_test.go:12: got 3, want 4`. */
const GO_MESSAGE = /^\s+[\w./-]+_test\.go:\d+: \S/;
/** vitest's line under a failing test's `×` line: `   → expected 4 to be 3 // Object.is equality`. */
const VITEST_MESSAGE = /^\s+→ \S/;
/** TAP's (node --test) message in a failing test's YAML block: `error: 'msg'`, or `error: |-` and the message below. */
const TAP_ERROR = /^\s+error: (?:'(.+)'|"(.+)"|(\|-?))\s*$/;
/** Records of a TAP message's block (`error: |-` and the lines below) kept at most (blank lines make more). */
const TAP_BLOCK_RECORDS = 100;
/** go test -v's line before a test's lines: `=== RUN   TestA/b`, `=== CONT  TestA/b`, `=== NAME  TestA`. */
const GO_RUN = /^=== (?:RUN|CONT|NAME)\s+(\S+)/;
/** Characters of a failure message shown. */
const MAX_MESSAGE = 300;
/** JUnit tests named per side (see TestCompare.named). */
const NAMED_MAX = 100_000;

/** A go test -json output event of a test. */
function isGoOutput(v: JsonValue): v is { Action: 'output'; Test: string; Package: string; Output: string } {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const o = v as Record<string, JsonValue>;
  return o.Action === 'output' && typeof o.Test === 'string' && typeof o.Package === 'string' && typeof o.Output === 'string';
}

/** The message a failing test's result line holds itself (pytest's short summary), or undefined. */
function ownMessage(line: string): string | undefined {
  const m = /^(?:FAILED|ERROR) \S+::\S+ - (.+)$/.exec(line);
  return m ? m[1] : undefined;
}

export class TestCompare {
  private readonly table = new KeyTable();
  readonly tally: [TestTally, TestTally] = [
    { passed: 0, failed: 0, skipped: 0 },
    { passed: 0, failed: 0, skipped: 0 },
  ];
  private lists: Record<Change, [number, number][]> | null = null;
  /** B's failing tests (by their name's hash) → the record of their message line (a TAP block's first). */
  private readonly messages = new Map<string, number>();
  /**
   * A TAP message's block of lines: its first record → its last (negative: the block went on past the records
   * kept). Read back for the tests printed, as any message line: the text is not kept.
   */
  private readonly messageEnd = new Map<number, number>();
  /** The same by the test's result record in B (once finished). */
  private readonly messageAt = new Map<number, number>();
  /** The test B's go test -v lines are about (its last `=== RUN`, `=== CONT` or result line), by its name's hash. */
  private current = '';
  /**
   * Each side's TAP suites (their result lines are no tests; a test is named with the suites it is in, whose
   * `# Subtest:` lines are read back with its own), and B's TAP message block being read (`error: |-`): the test's
   * hash, the indent of `error:` (a line no deeper ends it), its first and last nonblank records, the characters
   * so far; full once past MAX_MESSAGE or TAP_BLOCK_RECORDS (more: lines of it came after).
   */
  private readonly suites = [new TapSuites(true), new TapSuites(true)];
  private tapBlock: { key: string; indent: number; from: number; to: number; chars: number; full: boolean; more: boolean } | null = null;
  /**
   * JUnit tests by their number in their report (as a record number): their name and message, for the tests the
   * lists can hold (A's failing ones; B's failing ones and those that failed in A), at most NAMED_MAX a side (a
   * test past it is listed as `?`); and each test's <testcase> line, by its number.
   */
  private readonly named = [new Map<number, { name: string; message: string }>(), new Map<number, { name: string; message: string }>()];
  private readonly failedA = new Set<string>();
  private readonly lineOf: number[][] = [[], []];

  /** The test result line n of a side's text states, or null (a TAP suite's line is none). */
  lineResult(side: number, line: string, n: number): TestResult | null {
    const tap = this.suites[side];
    if (tap.suite(line, n)) {
      // (the lines under a suite's line are about the suite: its `error: '1 subtest failed'` is no test's message)
      if (side === 1) {
        this.endTapBlock();
        this.current = '';
      }
      return null;
    }
    const r = lineTestResult(line);
    if (r?.tap) r.name = tap.named(r.name);
    return r;
  }

  /** A test of a side's JUnit report, as read (sides in order: A whole, then B). */
  junitTest(side: number, t: JunitTest): void {
    const n = this.lineOf[side].push(t.line);
    const status = t.status === 'failed' ? FAIL : t.status === 'skipped' ? SKIP : PASS;
    this.add(side, n, { name: t.name, status });
    const key = `${HASH[0]}:${HASH[1]}`;
    if (side === 0 && status === FAIL) this.failedA.add(key);
    const wanted = status === FAIL || (side === 1 && this.failedA.has(key));
    if (wanted && this.named[side].size < NAMED_MAX) this.named[side].set(n, { name: t.name, message: t.message });
  }

  /** Whether the sides are JUnit reports (their tests are named as read, not read back from records). */
  private get junit(): boolean {
    return this.lineOf[0].length + this.lineOf[1].length > 0;
  }

  /** Whether either side had any test result. */
  get found(): boolean {
    return this.table.size > 0;
  }

  /** A test result seen on a side, in record n. */
  add(side: number, n: number, r: TestResult): void {
    if (side === 1) this.endTapBlock();
    hashString(r.name);
    this.table.set(HASH[0], HASH[1], side, 0, r.status, n);
    if (side === 1) this.current = `${HASH[0]}:${HASH[1]}`;
  }

  /**
   * A line of B's text that is no result: a go test -v line that names the test the next lines are about, or a
   * message line, kept (the last, as the test's last record is) for that test: parallel tests' messages come
   * under their `=== CONT` line.
   */
  line(side: number, n: number, text: string): void {
    if (side !== 1) return;
    if (this.tapBlock && this.tapBlockLine(n, text)) return;
    const tap = TAP_ERROR.exec(text);
    if (tap && this.current) {
      if (tap[3]) {
        const indent = text.length - text.trimStart().length;
        this.tapBlock = { key: this.current, indent, from: 0, to: 0, chars: 0, full: false, more: false };
      } else this.messages.set(this.current, n);
      return;
    }
    const run = GO_RUN.exec(text);
    if (run) {
      hashString(run[1]);
      this.current = `${HASH[0]}:${HASH[1]}`;
    } else if (this.current && (GO_MESSAGE.test(text) || VITEST_MESSAGE.test(text))) this.messages.set(this.current, n);
  }

  /** Whether line n of B is in the TAP message block being read (indented deeper than its `error:`, or blank). */
  private tapBlockLine(n: number, text: string): boolean {
    const b = this.tapBlock!;
    const t = text.trim();
    if (!t) return true;
    if (text.length - text.trimStart().length <= b.indent) {
      this.endTapBlock();
      return false;
    }
    // (blank lines may come between: the records read back stay TAP_BLOCK_RECORDS at most)
    if (b.full || (b.from && n - b.from >= TAP_BLOCK_RECORDS)) b.full = b.more = true;
    else {
      b.chars += b.from ? t.length + 3 : t.length;
      b.from ||= n;
      b.to = n;
      b.full = b.chars > MAX_MESSAGE || b.to - b.from + 1 >= TAP_BLOCK_RECORDS;
    }
    return true;
  }

  /** Keeps the TAP message block read (its records) for its test. */
  private endTapBlock(): void {
    const b = this.tapBlock;
    if (!b) return;
    this.tapBlock = null;
    if (!b.from) return;
    this.messages.set(b.key, b.from);
    if (b.to > b.from || b.more) this.messageEnd.set(b.from, b.more ? -b.to : b.to);
  }

  /** A go test -json output event of B: its message line is kept for its test (the last one). */
  output(side: number, n: number, text: string): void {
    if (side !== 1 || !text.includes('"output"')) return;
    let v;
    try {
      v = parseRecord(text);
    } catch {
      return;
    }
    if (!isGoOutput(v) || !GO_MESSAGE.test(v.Output)) return;
    hashString(`${v.Test} (${v.Package})`);
    this.messages.set(`${HASH[0]}:${HASH[1]}`, n);
  }

  /** The record's test result, as a JSON record (go test -json) or as a line of a runner. */
  static fromRecord(text: string, json: boolean): TestResult | null {
    if (!json) return lineTestResult(text);
    if (!text.includes('"Action"')) return null;
    try {
      return goTestResult(parseRecord(text));
    } catch {
      return null;
    }
  }

  /** Sorts the tests into the three lists (by their record in B, else in A) and counts each side's results. */
  private finish(): Record<Change, [number, number][]> {
    if (this.lists) return this.lists;
    this.endTapBlock();
    const lists: Record<Change, [number, number][]> = { newly_failing: [], newly_passing: [], still_failing: [] };
    const tallyOf = (side: number, status: number) => {
      const t = this.tally[side];
      if (status === PASS) t.passed++;
      else if (status === FAIL) t.failed++;
      else if (status === SKIP) t.skipped++;
    };
    this.table.forEach((na, nb, _same, sa, sb, kh, kl) => {
      if (na) tallyOf(0, sa);
      if (nb) tallyOf(1, sb);
      const failedA = na !== 0 && sa === FAIL;
      const failedB = nb !== 0 && sb === FAIL;
      const m = failedB ? this.messages.get(`${kh}:${kl}`) : undefined;
      if (m) this.messageAt.set(nb, m);
      if (failedB) lists[failedA ? 'still_failing' : 'newly_failing'].push([na, nb]);
      else if (failedA && nb !== 0 && sb === PASS) lists.newly_passing.push([na, nb]);
    });
    for (const l of Object.values(lists)) l.sort((x, y) => x[1] - y[1] || x[0] - y[0]);
    this.lists = lists;
    return lists;
  }

  counts(): Record<Change, number> {
    const l = this.finish();
    return { newly_failing: l.newly_failing.length, newly_passing: l.newly_passing.length, still_failing: l.still_failing.length };
  }

  /** The records of a message: its line, or a TAP block's lines (first to last). */
  private messageRecords(m: number): number[] {
    const end = Math.abs(this.messageEnd.get(m) ?? m);
    return Array.from({ length: end - m + 1 }, (_, i) => m + i);
  }

  /**
   * A failing test's message: its result line's own (pytest's summary), else its message line's, trimmed; a TAP
   * block's lines (`error: |-`, then `Expected values to be strictly equal:`, ``, `8 !== 4`) joined by ` / `,
   * blank lines left out.
   */
  private message(nb: number, text: string, json: boolean, texts: Map<number, string>): string | undefined {
    const own = json ? undefined : ownMessage(text);
    const m = this.messageAt.get(nb);
    const end = m ? this.messageEnd.get(m) : undefined;
    if (!own && m && end !== undefined) {
      const lines = this.messageRecords(m).map((k) => texts.get(k)?.trim() ?? '');
      const t = lines.filter((l) => l).join(' / ');
      return t.length > MAX_MESSAGE ? `${t.slice(0, MAX_MESSAGE)}…` : end < 0 ? `${t} …` : t;
    }
    let line = own ?? (m ? texts.get(m) : undefined);
    if (line !== undefined && json && m) {
      try {
        const v = parseRecord(line);
        line = isGoOutput(v) ? v.Output : undefined;
      } catch {
        line = undefined;
      }
    }
    const t = line?.trim();
    return t ? (t.length > MAX_MESSAGE ? `${t.slice(0, MAX_MESSAGE)}…` : t) : undefined;
  }

  /** An item of two JUnit reports: the test as read, its <testcase>'s line on each side (as record_a, record_b). */
  private junitItem(change: Change, na: number, nb: number): DiffItem {
    const a = na ? this.named[0].get(na) : undefined;
    const b = nb ? this.named[1].get(nb) : undefined;
    const message = change === 'newly_passing' ? undefined : b?.message;
    return {
      type: 'test',
      change,
      name: b?.name ?? a?.name ?? '?',
      ...(na ? { record_a: this.lineOf[0][na - 1] } : {}),
      ...(nb ? { record_b: this.lineOf[1][nb - 1] } : {}),
      ...(message ? { message } : {}),
    };
  }

  /** The three sections; `json` says how each side's records are read back (go test -json, or lines). */
  sections(json: [boolean, boolean]): Section[] {
    const lists = this.finish();
    const section = (change: Change, heading: string): Section => {
      const l = lists[change];
      return {
        heading,
        size: l.length,
        needs: (i) => {
          const [na, nb] = l[i];
          if (this.junit) return {};
          const m = this.messageAt.get(nb);
          // (a TAP test's suites: their `# Subtest:` lines)
          return nb ? { b: [nb, ...(m ? this.messageRecords(m) : []), ...this.suites[1].enclosing(nb)] } : { a: [na, ...this.suites[0].enclosing(na)] };
        },
        item: (i, t): DiffItem => {
          const [na, nb] = l[i];
          if (this.junit) return this.junitItem(change, na, nb);
          const [side, n, texts] = nb ? [1, nb, t.b] : [0, na, t.a];
          const text = texts.get(n);
          const r = TestCompare.fromRecord(text ?? '', json[side]);
          const suites = r?.tap ? this.suites[side].enclosing(n).map((k) => tapSubtest(texts.get(k) ?? '') ?? '?') : [];
          const name = r ? tapPath(suites, r.name) : '?';
          const message = change === 'newly_passing' || !nb ? undefined : this.message(nb, text ?? '', json[1], t.b);
          return { type: 'test', change, name, ...(na ? { record_a: na } : {}), ...(nb ? { record_b: nb } : {}), ...(message ? { message } : {}) };
        },
      };
    };
    return [
      section('newly_failing', 'tests newly failing'),
      section('newly_passing', 'tests newly passing'),
      section('still_failing', 'tests still failing'),
    ];
  }
}
