// A JUnit XML report described as a test run: counts over every testcase, the failing tests by classname > name
// with their message, and each failing test's own <testcase> element addressable: its lines when it has lines of its
// own (fixtures/outputs/vitest-junit*.xml, real vitest --reporter=junit runs made by bench/make-vitest-runs.mjs), its
// characters when it shares them (fixtures/outputs/pytest-junit*.xml, real pytest --junitxml runs made by
// bench/make-pytest-junit.mjs: pytest writes a report on few long lines). Read tag by tag from the bytes, in any chunks.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isJunitStart, JunitReport } from '../../src/describe/kinds/test-junit.js';
import type { KindFacts } from '../../src/describe/kinds/types.js';

const OUTPUTS = join(__dirname, '../../fixtures/outputs');

/** The facts of a report fed as bytes, in pieces of `size` bytes (all at once by default). */
function describeText(text: string, size = Infinity): KindFacts | null {
  const r = new JunitReport();
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) r.push(bytes.subarray(i, Math.min(bytes.length, i + size)));
  return r.end();
}

const describeLines = (lines: string[]) => describeText(lines.join('\n'));
const readText = (name: string) => readFileSync(join(OUTPUTS, name), 'utf8');
const read = (name: string) => readText(name).replace(/\n$/, '').split('\n');

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
    expect(d.nextCommands?.[0]).toEqual(['read', 'ID', '--records', (f.failure_lines as Record<string, string>)['parse.test.js > parse > case 3']]);
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

  it('a real pytest --junitxml report: counted whole, each failing element by its characters', () => {
    const text = readText('pytest-junit.xml');
    expect(text.split('\n')[0].length).toBeGreaterThan(2048); // a line longer than the line counters see
    const d = describeText(text)!;
    const f = d.facts as Record<string, unknown>;
    // the counts pytest states on its root, counted from the testcases
    expect(text).toMatch(/errors="0" failures="3" skipped="10" tests="400"/);
    expect([f.runner, f.tests, f.passed, f.failed, f.skipped]).toEqual(['junit', 400, 387, 3, 10]);
    expect(f.failing).toEqual([150, 260, 377].map((n) => `test_suite > test_parse_case_${n}`));
    expect((f.failure_messages as Record<string, string>)['test_suite > test_parse_case_260']).toBe('AssertionError: error: off by one / assert (260 + 1) == 260');
    expect(f.failure_lines).toBeUndefined();
    const chars = f.failure_chars as Record<string, string>;
    for (const [name, range] of Object.entries(chars)) {
      const [at, end] = range.split(':').map(Number);
      const element = text.slice(at, end);
      expect(element).toMatch(new RegExp(`^<testcase classname="test_suite" name="${name.split(' > ')[1]}"`));
      expect(element).toMatch(/<failure [^]*<\/testcase>$/);
      expect(element.split('<testcase').length).toBe(2);
    }
    expect(d.nextCommands?.[0]).toEqual(['read', 'ID', '--chars', chars['test_suite > test_parse_case_150'], '--raw']);
    expect(d.errorLines?.map((l) => l.line)).toEqual([1, 6, 11]);
  });

  it('the pytest after run: test_error_handling_30 newly failing with its KeyError', () => {
    const f = describeText(readText('pytest-junit-after.xml'))!.facts as Record<string, unknown>;
    expect(f.failing).toEqual(['test_suite > test_error_handling_30', 'test_suite > test_parse_case_260', 'test_suite > test_parse_case_377']);
    expect((f.failure_messages as Record<string, string>)['test_suite > test_error_handling_30']).toBe("KeyError: 'status'");
  });

  it('the same facts whatever the chunks: tags, entities and multi-byte names split anywhere', () => {
    const names = ['naïve', 'ünïcödé ✓', '日本語', 'a &gt; b'];
    const cases = names.map((n, i) =>
      i % 2 ? `<testcase classname="t" name="${n}"><failure message="m ${i} &#10;x">é</failure></testcase>` : `<testcase classname="t" name="${n}" />`,
    );
    const text = `<?xml version="1.0"?><testsuites><testsuite>${cases.join('')}\n</testsuite></testsuites>\n`;
    const whole = describeText(text);
    const chars = (whole!.facts as Record<string, Record<string, string>>).failure_chars;
    // the characters are the ones lro read --chars counts: the decoded text's
    expect(text.slice(...chars['t > ünïcödé ✓'].split(':').map(Number))).toBe(cases[1]);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), (size) => {
        expect(describeText(text, size)).toEqual(whole);
      }),
    );
  });

  it('comments and CDATA are skipped whole, and a quoted value may hold ">"', () => {
    const text = [
      '<?xml version="1.0"?>',
      '<!-- <testcase name="in a comment"> -->',
      '<testsuite tests="2">',
      '  <testcase classname="a" name="x > y" time="1">',
      '    <failure message="a > b"><![CDATA[<testcase name="in CDATA"/> ]] > ]]></failure>',
      '  </testcase>',
      '  <testcase classname="a" name="z"/>',
      '</testsuite>',
    ].join('\n');
    const f = describeText(text)!.facts as Record<string, unknown>;
    expect([f.tests, f.passed, f.failed]).toEqual([2, 1, 1]);
    expect(f.failure_messages).toEqual({ 'a > x > y': 'a > b' });
    expect(f.failure_lines).toEqual({ 'a > x > y': '4:6' });
  });

  it('a report cut before its end: the open test as far as it was told', () => {
    const text = '<testsuite><testcase classname="a" name="b"><failure message="m">trace';
    const f = describeText(text)!.facts as Record<string, unknown>;
    expect([f.tests, f.failed]).toEqual([1, 1]);
    expect(f.failure_chars).toEqual({ 'a > b': `11:${text.length}` });
  });

  it('tells a report from its first bytes', () => {
    expect(isJunitStart('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="vitest tests">')).toBe(true);
    expect(isJunitStart('\uFEFF  <!-- made by maven -->\n<testsuite name="x">')).toBe(true);
    expect(isJunitStart('<?xml version="1.0"?><project><testsuite/></project>')).toBe(false);
    expect(isJunitStart('PASS <testsuite> in a log line')).toBe(false);
  });

  it('other XML is no test report', () => {
    expect(describeLines(['<?xml version="1.0"?>', '<project>', '<testcase-like/>', '</project>'])).toBeNull();
  });
});
