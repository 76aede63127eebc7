// Test runs written as JSON: go test -json (one event a record) and jest --json (one test file a record, the run's
// totals in the envelope). Passed, failed and skipped tests counted, the failing ones named, up front.
import { goOutcome } from './test-lines.js';
import type { KindFacts } from './types.js';

const MAX_NAMES = 20;

export class TestRunWatch {
  private runner: 'go test -json' | 'jest' | null | undefined;
  private readonly counts = { passed: 0, failed: 0, skipped: 0 };
  private readonly failing = new Set<string>();
  private failingCount = 0;
  private files = 0;

  /** Sees one parsed record (weight: how many records it stands for when sampling). */
  observe(v: unknown, weight: number): void {
    if (this.runner === null) return;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return this.stop();
    const r = v as Record<string, unknown>;
    if (this.runner === undefined) {
      if (typeof r.Action === 'string' && typeof r.Package === 'string') this.runner = 'go test -json';
      else if (Array.isArray(r.assertionResults) && typeof r.name === 'string') this.runner = 'jest';
      else return this.stop();
    }
    if (this.runner === 'go test -json') this.goEvent(r, weight);
    else this.jestFile(r);
  }

  private stop(): void {
    this.runner = null;
  }

  private goEvent(r: Record<string, unknown>, weight: number): void {
    if (typeof r.Action !== 'string') return this.stop();
    if (typeof r.Test !== 'string') return;
    const status = goOutcome(r.Action);
    if (!status) return;
    this.counts[status] += weight;
    if (status === 'failed') this.fail(`${String(r.Package)} ${r.Test}`);
  }

  private jestFile(r: Record<string, unknown>): void {
    if (!Array.isArray(r.assertionResults)) return this.stop();
    this.files++;
    for (const a of r.assertionResults as Record<string, unknown>[]) {
      const status = a?.status === 'passed' ? 'passed' : a?.status === 'failed' ? 'failed' : 'skipped';
      this.counts[status]++;
      const file = String(r.name).split('/').slice(-2).join('/');
      if (status === 'failed') this.fail(`${file} › ${String(a.fullName ?? a.title)}`);
    }
  }

  private fail(name: string): void {
    if (this.failing.has(name)) return;
    this.failingCount++;
    if (this.failing.size < MAX_NAMES) this.failing.add(name);
  }

  end(sampled: boolean): KindFacts | null {
    if (!this.runner) return null;
    const tests = this.counts.passed + this.counts.failed + this.counts.skipped;
    if (tests === 0) return null;
    const go = this.runner === 'go test -json';
    return {
      kind: 'test-run',
      facts: {
        runner: this.runner,
        ...(go ? {} : { files: this.files }),
        tests,
        ...this.counts,
        ...(sampled ? { counted_over: 'a sample of the records (all of the first 8 MB, then one in 2, 4, 8…): the counts and names are of the sample, not totals' } : {}),
        failing_tests: this.failingCount,
        failing: [...this.failing],
      },
      errors: 'own',
      errorCount: this.failingCount,
      levels: false,
      nextCommands: go
        ? [['where', 'ID', 'Action=fail', 'Test?', '--fields', 'Package,Test,Elapsed'], ['count', 'ID', '--by', 'Package', 'Action=fail']]
        : [['grep', 'ID', '"status":"failed"', '-c'], ['where', 'ID', 'status=failed', '--fields', 'name,message']],
    };
  }
}
