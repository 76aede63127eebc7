// The text statistics behind a descriptor do not depend on how the input was cut into chunks: a pipe hands
// offload pieces of any size, and `lro info` (and a dedupe hit) feeds the stored lines in batches of its own, yet
// both must print the same descriptor. Long lines, which TextAnalyzer keeps only in part when they span chunks,
// are the hard case.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TextAnalyzer } from '../../src/describe/text-stats.js';

function analyze(input: Buffer, cuts: number[]): unknown {
  const a = new TextAnalyzer();
  let at = 0;
  for (const c of [...cuts.filter((x) => x > 0 && x < input.length)].sort((x, y) => x - y)) {
    if (c > at) a.push(Buffer.from(input.subarray(at, c)));
    at = Math.max(at, c);
  }
  if (at < input.length) a.push(Buffer.from(input.subarray(at)));
  return JSON.parse(JSON.stringify(a.end()));
}

const filler = (n: number) => 'x'.repeat(n);
const line = fc.oneof(
  fc.constantFrom('081109 203615 148 INFO dfs.DataNode: PacketResponder 1 terminating', '[notice] child 42 started', 'plain words only'),
  // failure messages with no error word (found by the second pass of the kernel, given in order among the others)
  fc.constantFrom("ls: cannot access 'x': No such file or directory", "make: *** No rule to make target 'x'.  Stop.", "big.c:(.text+0x5): undefined reference to `f'"),
  // long lines with an error word or a level far past the part that is kept of a line spanning chunks
  fc.record({ pad: fc.integer({ min: 1900, max: 4500 }), word: fc.constantFrom(' ERROR ', ' failed ', ' WARN ', ' [error] ', ' none ') }).map(
    ({ pad, word }) => `${filler(pad)}${word}${filler(50)}`,
  ),
);

describe('TextAnalyzer', () => {
  it('gives the same statistics however the input is cut', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 40 }), fc.array(fc.nat(), { maxLength: 12 }), fc.boolean(), (lines, cuts, finalNewline) => {
        const input = Buffer.from(lines.join('\n') + (finalNewline ? '\n' : ''));
        const scaled = cuts.map((c) => c % (input.length + 1));
        expect(analyze(input, scaled)).toEqual(analyze(input, []));
      }),
      { numRuns: 300 },
    );
  });

  it('finds the error word and the level of a long line cut just past its kept part', () => {
    const text = `${filler(2100)} ERROR disk full\nshort INFO line\n`;
    const whole = analyze(Buffer.from(text), []) as { errorCount: number; levels: Record<string, number> };
    expect(whole.errorCount).toBe(1);
    expect(whole.levels).toEqual({ ERROR: 1, INFO: 1 });
    for (const cut of [10, 2049, 2050, 2103, 2104, 2106]) expect(analyze(Buffer.from(text), [cut])).toEqual(whole);
  });
});
