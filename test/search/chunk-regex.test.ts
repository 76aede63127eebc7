// Unit: the regex lro grep runs over many stored records at once for a pattern without a literal
// (search/chunk-regex.ts): how a pattern is rewritten for the stored bytes, which patterns are refused, and that
// every record whose text matches is a candidate (the finder may find more; the pattern decides those).
import { describe, expect, it } from 'vitest';
import { chunkRegex, RegexFinder, WINDOW } from '../../src/search/chunk-regex.js';
import { compilePattern } from '../../src/search/pattern.js';

const matcher = (p: string, o: { ignoreCase?: boolean; word?: boolean; fixed?: boolean } = {}) =>
  compilePattern(p, { fixed: !!o.fixed, ignoreCase: !!o.ignoreCase, word: !!o.word });
const source = (p: string, quoted = true) => chunkRegex(matcher(p), quoted)?.find.source ?? null;

/** Text records as lro stores them: each line a JSON string, one a line. */
const stored = (lines: string[]) => Buffer.from(lines.map((l) => `${JSON.stringify(l)}\n`).join(''), 'utf8');

/** The numbers (1-based) of the records the finder gives as candidates, going through them as grep does. */
function candidates(f: RegexFinder, view: Buffer): number[] {
  const out: number[] = [];
  let pos = 0;
  let n = 0;
  f.reset();
  while (pos < view.length) {
    const hit = f.find(view, pos, view.length);
    if (hit < 0) break;
    const start = hit === 0 ? 0 : view.lastIndexOf(0x0a, hit - 1) + 1; // (a negative offset counts from the end)
    for (let i = view.indexOf(0x0a, pos); i >= 0 && i < start; i = view.indexOf(0x0a, i + 1)) n++;
    n++;
    out.push(n);
    pos = view.indexOf(0x0a, hit) + 1;
  }
  return out;
}

const LINES = [
  'Jun 14 15:16:01 combo sshd(pam_unix)[19939]: authentication failure; rhost=218.188.2.4',
  'date 2026-11-26 at 10:00',
  'quoted "2026-11" in quotes',
  'tab\t2026-11 after a tab',
  'back\\slash 1234-56',
  'caf\u00e9 2026-11 non-ASCII',
  '',
  'Jun',
  'no digits here',
  'ends in ssh2',
  'ip 183.62.140.253 and 10.0.0.1 uuid 123e4567-e89b-12d3-a456-426614174000',
  'ABCDE1 FGHIJ upper',
  '"starts with a quote" 12',
  'ends with a quote "x"',
  'sshd at the start and sshd_ and xsshd',
  '\u017fs long s and \u212a kelvin 7',
];

describe('chunkRegex', () => {
  it.each([
    ['\\d{4}-\\d{2}', '-(?<=\\d{4}-)\\d{2}'],
    ['^Jun \\d+', '^"Jun \\d+'],
    ['ssh2$', 'ssh2"$'],
    ['[^"]+x', 'x(?<=[^"\\n]+x)'],
    ['[^"]+x|y', '[^"\\n]+x|y'],
    ['[A-Z]{5,}\\d', '[A-Z]{5,}\\d'],
    ['ERROR|FATAL', 'ERROR|FATAL'],
  ])('%s is searched in stored records as %s', (p, want) => {
    expect(source(p)).toBe(want);
  });

  it('json records are searched as they are stored (their text)', () => {
    expect(source('^\\{"a":\\d', false)).toBe('^\\{"a":\\d');
  });

  it.each([
    ['(?<=a)b', 'a lookbehind'],
    ['a(?!b)', 'a lookahead'],
    ['(a)\\1', 'a backreference'],
    ['a\\s+b', 'a class that matches a newline'],
    ['a[\\s\\S]b', 'a class that matches a newline'],
    ['x*', 'an empty match'],
    ['^\\bx', '^ with \\b'],
    ['x\\b$', '$ with \\b'],
  ])('%s is refused (%s)', (p) => {
    expect(source(p)).toBeNull();
  });

  it('every record whose text matches is a candidate; records with escapes or non-ASCII always are', () => {
    const view = stored(LINES);
    const patterns: [string, { ignoreCase?: boolean; word?: boolean }][] = [
      ['\\d{4}-\\d{2}', {}],
      ['^Jun \\d+', {}],
      ['^Jun$', {}],
      ['^$', {}],
      ['ssh2$', {}],
      ['\\d+\\.\\d+\\.\\d+\\.\\d+', {}],
      ['[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', {}],
      ['[A-Z]{5,}\\d', {}],
      ['[A-Z]{5,}\\d', { ignoreCase: true }],
      ['\\bsshd\\b', {}],
      ['sshd', { word: true }],
      ['[^a-z ]\\d', {}],
      ['.2$', {}],
      ['^.', {}],
      ['S', { ignoreCase: true }],
      ['k \\d', { ignoreCase: true }],
    ];
    for (const [p, o] of patterns) {
      const m = matcher(p, o);
      const cr = chunkRegex(m, true);
      expect(cr, p).not.toBeNull();
      const found = new Set(candidates(new RegexFinder(cr!), view));
      LINES.forEach((l, i) => {
        m.regex.lastIndex = 0;
        if (m.regex.test(l)) expect(found.has(i + 1), `${p} misses ${JSON.stringify(l)}`).toBe(true);
        const escaped = /[\\\t"\u0080-\uffff]/.test(l);
        if (escaped) expect(found.has(i + 1), `${p}: ${JSON.stringify(l)} has escapes`).toBe(true);
      });
    }
  });

  it('settles a plain record only when the pattern matches its text, and settles most plain matches', () => {
    const lines = [...LINES, 'x1', '"x"', '1x', 'a "7" b', '7', 'abc', 'sshd', 'no sshd_x', '2026-11 and 2026-1'];
    const view = stored(lines);
    const patterns: [string, { ignoreCase?: boolean; word?: boolean }][] = [
      ['[0-9]', {}],
      ['\\d{4}-\\d{2}', {}],
      ['[^a-z ]\\d', {}],
      ['[^a]x', {}],
      ['\\d"?', {}],
      ['\\bsshd\\b', {}],
      ['sshd', { word: true }],
      ['[A-Z]{5,}\\d', { ignoreCase: true }],
      ['^\\d', {}],
      ['\\d$', {}],
    ];
    let settledPlain = 0;
    for (const [p, o] of patterns) {
      const m = matcher(p, o);
      const f = new RegexFinder(chunkRegex(m, true)!);
      f.reset();
      let ls = 0;
      lines.forEach((l) => {
        const le = view.indexOf(0x0a, ls);
        const hit = f.find(view, ls, le + 1);
        if (hit >= ls && hit < le && f.settles(view, ls, le)) {
          m.regex.lastIndex = 0;
          expect(m.regex.test(l), `${p} settles ${JSON.stringify(l)}`).toBe(true);
          expect(/[\\\t"\u0080-\uffff]/.test(l), `${p} settles ${JSON.stringify(l)}, which has escapes`).toBe(false);
          if (p === '[0-9]') settledPlain++;
        }
        ls = le + 1;
      });
      // anchors consume the stored quotes: nothing is settled
      if (p.startsWith('^') || p.endsWith('$')) expect(chunkRegex(m, true)!.whole).toBeNull();
    }
    // a pattern that cannot take a quote settles any match in a plain record (no match object needed)
    const quoteFree = (p: string) => chunkRegex(matcher(p), true)!.quoteFree;
    expect(['[0-9]', '\\d{4}-\\d{2}', '\\bsshd\\b'].map(quoteFree)).toEqual([true, true, true]);
    expect(['[^a]x', '\\d"?', '.x', '^\\d'].map(quoteFree)).toEqual([false, false, false, false]);
    // every plain record holding a digit
    expect(settledPlain).toBe(lines.filter((l) => /\d/.test(l) && !/[\\\t"\u0080-\uffff]/.test(l)).length);
  });

  it('finds candidates across windows, and in a record longer than a window', () => {
    const filler = Array.from({ length: 3000 }, (_, i) => `filler line ${'x'.repeat(i % 90)} without it`);
    const lines = [...filler, `long ${'y'.repeat(WINDOW * 2)} 2026-11`, ...filler, 'last 2026-11'];
    const view = stored(lines);
    const f = new RegexFinder(chunkRegex(matcher('\\d{4}-\\d{2}'), true)!);
    const found = candidates(f, view);
    // (find() stops at the end of each window: the record there is given too, so progress can be reported)
    expect(found).toEqual(expect.arrayContaining([3001, 6002]));
    expect(found.length).toBeLessThanOrEqual(f.windows + 2);
    expect(f.windows).toBeGreaterThan(5);
  });

  it("gives a record's text as the window holds it only when its stored bytes are that text", () => {
    const view = stored(['plain 2026-11', 'tab\t2026-11', 'caf\u00e9 2026-11']);
    const f = new RegexFinder(chunkRegex(matcher('\\d{4}-\\d{2}'), true)!);
    f.reset();
    const ends = [view.indexOf(0x0a), view.indexOf(0x0a, view.indexOf(0x0a) + 1)];
    expect(f.find(view, 0, view.length)).toBeGreaterThan(0);
    expect(f.plainText(view, 0, ends[0])).toBe('plain 2026-11');
    expect(f.plainText(view, ends[0] + 1, ends[1])).toBeUndefined();
    expect(f.plainText(view, ends[1] + 1, view.length - 1)).toBeUndefined();
  });
});
