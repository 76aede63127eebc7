// lro's regex engine against ripgrep (a property test): random patterns of the grammar the engine takes
// (characters, classes and their negations, ., \d \D \s \S, groups, alternations, every quantifier, ^ and $, -i)
// run by the engine over random text stored as lro stores it (quotes, backslashes and tabs included: those
// records the engine leaves to the JavaScript regex) select the lines `rg --crlf -n` selects, counts and line
// numbers equal. The text keeps to what both define alike: no \w or \b in the patterns (Unicode in rg, ASCII in
// JavaScript), no \r or exotic spaces in the text. A failing case names its seed, pattern and flags.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compilePattern } from '../../src/search/pattern.js';
import { DfaFinder, dfaFor } from '../../src/search/dfa-finder.js';
import { dfaLines } from '../helpers/dfa.js';
import { seeded } from '../helpers/seeded.js';

const ALPHABET = ['a', 'b', 'c', 'q', 'u', 'x', 'A', 'B', 'Q', '0', '1', '9', ' ', ' ', '-', ':', '.', '\u00e9', '\u00c9', '\u017f', 's', 'S', 'k', '\u212a', '\u03c3', '\u03a3', '\u03c2', '"', '\\', '\t', '\u{1f600}'];
const LITERALS = ['a', 'b', 'c', 'q', 'u', 'x', 'A', 'Q', '0', '9', ' ', '-', ':', '\\.', '\u00e9', 's', 'k', '\u03c3', '"', '\\\\', '\u{1f600}'];
const CLASS_ITEMS = ['a', 'b', 'q', 'A', '0-9', 'a-f', 'A-Z', ' ', '\\-', ':', '\u00e9', '\u00c0-\u00ff', 's', 'k', '\\d', '\\s', '"', '\\\\', '\u0370-\u03ff'];

let draw = seeded(0); // (each round draws from a seed of its own)
const rand = (n: number) => draw.below(n);
const pick = <T>(xs: T[]): T => draw.pick(xs);

function atom(depth: number): string {
  switch (rand(depth > 1 ? 7 : 9)) {
    case 0:
    case 1:
    case 2:
      return pick(LITERALS);
    case 3:
      return `[${rand(3) === 0 ? '^' : ''}${Array.from({ length: 1 + rand(3) }, () => pick(CLASS_ITEMS)).join('')}]`;
    case 4:
      return '.';
    case 5:
      return pick(['\\d', '\\D', '\\s', '\\S']);
    case 6:
      return pick(LITERALS) + pick(LITERALS);
    default:
      return `(${rand(2) ? '?:' : ''}${alternation(depth + 1)})`;
  }
}

function quantified(depth: number): string {
  const a = atom(depth);
  switch (rand(10)) {
    case 0:
      return `${a}?`;
    case 1:
      return `${a}*`;
    case 2:
      return `${a}+`;
    case 3:
      return `${a}{${rand(4)}}`;
    case 4: {
      const n = rand(3);
      return `${a}{${n},${n + rand(3)}}`;
    }
    case 5:
      return `${a}{${rand(3)},}`;
    default:
      return a;
  }
}

function sequence(depth: number): string {
  return Array.from({ length: 1 + rand(4) }, () => quantified(depth)).join('');
}

function alternation(depth: number): string {
  return Array.from({ length: 1 + (rand(3) === 0 ? 1 + rand(2) : 0) }, () => sequence(depth)).join('|');
}

function pattern(): string {
  const body = alternation(0);
  return `${rand(5) === 0 ? '^' : ''}${body}${rand(5) === 0 ? '$' : ''}`;
}

function text(lines: number): string[] {
  return Array.from({ length: lines }, () => Array.from({ length: rand(rand(4) === 0 ? 60 : 14) }, () => pick(ALPHABET)).join(''));
}

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'lro-dfa-rg-'));
  if (spawnSync('rg', ['--version']).status !== 0) throw new Error('ripgrep (rg) is needed for these tests: apt-get install ripgrep');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The line numbers rg -n selects in file. */
function rgLines(file: string, p: string, ignoreCase: boolean): number[] {
  const r = spawnSync('rg', ['--crlf', '-n', '--no-heading', '--color=never', ...(ignoreCase ? ['-i'] : []), '--', p, file], { encoding: 'utf8' });
  if (r.status !== 0 && r.status !== 1) throw new Error(`rg failed on ${p}: ${r.stderr}`);
  return r.stdout.split('\n').filter(Boolean).map((l) => Number(l.slice(0, l.indexOf(':'))));
}

describe("lro's regex engine against ripgrep, on random patterns and text", () => {
  for (let round = 0; round < 8; round++) {
    it(`round ${round}: 40 patterns, each with and without -i`, () => {
      draw = seeded(1000 + round);
      const lines = text(400);
      const file = join(root, `text-${round}.txt`);
      writeFileSync(file, `${lines.join('\n')}\n`);
      let taken = 0;
      let some = 0; // patterns that select some lines but not all
      for (let k = 0; k < 40; k++) {
        const p = pattern();
        for (const ignoreCase of [false, true]) {
          const m = compilePattern(p, { fixed: false, ignoreCase, word: false });
          const e = dfaFor(m);
          if (!('dfa' in e)) continue; // (a pattern only the legacy syntax reads, as \-)
          taken++;
          const ours = dfaLines(new DfaFinder(e.dfa), lines, m.regex);
          if (ours.length > 0 && ours.length < lines.length) some++;
          expect(ours, `seed ${1000 + round}, pattern ${JSON.stringify(p)}${ignoreCase ? ' -i' : ''}`).toEqual(rgLines(file, p, ignoreCase));
        }
      }
      expect(taken).toBeGreaterThan(60);
      // -w and \b: the DFA is a prefilter there (search/dfa-finder.ts); JavaScript's word characters are not rg's
      // (ASCII, or \p{L}\p{N}_ with -w), so these are checked against the JavaScript regex
      for (let k = 0; k < 20; k++) {
        const p = rand(2) ? `\\b${pattern()}` : pattern();
        const m = compilePattern(p, { fixed: false, ignoreCase: rand(2) === 0, word: rand(2) === 0 });
        const e = dfaFor(m);
        if (!('dfa' in e)) continue;
        const want = lines.flatMap((l, i) => ((m.regex.lastIndex = 0), m.regex.test(l) ? [i + 1] : []));
        expect(dfaLines(new DfaFinder(e.dfa), lines, m.regex), `seed ${1000 + round}, ${p}${m.word ? ' -w' : ''}`).toEqual(want);
      }
      expect(some).toBeGreaterThan(20);
    });
  }
});
