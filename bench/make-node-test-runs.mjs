// Two runs of a small node:test suite printed as TAP (`node --test --test-reporter=tap`), for the descriptor of a
// test run and `lro diff` of two runs (bench/kinds-tasks.mjs, test/e2e/diff.test.ts): suites `cart` and `tax` of
// 20 generated tests each (fixtures/outputs/node-test-tap.txt), and the next run (node-test-tap-after.txt), which
// fixes `total 4`, leaves `total 14` failing and breaks `rate 9`. And two runs of suites whose tests share names
// (node-test-tap-suites.txt, node-test-tap-suites-after.txt: a top-level `total`, `cart > total`, `tax > total`,
// `cart > discount > total`; `cart > empty` and `tax > empty`), for test names that carry their suites and
// failure messages of several lines (test/describe/tap.test.ts, test/e2e/diff.test.ts): `cart > total` fixed,
// `total`, `tax > total` and `cart > discount > total` broken, both `empty` failing in both. Real runs; the
// scratch path and the durations scrubbed so the fixtures are the same on every run.
// Usage: node bench/make-node-test-runs.mjs [DIR]   (default fixtures/outputs)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const dir = process.argv[2] ?? join(root, 'fixtures/outputs');

function suite(after) {
  const l = ["import { describe, test } from 'node:test';", "import assert from 'node:assert/strict';", '', "describe('cart', () => {"];
  for (let i = 0; i < 20; i++) {
    const fails = i % 10 === 4 && !(after && i === 4);
    if (i === 17) l.push(`  test('total ${i}', { skip: 'needs the price service' }, () => {});`);
    else l.push(`  test('total ${i}', () => {`, `    assert.equal(${fails ? `${i} * 2` : i}, ${i});`, '  });');
  }
  l.push('});', '', "describe('tax', () => {");
  for (let i = 0; i < 20; i++) {
    const broken = after && i === 9;
    l.push(`  test('rate ${i}', () => {`, `    assert.deepEqual({ rate: ${broken ? i / 100 : i} }, { rate: ${i} });`, '  });');
  }
  l.push('});', '');
  return l.join('\n');
}

function suites(after) {
  return [
    "import { describe, test } from 'node:test';",
    "import assert from 'node:assert/strict';",
    '',
    `test('total', () => assert.equal(${after ? '2 + 3' : '2 + 2'}, 4));`,
    "describe('cart', () => {",
    `  test('total', () => assert.equal(${after ? '2 * 2' : '2 * 3'}, 4));`,
    // a message longer than lro diff shows (300 characters)
    "  test('empty', () => assert.deepEqual(Array.from({ length: 40 }, (_, i) => i), []));",
    "  describe('discount', () => {",
    `    test('total', () => assert.deepEqual({ percent: ${after ? 15 : 10}, code: 'SPRING' }, { percent: 10, code: 'SPRING' }));`,
    '  });',
    '});',
    "describe('tax', () => {",
    `  test('total', () => assert.equal(${after ? '0.2 * 50' : '0.2 * 100'}, 20));`,
    "  test('empty', () => assert.equal([1].length, 0));",
    '});',
    '',
  ].join('\n');
}

function run(after, source = suite) {
  const scratch = mkdtempSync(join(tmpdir(), 'lro-node-test-'));
  writeFileSync(join(scratch, 'cart.test.mjs'), source(after));
  const r = spawnSync(process.execPath, ['--test', '--test-reporter=tap', 'cart.test.mjs'], { cwd: scratch, encoding: 'utf8' });
  if (r.error) throw r.error;
  rmSync(scratch, { recursive: true, force: true });
  return r.stdout
    .split(scratch)
    .join('/home/user/project')
    .replace(/duration_ms: [\d.]+/g, 'duration_ms: 1.0')
    .replace(/^# duration_ms [\d.]+$/m, '# duration_ms 100.0');
}

writeFileSync(join(dir, 'node-test-tap.txt'), run(false));
writeFileSync(join(dir, 'node-test-tap-after.txt'), run(true));
writeFileSync(join(dir, 'node-test-tap-suites.txt'), run(false, suites));
writeFileSync(join(dir, 'node-test-tap-suites-after.txt'), run(true, suites));
