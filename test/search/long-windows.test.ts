// The windows grep shows of a long record (search/grep-values.ts longWindows) are those of every match found and
// merged at once, as grep made them before it took the matches one at a time: random texts and patterns (dense,
// sparse, empty matches, matches wider than a window) against that way, written out here as the oracle.
import { describe, expect, it } from 'vitest';
import { longWindows, MAX_WINDOWS, WINDOW } from '../../src/search/grep-values.js';
import { seeded } from '../helpers/seeded.js';

const MAX_WINDOW = 4 * WINDOW;

/** Every match, then the windows of all of them: grep's way before longWindows. */
function oracle(text: string, re: RegExp): { shown: { start: number; end: number; matches: [number, number][] }[]; total: number } {
  const matches: [number, number][] = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    matches.push([m.index, m.index + m[0].length]);
    if (m[0].length === 0) re.lastIndex++;
  }
  const out: [number, number][] = [];
  for (const [s, e] of matches) {
    const ws = Math.max(0, s - WINDOW);
    const we = Math.min(text.length, e + WINDOW);
    const last = out[out.length - 1];
    if (last && ws <= last[1] && Math.max(last[1], we) - last[0] <= MAX_WINDOW) last[1] = Math.max(last[1], we);
    else if (last && ws < last[1]) out.push([last[1], Math.max(last[1], we)]);
    else out.push([ws, we]);
  }
  const shown = out.slice(0, MAX_WINDOWS).map(([start, end]) => ({ start, end, matches: matches.filter(([ms]) => ms >= start && ms < end) }));
  return { shown, total: out.length };
}

const rand = seeded(11).below;

/** A text of `length` characters of a small alphabet (so that short patterns match at every density). */
function text(length: number, alphabet: string): string {
  let t = '';
  while (t.length < length) t += alphabet[rand(alphabet.length)];
  return t;
}

describe('longWindows', () => {
  const patterns = ['a', 'ab', 'abc', 'a{3}', 'x*', 'b?', 'a[^a]{150}a', 'c.{0,300}d', '(?:ab|ba)+', '\\bab\\b', 'zzzz', '^a', 'a$', 'd.{500,}d', 'e'];
  for (const pattern of patterns) {
    it(`/${pattern}/g over texts of every density, as all the matches found at once`, () => {
      for (let round = 0; round < 12; round++) {
        const alphabet = ['ab', 'abcd ', 'abcdefghijklmnop ', 'aaaaaaaaaaaaaaaaaaaaaaaaab', 'xyzxyzxyzxyzxyzxyza bcde'][round % 5];
        const t = text(1001 + rand(40_000), alphabet);
        for (const flags of ['g', 'gi', 'gu']) {
          const re = new RegExp(pattern, flags);
          expect(longWindows(t, re), `${pattern} ${flags} round ${round}`).toEqual(oracle(t, new RegExp(pattern, flags)));
        }
      }
    });
  }

  it('a record with a million matches: ten windows, and the count of them all', () => {
    // a match every other character for 2 MB, of which 10 windows show a few hundred
    const t = 'ab'.repeat(1 << 20);
    const { shown, total } = longWindows(t, /a/g);
    expect(shown).toHaveLength(MAX_WINDOWS);
    expect(total).toBe(oracle(t, /a/g).total);
    const held = shown.reduce((n, w) => n + w.matches.length, 0);
    expect(held).toBeLessThanOrEqual(MAX_WINDOWS * (MAX_WINDOW / 2 + 1));
  });
});
