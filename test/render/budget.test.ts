// The budget's hand-over to an MCP tool call: the lines a run added (continuations, notes), as data, and its limit in bytes, held
// by the run's IO (IO.run), never by a context of the process.
import { describe, expect, it } from 'vitest';
import { giveValue, OutputBudget, type Next } from '../../src/budget.js';
import type { RunCapture } from '../../src/io.js';

/** A next command (its input left out: the hand-over carries it as it is). */
const read = (text: string): Next => ({ command: 'read', input: {}, text });
const capture = (maxBytes = Infinity): RunCapture => ({ lines: [], values: [], maxBytes });

describe("a run's capture (IO.run)", () => {
  it('gets the continuations and values of its own run only, even with runs interleaved', async () => {
    new OutputBudget(100).continuation('outside', read('lro read A')); // no capture: nobody takes it
    giveValue({}, 'outside');
    const tick = () => new Promise((r) => setTimeout(r, 1));
    const run = async (name: string) => {
      const io = { run: capture() };
      await tick();
      new OutputBudget(100, undefined, io.run).continuation(`cut ${name}`, read(`lro read ${name} --records 5:`));
      giveValue(io, { name });
      await tick();
      return io.run;
    };
    const [a, b] = await Promise.all([run('X'), run('Y')]);
    expect(a).toEqual({ lines: [{ what: 'cut X', mentions: [], next: read('lro read X --records 5:'), line: '[lro: cut X; next: lro read X --records 5:]\n' }], values: [{ name: 'X' }], maxBytes: Infinity });
    expect(b.lines.map((c) => c.next?.text)).toEqual(['lro read Y --records 5:']);
    expect(b.values).toEqual([{ name: 'Y' }]);
  });

  it("keeps every budget of the run within its bytes, whatever its tokens; without a capture only tokens count", () => {
    const line = `${' '.repeat(99)}\n`; // 100 bytes, one token or so
    const b = new OutputBudget(50_000, undefined, capture(1000));
    let taken = 0;
    while (taken < 100 && b.take(line)) taken++;
    expect({ taken, fits: b.fits(line), prefix: b.fitPrefix('é'.repeat(1000), 10_000) }).toEqual({ taken: 10, fits: false, prefix: 0 });
    const free = new OutputBudget(50_000);
    expect(Array.from({ length: 20 }, () => free.take(line)).every(Boolean)).toBe(true);
  });
});

describe('OutputBudget', () => {
  const tokenizerLoaded = (b: OutputBudget) => (b as unknown as { tokenizer: unknown }).tokenizer !== null;

  it('counts no token while the lines taken fit in the budget by their bytes, then by a bound of their tokens', () => {
    // 20 ASCII lines of 95 bytes, 1,900 bytes: under 2,000 tokens whatever they are, so the tokenizer (its 4 MB
    // rank table read from disk) is not loaded
    const b = new OutputBudget(2000);
    const line = `${'word '.repeat(18)}1234\n`;
    for (let i = 0; i < 20; i++) expect(b.take(line)).toBe(true);
    expect(tokenizerLoaded(b)).toBe(false);
    // past the bytes, an upper bound of the tokens (tokens/token-bound.ts; a text outside ASCII: its bytes) still
    // tells: 20 lines of about 20 tokens each, and 400 bytes
    expect(b.take('é'.repeat(200))).toBe(true);
    expect(tokenizerLoaded(b)).toBe(false);
    // past the bound, what was taken is counted, and the count is the tokenizer's
    expect(b.take('é'.repeat(800))).toBe(true);
    expect(tokenizerLoaded(b)).toBe(true);
    expect(b.used).toBe(b.cost(line) * 20 + b.cost('é'.repeat(200)) + b.cost('é'.repeat(800)));
  });
});
