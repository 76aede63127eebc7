// A JUnit XML report described as a test run: counts over every testcase, the failing tests by classname > name
// with their message, and each failing test's own <testcase> element as its lines (fixtures/outputs/vitest-junit*.xml,
// real vitest --reporter=junit runs made by bench/make-vitest-runs.mjs).
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { countJunit } from '../../src/describe/kinds/test-junit.js';
import type { KindFacts } from '../../src/describe/kinds/types.js';

const OUTPUTS = join(__dirname, '../../fixtures/outputs');

/** The facts of a report whose first `sample` lines are the detector's sample, the rest fed one by one. */
function describeLines(lines: string[], sample = 40): KindFacts | null {
  const c = countJunit({ lines: lines.slice(0, sample), total: 1, complete: lines.length <= sample });
  if (!c) return null;
  lines.slice(sample).forEach((l, i) => c.line(l, sample + i + 1));
  return c.end(lines.length);
}

const read = (name: string) => readFileSync(join(OUTPUTS, name), 'utf8').replace(/\n$/, '').split('\n');

describe('JUnit XML reports', () => {
  it('counts every testcase, names the failing ones with their message, and points at their own element', () => {
    const lines = read('vitest-junit.xml');
    const d = describeLines(lines)!;
    expect(d.kind).toBe('test-run');
    const f = d.facts as Record<string, unknown>;
    // the counts the report's own root states, counted from its testcases (the failures are past the sample)
    const root = lines[1];
    expect(root).toMatch(/tests="60" failures="3"/);
    expect([f.runner, f.tests, f.passed, f.failed, f.skipped]).toEqual(['junit', 60, 54, 3, 3]);
    expect(f.failing).toEqual([3, 13, 23].map((n) => `parse.test.js > parse > case ${n}`));
    expect((f.failure_messages as Record<string, string>)['parse.test.js > parse > case 13']).toBe('expected 14 to be 13 // Object.is equality');
    // each failing test's lines are its <testcase> element, from its start tag to its end tag
    for (const range of Object.values(f.failure_lines as Record<string, string>)) {
      const [from, to] = range.split(':').map(Number);
      expect(lines[from - 1]).toMatch(/^\s*<testcase /);
      expect(lines[to - 1].trim()).toBe('</testcase>');
      expect(lines.slice(from - 1, to).filter((l) => l.includes('<testcase')).length).toBe(1);
      expect(lines.slice(from - 1, to).join('\n')).toContain('<failure ');
    }
    expect(d.next?.[0]).toBe(`lro read ID --records ${(f.failure_lines as Record<string, string>)['parse.test.js > parse > case 3']}`);
    expect(d.errorCount).toBe(3);
  });

  it('the after run: width 20 newly failing, case 3 fixed', () => {
    const f = describeLines(read('vitest-junit-after.xml'))!.facts as Record<string, unknown>;
    expect(f.failing).toEqual(['format.test.js > format > width 20', 'parse.test.js > parse > case 13', 'parse.test.js > parse > case 23']);
    expect([f.tests, f.failed, f.skipped]).toEqual([60, 3, 3]);
  });

  it('pytest-style self-closed testcases, <error> and <skipped>, entities unescaped', () => {
    const lines = [
      '<?xml version="1.0" encoding="utf-8"?>',
      '<testsuites><testsuite name="pytest" errors="1" failures="1" skipped="1" tests="4">',
      '<testcase classname="tests.test_a" name="test_ok" time="0.001" />',
      '<testcase classname="tests.test_a" name="test_cmp[a&lt;b]" time="0.002"><failure message="assert 1 == 2">x</failure></testcase>',
      '<testcase classname="tests.test_a" name="test_setup" time="0">',
      '<error message="fixture &apos;db&apos; not found">E</error>',
      '</testcase>',
      '<testcase classname="tests.test_a" name="test_later" time="0"><skipped type="pytest.skip" message="later" /></testcase>',
      '</testsuite></testsuites>',
    ];
    const f = describeLines(lines)!.facts as Record<string, unknown>;
    expect([f.tests, f.passed, f.failed, f.skipped]).toEqual([4, 1, 2, 1]);
    expect(f.failure_messages).toEqual({ 'tests.test_a > test_cmp[a<b]': 'assert 1 == 2', 'tests.test_a > test_setup': "fixture 'db' not found" });
    expect(f.failure_lines).toEqual({ 'tests.test_a > test_cmp[a<b]': '4:4', 'tests.test_a > test_setup': '5:7' });
  });

  it('a one-line report longer than a counter sees is not counted (its counts would not be whole)', () => {
    const cases = Array.from({ length: 100 }, (_, i) => `<testcase classname="tests.test_a" name="test_${i}" time="0.001" />`);
    const line = `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite tests="100">${cases.join('')}</testsuite></testsuites>`;
    expect(line.length).toBeGreaterThan(2048);
    expect(describeLines([line.slice(0, 2048)])).toBeNull();
  });

  it('other XML is no test report', () => {
    expect(describeLines(['<?xml version="1.0"?>', '<project>', '<testcase-like/>', '</project>'])).toBeNull();
  });
});
