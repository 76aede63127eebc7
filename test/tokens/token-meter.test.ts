// The token meter's estimate of a stream past its exact part: the same input, the same estimate, however its
// reads were cut (it sampled each chunk pushed, and a pipe's chunks vary from run to run), and near the exact count.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TokenMeter } from '../../src/tokens/token-meter.js';
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

describe('TokenMeter', () => {
  // 3 MB of logs, of which the first 256 KB are counted exactly: 22 blocks of the rest are sampled
  const logs = ['Android_2k', 'HDFS_2k', 'Spark_2k', 'Linux_2k', 'OpenSSH_2k'].map((l) => readFileSync(corpusFile(`loghub/${l}.log`)));
  const input = Buffer.concat(Array.from({ length: 12 }, (_, i) => logs[i % logs.length])).subarray(0, 3 << 20);

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
