// Two runs of a small vitest suite, for the descriptor of a test run and `lro diff` of two runs
// (bench/kinds-tasks.mjs, test/e2e/diff.test.ts): 2 files of 30 generated tests each, written to a scratch
// folder and run by the vitest lro's own tests use, `--reporter=verbose` (fixtures/outputs/vitest-verbose.txt and
// its -after.txt: the next run, which fixes `parse > case 3`, leaves cases 13 and 23 failing and breaks
// `format > width 20`) and `--reporter=junit` of both runs (vitest-junit.xml and vitest-junit-after.xml). Real runs, the scratch path,
// the times and the start time scrubbed so the fixtures are the same on every run.
// Usage: node bench/make-vitest-runs.mjs [DIR]   (default fixtures/outputs)
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const dir = process.argv[2] ?? join(root, 'fixtures/outputs');
const vitest = join(root, 'node_modules/.bin/vitest');

function suite(after) {
  const parse = ["import { describe, it, expect } from 'vitest';", '', "describe('parse', () => {"];
  for (let i = 0; i < 30; i++) {
    const fails = i % 10 === 3 && !(after && i === 3);
    if (i % 11 === 7) parse.push(`  it.skip('case ${i}', () => {});`);
    else parse.push(`  it('case ${i}', () => {`, `    expect(${fails ? `${i} + 1` : i}).toBe(${i});`, '  });');
  }
  parse.push('});', '');
  const format = ["import { describe, it, expect } from 'vitest';", '', "describe('format', () => {"];
  for (let i = 0; i < 30; i++) {
    const broken = after && i === 20;
    format.push(`  it('width ${i}', () => {`, `    expect(${broken ? `'x'.repeat(${i} - 1)` : `'x'.repeat(${i})`}).toHaveLength(${i});`, '  });');
  }
  format.push('});', '');
  return { 'parse.test.js': parse.join('\n'), 'format.test.js': format.join('\n') };
}

/** The scratch path, the durations and the start time made constant (they change on every run). */
const scrub = (text, scratch) =>
  text
    .split(scratch)
    .join('/home/user/project')
    .replace(/ \d+ms$/gm, '')
    .replace(/time="[\d.]+"/g, 'time="0.001"')
    .replace(/timestamp="[^"]+"/g, 'timestamp="2026-01-01T00:00:00.000Z"')
    .replace(/^( +Start at ).*$/m, '$100:00:00')
    .replace(/^( +Duration ).*$/m, '$1300ms')
    .replace(/hostname="[^"]*"/g, 'hostname="host"');

function run(after, reporter) {
  const scratch = mkdtempSync(join(tmpdir(), 'lro-vitest-'));
  writeFileSync(join(scratch, 'package.json'), '{"type":"module"}\n');
  for (const [name, text] of Object.entries(suite(after))) writeFileSync(join(scratch, name), text);
  // one file for both streams, as a terminal shows them (the failures go to stderr, between the tests and the
  // summary); the junit report is stdout alone
  const log = join(scratch, 'out.log');
  const fd = openSync(log, 'w');
  const r = spawnSync(vitest, ['run', '--root', '.', `--reporter=${reporter}`, '--exclude', 'out.log'], {
    cwd: scratch,
    stdio: ['ignore', fd, reporter === 'junit' ? 'ignore' : fd],
    env: { ...process.env, NO_COLOR: '1', CI: '1' },
  });
  closeSync(fd);
  if (r.error) throw r.error;
  const text = readFileSync(log, 'utf8');
  rmSync(scratch, { recursive: true, force: true });
  return scrub(text, scratch);
}

writeFileSync(join(dir, 'vitest-verbose.txt'), run(false, 'verbose'));
writeFileSync(join(dir, 'vitest-verbose-after.txt'), run(true, 'verbose'));
writeFileSync(join(dir, 'vitest-junit.xml'), run(false, 'junit'));
writeFileSync(join(dir, 'vitest-junit-after.xml'), run(true, 'junit'));
