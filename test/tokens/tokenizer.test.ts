import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { corpusFiles } from '../helpers/corpus.js';

const reference = { o200k_base: new Tiktoken(o200k), cl100k_base: new Tiktoken(cl100k) } as const;
const refCount = (enc: keyof typeof reference, text: string) => reference[enc].encode(text, [], []).length;

describe('tokenizer', () => {
  const samples = [
    '',
    'hello world',
    "It's a test: don't panic! 12345 + 6789 = 19134\n\n\tindented\r\nCRLF",
    '日本語のテキストと emoji 😀🎉 and accents: naïve café',
    '{"id":505874924095815681,"status":"error","msg":"Connection refused"}',
    'a'.repeat(300),
    'ab'.repeat(200) + ' ' + '='.repeat(120),
    '\u{10080}\ud800 lone \udc80 surrogates',
    '<|endoftext|> is special',
  ];
  for (const enc of ['o200k_base', 'cl100k_base'] as const) {
    it(`counts like js-tiktoken (${enc}) on samples`, () => {
      const tok = getTokenizer(enc);
      for (const s of samples) expect(tok.count(s), JSON.stringify(s.slice(0, 40))).toBe(refCount(enc, s));
    });
    it(`counts like js-tiktoken (${enc}) on corpus text`, () => {
      const tok = getTokenizer(enc);
      for (const file of corpusFiles().filter((f) => /loghub\/(Apache|OpenSSH)|go-test|github_events\.json|twitter/.test(f))) {
        const text = readFileSync(file, 'utf8').slice(0, 200_000);
        expect(tok.count(text), file).toBe(refCount(enc, text));
      }
    });
  }
  it('counts long pieces like js-tiktoken, the first time and when they repeat (the long-piece cache)', () => {
    const blankLines = `${' '.repeat(100)}\n`.repeat(12); // one piece of 1.2 KB: \s*[\r\n]+ spans lines of blanks
    const rule = '='.repeat(80);
    const texts = [
      blankLines,
      `log start\n${rule}\nstep one\n${rule}\nstep two\n${rule}\n`.repeat(3),
      `${'-'.repeat(300)} ${'ab'.repeat(100)}\n`.repeat(4),
      ' '.repeat(4200) + 'x', // longer than the cache takes
      `x${'\t '.repeat(300)}y`,
    ];
    for (const enc of ['o200k_base', 'cl100k_base'] as const) {
      const tok = getTokenizer(enc);
      for (const t of texts) {
        const want = refCount(enc, t); // (js-tiktoken is quadratic in a piece's length: counted once)
        expect([tok.count(t), tok.count(t)], JSON.stringify(t.slice(0, 30))).toEqual([want, want]);
      }
    }
  });

  it('is linear on one long unbroken run (the js-tiktoken trap)', () => {
    const tok = getTokenizer('o200k_base');
    const start = performance.now();
    const n = tok.count('a'.repeat(1_000_000));
    expect(performance.now() - start).toBeLessThan(20_000); // generous bound; js-tiktoken needs hours here
    expect(n).toBeGreaterThan(1000);
    // exact on a size js-tiktoken can still do
    expect(tok.count('a'.repeat(3000))).toBe(refCount('o200k_base', 'a'.repeat(3000)));
  });
});
