// The hand-written pre-tokenizer gives, wherever it answers, the piece the pattern itself gives; on ASCII text
// it always answers. Random strings over the characters that steer the patterns: letters of both cases,
// digits, apostrophes and contractions, punctuation, every kind of whitespace, and characters outside ASCII
// (letters, digits, spaces and symbols of other scripts) next to them.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { cl100kPieceEnd, o200kPieceEnd } from '../../src/tokens/pretokenize.js';
import { cl100kPieceEndAny, o200kPieceEndAny } from '../../src/tokens/pretokenize-unicode.js';
import { ranksFilePattern } from '../helpers/ranks.js';
import { seeded } from '../helpers/seeded.js';

const patterns = { o200k_base: o200kPieceEnd, cl100k_base: cl100kPieceEnd } as const;
const rand = seeded(11).next;
const ascii = ["'ve", "'RE", "'ll", "'Ll", "'d", "'M", "'t", "'S", "'vE", 'a', 'b', 'z', 'A', 'B', 'Z', 's', 'S', 't', 'T', 'r', 'e', 'v', 'l', 'L', 'm', 'd', 'D', '0', '1', '9', "'", "'", ' ', ' ', ' ', '\t', '\n', '\r', '\v', '\f', '/', '.', ',', '!', '-', '_', '(', '"', '\\', '\x00', '\x1b', '\x7f'];
const other = ['\u2026', '\u2014', '\u201c', '\u2019', '\u2192', '\u2030', '\u2010', '\u205e', '\u21ff', '\u2027', '\u00e9', '\u00c9', '\u00a0', '\u2003', '\u0663', '\u20ac', '\u017f', '\u3000', '\u{1F600}', '\u0301', '\u01c5', '\u02b0'];

describe('the ASCII pre-tokenizer', () => {
  for (const [encoding, pieceEnd] of Object.entries(patterns)) {
    const re = new RegExp(ranksFilePattern(encoding), 'uy');
    const regexEnd = (text: string, i: number) => {
      re.lastIndex = i;
      return re.test(text) ? re.lastIndex : -2;
    };
    it(`${encoding}: agrees with the pattern wherever it answers, and always answers on ASCII`, () => {
      let answered = 0;
      for (let round = 0; round < 20000; round++) {
        const withOther = round % 3 === 0;
        const len = 1 + (rand() % 24);
        let text = '';
        for (let k = 0; k < len; k++) text += withOther && rand() % 4 === 0 ? other[rand() % other.length] : ascii[rand() % ascii.length];
        for (let i = 0; i < text.length; i++) {
          const ours = pieceEnd(text, i);
          if (ours === -1) {
            expect(withOther, `${JSON.stringify(text)} at ${i}: ASCII left to the regex`).toBe(true);
            continue;
          }
          answered++;
          expect(ours, `${JSON.stringify(text)} at ${i}`).toBe(regexEnd(text, i));
        }
      }
      expect(answered).toBeGreaterThan(100000);
    });
    it(`${encoding}: agrees on real text`, () => {
      for (const file of ['loghub/OpenSSH_2k.log', 'json-docs/github_events.json', 'shell-output/go-test-json.out']) {
        const text = readFileSync(new URL(`../../fixtures/corpus/${file}`, import.meta.url), 'utf8');
        for (let i = 0; i < text.length; ) {
          const want = regexEnd(text, i);
          const ours = pieceEnd(text, i);
          if (ours !== -1) expect(ours, `${file} at ${i}`).toBe(want);
          i = want;
        }
      }
    });
  }
});

// Characters of every kind the patterns tell apart: upper, lower, title case, modifier and other letters (CJK),
// the three kinds of marks (nonspacing, spacing, enclosing), digits, letter numbers and other numbers, spaces of
// other scripts (no-break, em, ideographic, line separator, BOM), symbols and punctuation, long s, astral letters, digits, marks and emoji, and lone surrogates; next to ASCII.
const UNICODE = [
  'É', 'é', 'Ω', 'ω', 'ǅ', 'ʰ', 'ー', '日', 'あ', 'ק', '\u0301', '\u0308', '\u0903', '\u20dd', '٣', 'Ⅳ', '²', '½',
  '\u00a0', '\u2003', '\u3000', '\u2028', '\ufeff', '\u1680', '✓', '×', '…', '€', '、', '。', '「', 'ſ', '\u{1D400}',
  '\u{1D41A}', '\u{20000}', '\u{1D7CE}', '\u{1D165}', '\u{1F600}', '\u{10107}', '\ud800', '\udc00',
];

describe('the pre-tokenizer for any text', () => {
  const anyEnds = { o200k_base: o200kPieceEndAny, cl100k_base: cl100kPieceEndAny } as const;
  for (const [encoding, pieceEnd] of Object.entries(anyEnds)) {
    const re = new RegExp(ranksFilePattern(encoding), 'uy');
    const regexEnd = (text: string, i: number) => {
      re.lastIndex = i;
      return re.test(text) ? re.lastIndex : -1;
    };
    it(`${encoding}: the piece the pattern gives, at every character of random text of every kind`, () => {
      let checked = 0;
      for (let round = 0; round < 12000; round++) {
        const len = 1 + (rand() % 20);
        let text = '';
        for (let k = 0; k < len; k++) text += rand() % 2 === 0 ? UNICODE[rand() % UNICODE.length] : ascii[rand() % ascii.length];
        for (let i = 0; i < text.length; i++) {
          // a piece starts only at a character's start (the tokenizer never starts one inside a pair)
          if (i > 0 && /[\udc00-\udfff]/.test(text[i]) && /[\ud800-\udbff]/.test(text[i - 1])) continue;
          expect(pieceEnd(text, i), `${JSON.stringify(text)} at ${i}`).toBe(regexEnd(text, i));
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(100000);
    });
    it(`${encoding}: the same pieces over real text (tweets in many scripts)`, () => {
      for (const text of [readFileSync(new URL('../../fixtures/corpus/json-docs/twitter.json', import.meta.url), 'utf8')]) {
        for (let i = 0; i < text.length; ) {
          const want = regexEnd(text, i);
          expect(pieceEnd(text, i), `at ${i}: ${JSON.stringify(text.slice(i, i + 20))}`).toBe(want);
          i = want;
        }
      }
    });
  }
});
