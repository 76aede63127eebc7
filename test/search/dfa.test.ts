// lro's regex engine (search/nfa.ts, dfa.ts, dfa-finder.ts): its embedded WebAssembly is dfa.wat assembled; each
// construct it takes selects the records the JavaScript regex selects (records stored as lro stores text lines,
// escapes and non-ASCII text included); with -i each fold orbit is what /iu folds; what it does not take says why;
// a cache too small for the pattern is cleared and the answers stay the same.
import { describe, expect, it } from 'vitest';
import { compilePattern } from '../../src/search/pattern.js';
import { DfaFinder, dfaFor } from '../../src/search/dfa-finder.js';
import { DFA_WASM, LazyDfa } from '../../src/search/dfa.js';
import { compileNfa, foldOrbits, parseUnicode, utf8Sequences } from '../../src/search/nfa.js';
import { assembledWat, wasmInBundles } from '../helpers/wat.js';
import { dfaLines, stored } from '../helpers/dfa.js';
import { seeded } from '../helpers/seeded.js';

const byRegex = (lines: string[], re: RegExp) =>
  lines.flatMap((l, i) => {
    re.lastIndex = 0;
    return re.test(l) ? [i + 1] : [];
  });

function finderOf(pattern: string, ignoreCase = false): { finder: DfaFinder; re: RegExp } {
  const m = compilePattern(pattern, { fixed: false, ignoreCase, word: false });
  const e = dfaFor(m);
  if (!('dfa' in e)) throw new Error(`not taken: ${pattern}: ${e.why}`);
  return { finder: new DfaFinder(e.dfa), re: m.regex };
}

const LINES = [
  '',
  'a',
  'abc',
  'quux quiz qaau',
  'size 12345678 bytes',
  'size\t12345678\tbytes',
  'DataNode: block 7',
  'Server:  block',
  'ABCDE ipc',
  'abcde IPC',
  'caf\u00e9 na\u00efve \u00c9T\u00c9',
  'emoji \u{1f600} x',
  'quote "q12u" here',
  'back\\slash q12u',
  'pa\u017f\u017f K kelvin',
  'PASS kit',
  '2026-11-28 10:00:01 ERROR x',
  '\u2028 sep',
  'line\rcr',
  'ends with q',
  'q',
  '  spaces  ',
  'x'.repeat(300) + 'y',
];

const PATTERNS = [
  'q[a-z]{2}u',
  'size\\s[0-9]{8}\\s',
  '[A-Z]{5}\\sipc',
  '(DataNode|Server):\\sblock',
  '^a',
  'c$',
  '^$',
  '^',
  'a*',
  'x+y',
  '.{3}',
  '^.{3}$',
  '[^a-z ]',
  '[^\\x00-\\x7f]',
  '\\d{4}-\\d{2}-\\d{2}',
  '\\w+\\s\\W',
  '\\S+$',
  '\\D\\d',
  '[\u00e9\u00c9]',
  '\u{1f600}',
  '.\u{1f600}',
  'q(?:1|2)+u',
  '(a|b|c){2,3}',
  'z?q$',
  '$^',
  'a|^$',
  '[\\s\\S]x',
  'x{300}',
  'x{2,}y$',
  '"q',
  '\\\\s',
];

describe("lro's regex engine", () => {
  it('embeds dfa.wat, assembled: in the module, and in the CLI bundle that ships', async () => {
    const wasm = await assembledWat('search/dfa.wat', { simd: true });
    expect(DFA_WASM).toBe(wasm);
    expect(wasmInBundles().get(wasm)).toContain('cli.cjs');
  });

  for (const p of PATTERNS) {
    for (const i of [false, true]) {
      it(`selects what the regex selects: ${p}${i ? ' (-i)' : ''}`, () => {
        const { finder, re } = finderOf(p, i);
        expect(dfaLines(finder, LINES, re)).toEqual(byRegex(LINES, re));
      });
    }
  }

  it('takes word boundaries and -w as a prefilter: a superset of the records, none settled', () => {
    const lines = ['sshd x', 'xsshd', 'sshd_', 'a sshd', 'sshd\\', 'caf\u00e9sshd', 'sshd\u00e9', 'SSHD'];
    for (const [p, word, i] of [['\\bsshd\\b', false, false], ['sshd', true, false], ['\\Bsshd', false, true], ['ssh\\w', true, true]] as const) {
      const m = compilePattern(p, { fixed: false, ignoreCase: i, word });
      const e = dfaFor(m);
      if (!('dfa' in e)) throw new Error(e.why);
      expect(e.dfa.exact).toBe(false);
      const finder = new DfaFinder(e.dfa);
      expect(dfaLines(finder, lines, m.regex), `${p} ${word ? '-w' : ''}`).toEqual(byRegex(lines, m.regex));
      const data = stored(lines);
      expect(finder.find(data, 0, data.length)).toBeGreaterThanOrEqual(0);
      expect(finder.settles(data, 0, data.indexOf(0x0a))).toBe(false);
    }
  });

  it('settles records without escapes itself, leaves those with escapes to the regex', () => {
    const { finder } = finderOf('q[a-z0-9]{2}u');
    const data = stored(['no', 'a q12u', 'b\\ q12u', 'c "q12u"']);
    expect(finder.find(data, 0, data.length)).toBeGreaterThan(0);
    let ls = data.indexOf('"a q12u"');
    expect(finder.settles(data, ls, data.indexOf(0x0a, ls))).toBe(true);
    const next = data.indexOf(0x0a, ls) + 1;
    const hit = finder.find(data, next, data.length);
    ls = data.lastIndexOf(0x0a, hit - 1) + 1;
    expect(data.toString('utf8', ls, data.indexOf(0x0a, ls))).toBe('"b\\\\ q12u"');
    expect(finder.settles(data, ls, data.indexOf(0x0a, ls))).toBe(false);
  });

  it('says why it does not take a pattern', () => {
    const why = (p: string, o: { word?: boolean } = {}) => {
      const e = dfaFor(compilePattern(p, { fixed: false, ignoreCase: false, word: !!o.word }));
      return 'why' in e ? e.why : 'taken';
    };
    expect(why('(a)\\1')).toMatch(/backreference/);
    expect(why('a(?=b)')).toMatch(/lookaround/);

    expect(why('\\p{L}x')).toMatch(/Unicode property/);
    expect(why('a\\-b')).toMatch(/u flag/);
    expect(why('.{5000}')).toMatch(/automaton states/);
    expect(why('q[a-z]{2}u')).toBe('taken');
  });

  it('folds as /iu folds: every orbit is one letter for the regex, and only for it', () => {
    for (const orbit of foldOrbits()) {
      for (const a of orbit) {
        const re = new RegExp(`^${String.fromCodePoint(a).replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&')}$`, 'iu');
        for (const b of orbit) expect(re.test(String.fromCodePoint(b)), `${a.toString(16)} ~ ${b.toString(16)}`).toBe(true);
      }
    }
    // and code points outside every orbit fold with nothing else (a sample of the letters with case)
    const inOrbit = new Set(foldOrbits().flat());
    for (const c of [0x130, 0x131, 0xdf, 0x149, 0x1f0]) {
      if (inOrbit.has(c)) continue;
      const re = new RegExp(`^[${String.fromCodePoint(c)}]$`, 'iu');
      for (const d of [0x69, 0x49, 0x73, 0x53]) expect(re.test(String.fromCodePoint(d))).toBe(false);
    }
  });

  it('splits code point ranges into UTF-8 byte sequences that hold exactly their characters', () => {
    const seqs: [number, number][][] = [];
    utf8Sequences(0x70, 0x10ffff - 1, seqs);
    const holds = (c: number) => {
      const b = [...Buffer.from(String.fromCodePoint(c), 'utf8')];
      return seqs.some((s) => s.length === b.length && s.every(([lo, hi], k) => b[k] >= lo && b[k] <= hi));
    };
    for (const c of [0x6f, 0x70, 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xe000, 0xffff, 0x10000, 0x10fffe, 0x10ffff]) {
      expect(holds(c), c.toString(16)).toBe(c >= 0x70 && c <= 0x10fffe);
    }
  });

  it('clears a full cache and goes on, with the same answers', () => {
    // (x|y){n} after a class: many states; lines of random x/y/z make the DFA meet most of them
    const rand = seeded(3).next;
    const lines = Array.from({ length: 3000 }, () => Array.from({ length: 60 }, () => 'xyz'[rand() % 3]).join(''));
    const p = 'x[xy]{12}z';
    const m = compilePattern(p, { fixed: false, ignoreCase: false, word: false });
    const dfa = new LazyDfa(compileNfa(parseUnicode(p)!, false), 64);
    const finder = new DfaFinder(dfa);
    expect(dfaLines(finder, lines, m.regex)).toEqual(byRegex(lines, m.regex));
    expect(dfa.clears).toBeGreaterThan(0);
  });
});
