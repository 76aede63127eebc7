// Printing `lro grep ID PATTERN --strings`: the printable strings of a binary result that the search selected, as
// `N:@OFFSET text` (N the string's number, OFFSET the byte it starts at), or JSON objects with --json, within the
// output budget; a cut output ends with the exact command for the next part.
import { EXIT } from '../errors.js';
import type { ResultFile } from '../format/reader.js';
import { formatRange } from '../ranges.js';
import type { GrepPlan } from '../search/grep-plan.js';
import type { PrintableString } from '../search/strings.js';
import { formatCount } from '../units.js';
import type { IO } from '../io.js';
import { largerBudget, maxTokensFrom, OutputBudget, truncatedObject, type NextOf } from '../budget.js';
import { grepInput } from './grep-output.js';

/**
 * Prints the strings a search selected (`strings`: search/strings.ts selectedStrings, as found) within the budget,
 * or their count with -c; returns the exit code.
 */
export async function printStrings(
  rf: ResultFile,
  plan: GrepPlan,
  strings: Iterable<PrintableString>,
  io: Pick<IO, 'env' | 'run'>,
  write: (s: string) => Promise<void>,
  nextOf: NextOf,
): Promise<number> {
  const q = plan.query;
  const budget = new OutputBudget(maxTokensFrom(plan.options.maxTokens, io.env), rf.header.encoding, io.run);
  let matched = 0;
  for (const s of strings) {
    if (!q.countOnly) {
      const line = plan.options.json
        ? `${JSON.stringify({ type: 'match', string: s.n, offset: s.offset, length: s.length, text: s.text })}\n`
        : `${s.n}:@${s.offset} ${s.text}\n`;
      if (!budget.take(line)) {
        // not one string fitted: the next part asks for a larger budget (the same one would stop here again)
        const stuck = matched === 0;
        const what = stuck ? `the next string does not fit in --max-tokens ${budget.max}` : `output cut at --max-tokens ${budget.max} after ${formatCount(matched)} matching strings`;
        const input = { ...grepInput(plan, q.maxCount - matched), ...(stuck ? { maxTokens: String(largerBudget(budget.max)) } : {}) };
        const next = nextOf({ id: rf.header.id, pattern: plan.pattern, ...input, strings: true, records: formatRange(s.n, q.range.to) });
        await write(plan.options.json ? truncatedObject(what, next) : budget.continuation(what, next));
        return EXIT.ok;
      }
      await write(line);
    }
    matched++;
  }
  if (q.countOnly) await write(`${matched}\n`);
  return matched > 0 ? EXIT.ok : EXIT.noMatch;
}
