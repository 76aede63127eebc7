import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { getTokenizer, ENCODINGS } from '../../src/tokens/tokenizer.js';
import { tokenBound } from '../../src/tokens/token-bound.js';
import { corpusFiles } from '../helpers/corpus.js';

// A small, seeded generator: the same strings every run.
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 2 ** 32;
  };
}

/** Lines of every text file of the corpus (its first 64 KB each). */
function corpusLines(): string[] {
  const lines: string[] = [];
  for (const file of corpusFiles().filter((f) => /\.(log|txt|json|jsonl|out)$/.test(f))) {
    const text = readFileSync(file, 'utf8').slice(0, 64 << 10);
    for (const line of text.split(/(?<=\n)/)) lines.push(line);
  }
  return lines;
}

describe('tokenBound', () => {
  const lines = corpusLines();
  const rnd = random(25);
  const alphabets = ['ab', 'aeiou tn', 'abcdefghijklmnopqrstuvwxyz', 'ABCabc012 ._-/', '0123456789', ' \t\n\r', '{}[]":,\\/.-_=+*&^%$#@!?<>|~`\'', 'The quick brown fox\n'];
  const made: string[] = [];
  for (let i = 0; i < 3000; i++) {
    const alphabet = alphabets[i % alphabets.length] + (i % 3 === 0 ? ' ' : '');
    const n = 1 + Math.floor(rnd() * 80);
    let s = '';
    for (let j = 0; j < n; j++) s += alphabet[Math.floor(rnd() * alphabet.length)];
    made.push(s);
  }

  for (const enc of ENCODINGS) {
    it(`is never below the exact count (${enc}): corpus lines and made-up ASCII`, () => {
      const tok = getTokenizer(enc);
      expect(lines.length).toBeGreaterThan(10_000);
      let bounded = 0;
      for (const text of [...lines, ...made]) {
        const bound = tokenBound(text, enc);
        const exact = tok.count(text);
        if (bound < exact) expect.fail(`bound ${bound} < exact ${exact} for ${JSON.stringify(text.slice(0, 200))}`);
        expect(bound).toBeLessThanOrEqual(Buffer.byteLength(text));
        if (bound < Buffer.byteLength(text)) bounded++;
      }
      expect(bounded).toBeGreaterThan(lines.length / 2);
    });

    it(`is near the exact count on logs, far below their bytes (${enc})`, () => {
      const tok = getTokenizer(enc);
      let exact = 0;
      let bound = 0;
      let bytes = 0;
      for (const file of corpusFiles().filter((f) => /loghub\/.*\.log$/.test(f))) {
        for (const line of readFileSync(file, 'utf8').split(/(?<=\n)/).slice(0, 40)) {
          exact += tok.count(line);
          bound += tokenBound(line, enc);
          bytes += Buffer.byteLength(line);
        }
      }
      // measured: about 1.3 x the exact count, where the bytes are about 3 x
      expect(bound / exact).toBeLessThan(1.45);
      expect(bytes / bound).toBeGreaterThan(2);
    });
  }

  it('gives the UTF-8 length of text outside ASCII, and counts nothing twice', () => {
    expect(tokenBound('')).toBe(0);
    expect(tokenBound('a')).toBe(1);
    expect(tokenBound('naïve café')).toBe(Buffer.byteLength('naïve café'));
    // a short token is one part: any split of it has two neighbours that join into a token
    expect(tokenBound(' the')).toBe(1);
    // pieces are bounded one by one: a text of one piece repeated is bounded by that many times its piece
    expect(tokenBound(' the'.repeat(50))).toBe(50);
  });
});
