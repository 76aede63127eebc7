// The token counting kernel: its embedded WebAssembly is exactly bpe.wat assembled, and the tokenizer that runs
// it counts as js-tiktoken does on random text over the characters that steer the pre-tokenizer (the pieces
// the kernel decides, those it leaves to JavaScript, and the places where one hands over to the other), and on
// texts of many windows whose pieces straddle a window's end.
import { describe, expect, it } from 'vitest';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { BPE_WASM } from '../../src/tokens/bpe-wasm.js';
import { getTokenizer, WINDOW } from '../../src/tokens/tokenizer.js';
import { assembledWat, wasmInBundles } from '../helpers/wat.js';
import { seeded } from '../helpers/seeded.js';

const reference = { o200k_base: new Tiktoken(o200k), cl100k_base: new Tiktoken(cl100k) } as const;
const refCount = (enc: keyof typeof reference, text: string) => reference[enc].encode(text, [], []).length;

const rand = seeded(7).next;
const ascii = ["'ve", "'RE", "'ll", "'Ll", "'d", "'M", "'t", "'S", 'a', 'z', 'A', 'Z', 's', 'S', 't', 'r', 'e', 'v', 'l', 'L', 'm', 'd', '0', '1', '9', "'", ' ', ' ', ' ', '\t', '\n', '\r', '\v', '/', '.', ',', '!', '-', '_', '(', '"', '\\', '\x00', '\x1b', '\x7f', 'the', ' quick', 'Error', ' 2026-11-23'];
const other = ['\u2026', '\u2014', '\u201c', '\u2192', '\u00e9', '\u00c9', '\u00a0', '\u2003', '\u0663', '\u20ac', '\u3000', '\u{1F600}', '\u0301', '\ud800', '\udc00', '日本'];

const randomText = (items: number, otherShare: number) => {
  let text = '';
  for (let k = 0; k < items; k++) text += rand() % 1000 < otherShare ? other[rand() % other.length] : ascii[rand() % ascii.length];
  return text;
};

describe('the token counting kernel', () => {
  it('embeds bpe.wat, assembled: in the module, and in the CLI bundle that ships', async () => {
    const wasm = await assembledWat('tokens/bpe.wat');
    expect(BPE_WASM).toBe(wasm);
    expect(wasmInBundles().get(wasm)).toContain('cli.cjs');
  });

  for (const enc of ['o200k_base', 'cl100k_base'] as const) {
    it(`${enc}: counts short random texts as js-tiktoken does, ASCII and mixed`, () => {
      const tok = getTokenizer(enc);
      for (let round = 0; round < 6000; round++) {
        const text = randomText(1 + (rand() % 24), round % 2 ? 0 : 150);
        expect(tok.count(text), JSON.stringify(text)).toBe(refCount(enc, text));
      }
    });

    it(`${enc}: counts texts of many windows as js-tiktoken does, whatever sits at a window's end`, () => {
      const tok = getTokenizer(enc);
      // runs of one kind (spaces, letters, digits, punctuation, newlines) of every length near 32 Ki units, so
      // that windows end inside them, and long pieces (48 bytes and more) that the kernel hands back
      const runs = [' ', 'a', 'Z', '7', '.', '\n', ' \n', 'ab', '=', '\t '];
      for (const otherShare of [0, 20]) {
        let text = '';
        while (text.length < 200_000) {
          text += randomText(50 + (rand() % 400), otherShare);
          if (rand() % 3 === 0) text += runs[rand() % runs.length].repeat(1 + (rand() % 120));
        }
        expect(tok.count(text)).toBe(refCount(enc, text));
      }
    });

    it(`${enc}: counts as js-tiktoken does whichever character of a piece a window ends at`, () => {
      const tok = getTokenizer(enc);
      const filler = randomText(WINDOW, 0).slice(0, WINDOW);
      // contractions and punctuation's tail of \r \n / (which look one to two characters ahead), and random text
      const tricky = [" it's x", " WE'LL x", " they've x", ' end.../\n\n/x', ' !!\r\n/ x', '  \n  x'];
      for (let k = 1; k <= 40; k++) {
        const text = filler.slice(0, WINDOW - k) + (k <= 10 ? tricky.join('') : randomText(30, k % 2 ? 0 : 100));
        expect(tok.count(text), JSON.stringify(text.slice(WINDOW - k - 5, WINDOW + 5))).toBe(refCount(enc, text));
      }
    });

    it(`${enc}: hands a piece longer than a window to JavaScript and goes on after it`, () => {
      // js-tiktoken takes hours on such pieces (quadratic merges): the text is counted against its pieces
      // counted alone ("start", " xxx…", " middle", "\n", "----…", " end"), which pre-tokenize the same way
      const tok = getTokenizer(enc);
      const pieces = ['start', ` ${'x'.repeat(40_000)}`, ' middle', '\n', '-'.repeat(33_000), ' end'];
      expect(tok.count(pieces.join(''))).toBe(pieces.reduce((n, p) => n + tok.count(p), 0));
      expect(tok.count('start middle end')).toBe(refCount(enc, 'start middle end'));
    });
  }
});
