// Two runs of a test suite compared test by test: each test's last status in A and in B (a test re-run keeps
// its last word), and the tests that fail in B and did not in A (newly failing), that failed in A and pass in B
// (newly passing), that fail in both (still failing). Held by hash: a name is read back from its record only
// for the items printed.
import { parseRecord } from '../values/json-value.js';
import { HASH, hashString, KeyTable } from './hash.js';
import type { DiffItem, Section, TestTally } from './model.js';
import { FAIL, goTestResult, lineTestResult, PASS, SKIP, type TestResult } from './test-results.js';

type Change = 'newly_failing' | 'newly_passing' | 'still_failing';

export class TestCompare {
  private readonly table = new KeyTable();
  readonly tally: [TestTally, TestTally] = [
    { passed: 0, failed: 0, skipped: 0 },
    { passed: 0, failed: 0, skipped: 0 },
  ];
  private lists: Record<Change, [number, number][]> | null = null;

  /** Whether either side had any test result. */
  get found(): boolean {
    return this.table.size > 0;
  }

  /** A test result seen on a side, in record n. */
  add(side: number, n: number, r: TestResult): void {
    hashString(r.name);
    this.table.set(HASH[0], HASH[1], side, 0, r.status, n);
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
    const lists: Record<Change, [number, number][]> = { newly_failing: [], newly_passing: [], still_failing: [] };
    const tallyOf = (side: number, status: number) => {
      const t = this.tally[side];
      if (status === PASS) t.passed++;
      else if (status === FAIL) t.failed++;
      else if (status === SKIP) t.skipped++;
    };
    this.table.forEach((na, nb, _same, sa, sb) => {
      if (na) tallyOf(0, sa);
      if (nb) tallyOf(1, sb);
      const failedA = na !== 0 && sa === FAIL;
      const failedB = nb !== 0 && sb === FAIL;
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

  /** The three sections; `json` says how each side's records are read back (go test -json, or lines). */
  sections(json: [boolean, boolean]): Section[] {
    const lists = this.finish();
    const section = (change: Change, heading: string): Section => {
      const l = lists[change];
      return {
        heading,
        size: l.length,
        needs: (i) => (l[i][1] ? { b: l[i][1] } : { a: l[i][0] }),
        item: (i, t): DiffItem => {
          const [na, nb] = l[i];
          const text = nb ? t.b.get(nb) : t.a.get(na);
          const name = TestCompare.fromRecord(text ?? '', json[nb ? 1 : 0])?.name ?? '?';
          return { type: 'test', change, name, ...(na ? { record_a: na } : {}), ...(nb ? { record_b: nb } : {}) };
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
