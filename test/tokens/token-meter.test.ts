// The token meter's estimate of a stream past its exact part: the same input, the same estimate, however its
// reads were cut (it sampled each chunk pushed, and a pipe's chunks vary from run to run), and near the exact count.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import o200k from 'js-tiktoken/ranks/o200k_base';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { safeCut, TokenMeter } from '../../src/tokens/token-meter.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { corpusFile } from '../helpers/corpus.js';

/** The estimate of input pushed in chunks of the sizes `sizes` gives, in turn. */
function estimate(input: Buffer, sizes: number[], exactBytes: number): number {
  const meter = new TokenMeter(getTokenizer('o200k_base'), exactBytes);
  for (let at = 0, k = 0; at < input.length; k++) {
    const n = sizes[k % sizes.length];
    meter.push(input.subarray(at, at + n));
    at += n;
  }
  return meter.end();
}

// 3 MB of logs, of which the first 256 KB are counted exactly: 22 blocks of the rest are sampled
const logs = ['Android_2k', 'HDFS_2k', 'Spark_2k', 'Linux_2k', 'OpenSSH_2k'].map((l) => readFileSync(corpusFile(`loghub/${l}.log`)));
const input = Buffer.concat(Array.from({ length: 12 }, (_, i) => logs[i % logs.length])).subarray(0, 3 << 20);

describe('TokenMeter', () => {
  it('gives the same estimate however the input was cut into chunks', () => {
    const one = estimate(input, [input.length], 256 << 10);
    for (const sizes of [[65536], [1 << 20], [4096, 100_000, 7], [16384, 16385], [1, 333_333]]) {
      expect(estimate(input, sizes, 256 << 10), sizes.join(',')).toBe(one);
    }
  });

  it('is within 2% of the exact count', () => {
    const exact = getTokenizer('o200k_base').count(input.toString('utf8'));
    const got = estimate(input, [65536], 256 << 10);
    expect(Math.abs(got - exact) / exact).toBeLessThan(0.02);
    // and exact when the exact part holds it all
    expect(estimate(input.subarray(0, 200_000), [65536], 256 << 10)).toBe(getTokenizer('o200k_base').count(input.subarray(0, 200_000).toString('utf8')));
  });
});

// The exact part is counted in pieces cut where the pre-tokenizer cuts too. Pretty-printed JSON (every line
// indented, ending in punctuation) had no such place: the offload threshold could not be decided before the end,
// and `lro offload` held the whole input in memory (a 120 MB document: 247 MB of RSS).
describe('safeCut', () => {
  const pieces = (pat: string, s: string) => s.match(new RegExp(pat, 'gu')) ?? [];
  const random = (seed: number) => () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);

  it('cuts only where the pre-tokenizer of either encoding cuts too', () => {
    const rnd = random(7);
    const alphabet = [' ', ' ', ' ', '\t', '\n', '\n', '\r', ',', '{', '}', '/', '"', ':', 'a', 'B', '1', 'é', '\u00a0', '\u3000'];
    let cuts = 0;
    for (let k = 0; k < 20_000; k++) {
      const s = Array.from({ length: 2 + Math.floor(rnd() * 24) }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join('');
      const c = safeCut(s);
      if (c <= 0) continue;
      cuts++;
      for (const pat of [o200k.pat_str, cl100k.pat_str]) {
        expect([...pieces(pat, s.slice(0, c)), ...pieces(pat, s.slice(c))], JSON.stringify(s)).toEqual(pieces(pat, s));
      }
    }
    expect(cuts).toBeGreaterThan(5_000);
  });

  it('finds a place in pretty-printed JSON and in indented lines', () => {
    const doc = JSON.stringify({ items: [{ a: [1, { b: 'x' }], c: null }] }, null, 4);
    expect(safeCut(doc)).toBeGreaterThan(0);
    expect(safeCut(JSON.stringify({ a: { b: {} } }, null, '\t'))).toBeGreaterThan(0);
    expect(safeCut('\tat a.B.c(B.java:1)\n\tat a.B.d(B.java:2)\n')).toBeGreaterThan(0);
    // a whitespace run holding another newline, or ending the text, is no place
    expect(safeCut('{,\n \n')).toBe(0);
    expect(safeCut('{,\n  \n  ,')).toBe(6); // after the second newline, not the first
    expect(safeCut('{,\n  ')).toBe(0);
  });
});

describe('TokenMeter.exceeds', () => {
  it('knows a pretty-printed JSON document of 3 MB is over 6,400 tokens from its first 64 KB', () => {
    const doc = Buffer.from(JSON.stringify({ items: Array.from({ length: 40_000 }, (_, i) => ({ i: `${i}`, tags: ['x', 'y'] })) }, null, 2));
    expect(doc.length).toBeGreaterThan(3 << 20);
    const meter = new TokenMeter(getTokenizer('o200k_base'));
    meter.push(doc.subarray(0, 65536));
    expect(meter.exceeds(6400)).toBe(true);
  });

  it('past the exact part, answers by the estimate so far (a threshold above the exact part)', () => {
    const meter = new TokenMeter(getTokenizer('o200k_base'), 256 << 10);
    let pushed = 0;
    while (!meter.exceeds(200_000) && pushed < input.length) {
      meter.push(input.subarray(pushed, pushed + 65536));
      pushed += 65536;
    }
    const exact = getTokenizer('o200k_base').count(input.subarray(0, pushed).toString('utf8'));
    // it stops once the text so far is over the limit (within the estimate's error), not at the end of the input
    expect(pushed).toBeLessThan(input.length);
    expect(exact).toBeGreaterThan(200_000 * 0.97);
    expect(exact).toBeLessThan(200_000 * 1.03 + 65536);
  });
});
