// lro diff's message of a failing node --test test: node prints a multi-line message under `error: |-`, indented
// deeper than `error:`; the diff shows the block's lines joined by ` / `, blank lines left out, at most 300
// characters, reading back at most 100 records of it. Real runs, made here by node --test; TestCompare fed as
// compare/diff.ts textSections feeds it, and its items read as itemsAt reads them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestCompare } from '../../src/compare/tests.js';
import type { DiffItem } from '../../src/compare/model.js';

type TestItem = Extract<DiffItem, { type: 'test' }>;
import { cleanup, tempDir } from '../helpers/cli.js';

let root: string;
beforeAll(() => {
  root = tempDir();
});
afterAll(() => cleanup(root));

/** node --test's TAP of the tests (name → body), as the lines of its output. */
function tap(tests: Record<string, string>): string[] {
  const src = ["import { test } from 'node:test';", "import assert from 'node:assert/strict';"];
  for (const [name, body] of Object.entries(tests)) src.push(`test(${JSON.stringify(name)}, () => { ${body} });`);
  writeFileSync(join(root, 'm.test.mjs'), `${src.join('\n')}\n`);
  const r = spawnSync(process.execPath, ['--test', '--test-reporter=tap', 'm.test.mjs'], { cwd: root, encoding: 'utf8' });
  return r.stdout.replace(/\n$/, '').split('\n');
}

/** The diff's test items of two runs, and the records each item read back. */
function diffTests(a: string[], b: string[]): { items: TestItem[]; read: number[] } {
  const t = new TestCompare();
  for (const [side, lines] of [a, b].entries()) {
    lines.forEach((line, i) => {
      const r = t.lineResult(side, line, i + 1);
      if (r) t.add(side, i + 1, r);
      else t.line(side, i + 1, line);
    });
  }
  const items: TestItem[] = [];
  const read: number[] = [];
  for (const s of t.sections([false, false])) {
    for (let i = 0; i < s.size; i++) {
      const need = s.needs(i);
      const wanted = (side: string[], w: number | number[] | undefined) => new Map([w ?? []].flat().map((n) => [n, side[n - 1]]));
      read.push(...[need.b ?? []].flat());
      items.push(s.item(i, { a: wanted(a, need.a), b: wanted(b, need.b) }) as TestItem);
    }
  }
  return { items, read };
}

describe('TAP messages in lro diff', () => {
  it('a message of several lines: all of them, blank lines left out; one line as before', () => {
    const passing = { one: '', two: '', three: '' };
    const a = tap(passing);
    const b = tap({
      one: 'assert.equal(2 * 4, 4);',
      two: "throw new Error('first\\n\\n\\n\\nlast');",
      three: "throw new Error('only line');",
    });
    const { items } = diffTests(a, b);
    expect(items.map((i) => [i.name, i.message])).toEqual([
      ['one', 'Expected values to be strictly equal: / 8 !== 4'],
      ['two', 'first / last'],
      ['three', "error: 'only line'"],
    ]);
  });

  it('a long message: cut at 300 characters; many lines or blank lines: at most 100 records read back', () => {
    const a = tap({ long: '', blank: '', lines: '' });
    const b = tap({
      long: "throw new Error('x'.repeat(50) + '\\n' + 'y'.repeat(400));",
      blank: "throw new Error('first' + '\\n'.repeat(150) + 'last');",
      lines: "throw new Error(Array.from({ length: 500 }, (_, i) => i % 2 ? '' : 'z').join('\\n'));",
    });
    const { items, read } = diffTests(a, b);
    const m = Object.fromEntries(items.map((i) => [i.name, i.message]));
    expect(m.long).toBe(`${'x'.repeat(50)} / ${'y'.repeat(247)}…`);
    // (the block went on past the records read: said so)
    expect(m.blank).toBe('first …');
    expect(m.lines).toBe(`${Array.from({ length: 50 }, () => 'z').join(' / ')} …`);
    // each item's records: its result line and at most 100 of its message
    expect(read.length).toBeLessThanOrEqual(3 * 101);
  });
});
