// Printing `lro grep ID PATTERN --strings`: the printable strings of a binary result that the pattern selects, as
// `N:@OFFSET text` (N the string's number, OFFSET the byte it starts at), or JSON objects with --json, within the
// output budget; a cut output ends with the exact command for the next part.
import { EXIT, UsageError } from '../errors.js';
import type { ResultFile } from '../format/reader.js';
import { formatRange } from '../ranges.js';
import type { GrepPlan } from '../search/grep-plan.js';
import { printableStrings } from '../search/strings.js';
import { formatCount } from '../units.js';
import type { IO } from '../io.js';
import { maxTokensFrom, OutputBudget, truncatedObject, type NextOf } from '../budget.js';
import { grepInput } from './grep-output.js';

/** Searches the printable strings of rf and prints those selected; returns the exit code. */
export async function printStrings(rf: ResultFile, plan: GrepPlan, io: Pick<IO, 'env' | 'run'>, write: (s: string) => Promise<void>, nextOf: NextOf): Promise<number> {
  const q = plan.query;
  if (q.before > 0 || q.after > 0) throw new UsageError('context (-A, -B, -C) does not go with --strings: each string stands alone');
  if (rf.header.content_type !== 'binary') {
    throw new UsageError(`--strings searches a binary result, and ${rf.header.id} is ${rf.header.content_type}: drop --strings`);
  }
  const budget = new OutputBudget(maxTokensFrom(plan.options.maxTokens, io.env), rf.header.encoding, io.run);
  const re = q.matcher.regex;
  let matched = 0;
  for (const s of printableStrings(rf)) {
    if (s.n < q.range.from) continue;
    if (s.n > q.range.to || matched >= q.maxCount) break;
    re.lastIndex = 0;
    if (re.test(s.text) === q.invert) continue;
    if (!q.countOnly) {
      const line = plan.options.json
        ? `${JSON.stringify({ type: 'match', string: s.n, offset: s.offset, length: s.length, text: s.text })}\n`
        : `${s.n}:@${s.offset} ${s.text}\n`;
      if (!budget.take(line)) {
        const what = `output cut at --max-tokens ${budget.max} after ${formatCount(matched)} matching strings`;
        const next = nextOf({ id: rf.header.id, pattern: plan.pattern, ...grepInput(plan, q.maxCount - matched), strings: true, records: formatRange(s.n, q.range.to) });
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
