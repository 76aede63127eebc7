// The error lines of a region, found by the scan kernel (wordLines in scan.wat), are the lines the regex
// /error|fail|.../gi finds on a latin1 string, with the same first word and line numbers, also when a region has
// more of them than one call of the kernel gives back (WORD_LINES).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ErrorLines } from '../../src/describe/error-lines.js';
import { ERROR_PATTERN } from '../../src/describe/text-stats.js';
import { WORD_LINES } from '../../src/search/scan.js';

type Hit = { start: number; end: number; before: number; word: string };

function byKernel(region: Buffer): { hits: Hit[]; lines: number } {
  const hits: Hit[] = [];
  const lines = new ErrorLines(ERROR_PATTERN).scan(region, (start, end, before, word) => hits.push({ start, end, before, word }));
  return { hits, lines };
}

function byRegex(region: Buffer): { hits: Hit[]; lines: number } {
  const hits: Hit[] = [];
  let start = 0;
  let n = 0;
  for (let nl = region.indexOf(0x0a); nl >= 0; nl = region.indexOf(0x0a, start)) {
    const m = new RegExp(ERROR_PATTERN, 'i').exec(region.subarray(start, nl).toString('latin1'));
    if (m) hits.push({ start, end: nl, before: n, word: m[0].toLowerCase() });
    n++;
    start = nl + 1;
  }
  return { hits, lines: n };
}

describe('ErrorLines', () => {
  it('finds the lines the regex finds, with their first word and line number', () => {
    const line = fc.oneof(
      fc.constantFrom('', 'ok', 'all good here', 'Connection REFUSED by peer', 'x fail', 'FaTaL: disk', 'panicked', 'err or', 'ERRO', 'é error ü'),
      fc.array(fc.constantFrom('a', 'e', 'r', 'o', 'f', 'i', 'l', ' ', 'E', 'R', 'x', '\t', 'ß'), { maxLength: 60 }).map((cs) => cs.join('')),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 60 }), (lines) => {
        const region = Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8');
        expect(byKernel(region)).toEqual(byRegex(region));
      }),
      { numRuns: 500 },
    );
  });

  it('goes on past the hits one call of the kernel holds', () => {
    const count = WORD_LINES * 2 + 123;
    const region = Buffer.from(Array.from({ length: count }, (_, i) => (i % 3 === 2 ? 'fine\n' : i % 2 ? 'abort\n' : 'fail\n')).join(''));
    const got = byKernel(region);
    expect(got.lines).toBe(count);
    expect(got.hits.length).toBe(count - Math.floor(count / 3));
    expect(got).toEqual(byRegex(region));
  });
});
