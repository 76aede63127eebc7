// --explain's lro jq command is a value (query/explain.ts explainCommand) whose line where and count write
// themselves, so their bundles need not load lro jq's declaration: the line must be the one commands/argv.ts makes
// from that declaration for the same input, and the input what lro jq's parser makes of the line.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { explainCommand } from '../../src/query/explain.js';
import { commandLine } from '../../src/commands/argv.js';
import { jqCommand } from '../../src/commands/jq.js';
import { inputOfWords } from '../../src/commands/commander.js';
import { shellWords } from '../helpers/pages.js';

/** --explain's order of words: the flags before the filter, as it has always printed them. */
const EXPLAIN_LAYOUT = ['id', '-s', '-c', 'filter', '--records', '--dir'];

const filter = fc.oneof(
  fc.constantFrom('select(.status? == "error")', "map(select(.a? == \"it's\")) | length", 'row | select(.PID? > 10)', '.'),
  fc.string({ minLength: 1, maxLength: 30 }).filter((s) => !s.startsWith('-') && !/[\\\n]/.test(s)),
);
const input = fc.record({
  id: fc.constantFrom('01JD2X3Y4Z5A6B7C8D9E0F1G2H', 'last'),
  filter,
  slurp: fc.boolean(),
  compact: fc.boolean(),
  records: fc.option(fc.constantFrom('2:', '10:40', ':5', '7'), { nil: undefined }),
  dir: fc.option(fc.constantFrom('/tmp/store', '/tmp/my store', "it's"), { nil: undefined }),
});

describe('--explain as a value', () => {
  it("writes the line lro jq's declaration makes of its input", () => {
    fc.assert(
      fc.property(input, (e) => {
        const next = explainCommand(e);
        expect(next.command).toBe('jq');
        expect(next.text).toBe(commandLine(jqCommand, next.input, EXPLAIN_LAYOUT));
      }),
      { numRuns: 300 },
    );
  });

  it("has the input lro jq's parser makes of the line", async () => {
    await fc.assert(
      fc.asyncProperty(input.filter((e) => !e.filter.includes("'") && !(e.dir ?? '').includes("'")), async (e) => {
        const next = explainCommand(e);
        const words = shellWords(next.text).slice(2);
        const parsed = await inputOfWords(jqCommand, words);
        expect(parsed).toMatchObject(next.input);
      }),
      { numRuns: 100 },
    );
  });
});
