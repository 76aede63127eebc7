// node --test's TAP described as a test run: a test is named with the suites it is in (`cart > total`, as vitest and
// JUnit paths are), so two suites' tests of one name are two tests, counted and named apart; a suite's own result
// line is no test. Real runs: fixtures/outputs/node-test-tap*.txt (bench/make-node-test-runs.mjs), and a run nested
// deeper than the names hold, made here by node --test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { countTestText } from '../../src/describe/kinds/test-text.js';
import { TAP, TapSuites, tapPath, tapSubtest } from '../../src/describe/kinds/test-lines.js';
import type { KindFacts } from '../../src/describe/kinds/types.js';
import { cleanup, tempDir } from '../helpers/cli.js';

const OUTPUTS = join(__dirname, '../../fixtures/outputs');

/** The facts of an output whose first `sample` lines are the detector's sample, the rest fed one by one. */
function describeLines(lines: string[], sample = 40): KindFacts {
  const c = countTestText({ lines: lines.slice(0, sample), total: 1, complete: lines.length <= sample });
  if (!c) throw new Error('not a test run');
  lines.slice(sample).forEach((l, i) => c.line(l, sample + i + 1));
  return c.end(lines.length)!;
}

const read = (name: string) => readFileSync(join(OUTPUTS, name), 'utf8').replace(/\n$/, '').split('\n');
/** node's own counts, from the run's last lines (`# pass 3`). */
const own = (lines: string[], w: string) => Number(lines.find((l) => l.startsWith(`# ${w} `))!.split(' ')[2]);

describe('node --test TAP: tests named with their suites', () => {
  it('suites holding tests of one name: each counted, the failing ones named apart, each with its own lines', () => {
    const lines = read('node-test-tap-suites.txt');
    const d = describeLines(lines);
    const f = d.facts as Record<string, unknown>;
    expect([f.runner, f.tests, f.passed, f.failed, f.skipped]).toEqual(['tap', own(lines, 'tests'), own(lines, 'pass'), own(lines, 'fail'), 0]);
    expect([f.tests, f.failed]).toEqual([6, 3]);
    expect(f.failing).toEqual(['cart > total', 'cart > empty', 'tax > empty']);
    const at = f.failure_lines as Record<string, string>;
    expect(Object.keys(at)).toEqual(f.failing);
    // each failing test's lines: its own `not ok` line, under its suite's `# Subtest:`, to its YAML block's end
    for (const [name, range] of Object.entries(at)) {
      const [from, to] = range.split(':').map(Number);
      const [suite, test] = name.split(' > ');
      expect(lines[from - 1]).toMatch(new RegExp(`^ {4}not ok \\d+ - ${test}$`));
      expect(lines.slice(0, from - 1).findLast((l) => l.startsWith('# Subtest: '))).toBe(`# Subtest: ${suite}`);
      expect(lines[to - 1]).toBe('      ...');
      expect(lines.slice(from - 1, to).filter((l) => /^\s*(?:not )?ok \d/.test(l))).toHaveLength(1);
    }
    // the next command reads the first failing test's lines; the error lines are the tests' own, no suite's
    expect(d.nextCommands?.[0]).toEqual(['read', 'ID', '--records', at['cart > total']]);
    expect(d.errorCount).toBe(3);
    expect(d.errorLines?.map((e) => e.text)).toEqual(['not ok 1 - total', 'not ok 2 - empty', 'not ok 2 - empty']);
  });

  it('the next run: a top-level test keeps its bare name, a nested suite names both its suites', () => {
    const lines = read('node-test-tap-suites-after.txt');
    const f = describeLines(lines).facts as Record<string, unknown>;
    expect([f.tests, f.passed, f.failed]).toEqual([own(lines, 'tests'), own(lines, 'pass'), own(lines, 'fail')]);
    expect(f.failing).toEqual(['total', 'cart > empty', 'cart > discount > total', 'tax > total', 'tax > empty']);
    const at = f.failure_lines as Record<string, string>;
    expect(lines[Number(at.total.split(':')[0]) - 1]).toBe('not ok 1 - total');
    expect(lines[Number(at['cart > discount > total'].split(':')[0]) - 2]).toBe('        # Subtest: total');
  });

  it('node-test-tap.txt: suite cart and tax, node\'s counts', () => {
    const lines = read('node-test-tap.txt');
    const f = describeLines(lines).facts as Record<string, unknown>;
    expect([f.tests, f.passed, f.failed, f.skipped]).toEqual([40, 37, 2, 1]);
    expect(f.failing).toEqual(['cart > total 4', 'cart > total 14']);
    expect(f.failure_lines).toEqual({ 'cart > total 4': '24:47', 'cart > total 14': '94:117' });
  });
});

describe('TapSuites: the suites of a test, by its result line and by its record alone', () => {
  /**
   * Each test's name as its lines name it (fed in order), and as lro diff reads it back once every line is fed:
   * from its record and its suites' `# Subtest:` records alone.
   */
  function names(lines: string[]): [string, string][] {
    const tap = new TapSuites(true);
    const tests: { fed: string; bare: string; n: number }[] = [];
    lines.forEach((l, i) => {
      if (tap.suite(l, i + 1)) return;
      const m = TAP.read(l);
      if (m) tests.push({ fed: tap.named(m.name), bare: m.name, n: i + 1 });
    });
    return tests.map((t) => [t.fed, tapPath(tap.enclosing(t.n).map((k) => tapSubtest(lines[k - 1])!), t.bare)]);
  }

  it('the same names both ways, in both fixtures', () => {
    for (const name of ['node-test-tap-suites.txt', 'node-test-tap-suites-after.txt', 'node-test-tap.txt']) {
      const n = names(read(name));
      expect(n.length).toBeGreaterThan(5);
      for (const [fed, back] of n) expect(back).toBe(fed);
    }
    expect(names(read('node-test-tap-suites.txt')).map(([fed]) => fed)).toEqual([
      'total',
      'cart > total',
      'cart > empty',
      'cart > discount > total',
      'tax > total',
      'tax > empty',
    ]);
  });

  let root: string;
  beforeAll(() => {
    root = tempDir();
  });
  afterAll(() => cleanup(root));

  it('long names: a suite named with its first 500 characters, a test with its own whole', () => {
    const [suite, test] = ['s'.repeat(520), 't'.repeat(520)];
    const src = ["import { describe, test } from 'node:test';", `describe('${suite}', () => { test('${test}', () => { throw new Error('no'); }); test('b', () => {}); });`];
    src.push("test('c', () => {});");
    writeFileSync(join(root, 'long.test.mjs'), `${src.join('\n')}\n`);
    const r = spawnSync(process.execPath, ['--test', '--test-reporter=tap', 'long.test.mjs'], { cwd: root, encoding: 'utf8' });
    const lines = r.stdout.replace(/\n$/, '').split('\n');
    const name = `${suite.slice(0, 500)} > ${test}`;
    expect(names(lines)).toEqual([
      [name, name],
      [`${suite.slice(0, 500)} > b`, `${suite.slice(0, 500)} > b`],
      ['c', 'c'],
    ]);
    expect((describeLines(lines, lines.length).facts as Record<string, unknown>).failing).toEqual([name]);
  });

  it('a run nested deeper than 32 suites: its test named with the outermost 32, the same read back', () => {
    const depth = 40;
    const src = ["import { describe, test } from 'node:test';", "import assert from 'node:assert/strict';"];
    for (let i = 0; i < depth; i++) src.push(`${'  '.repeat(i)}describe('s${i}', () => {`);
    src.push(`${'  '.repeat(depth)}test('deep', () => assert.equal(1, 2));`);
    for (let i = depth - 1; i >= 0; i--) src.push(`${'  '.repeat(i)}});`);
    src.push("test('top', () => {});", "test('other', () => {});");
    writeFileSync(join(root, 'deep.test.mjs'), `${src.join('\n')}\n`);
    const r = spawnSync(process.execPath, ['--test', '--test-reporter=tap', 'deep.test.mjs'], { cwd: root, encoding: 'utf8' });
    const lines = r.stdout.replace(/\n$/, '').split('\n');
    const deep = Array.from({ length: 32 }, (_, i) => `s${i}`).join(' > ');
    expect(names(lines)).toEqual([
      [`${deep} > deep`, `${deep} > deep`],
      ['top', 'top'],
      ['other', 'other'],
    ]);
    // (the whole run its sample: its first lines are the 40 suites' `# Subtest:` lines)
    const f = describeLines(lines, lines.length).facts as Record<string, unknown>;
    expect([f.tests, f.failed, f.failing]).toEqual([3, 1, [`${deep} > deep`]]);
  });
});
