// Printing what `lro where` found (its values, query/where.ts WhereMatch): the matching records numbered like
// `lro read` (`N: record`), or only the --fields of each, or their count (-c), within the output budget; a cut
// output ends with the exact next command.
import { EXIT } from '../errors.js';
import type { ResultFile } from '../format/reader.js';
import type { RecordDecoder } from '../query/records.js';
import { matchText, type WhereMatch, type WherePlan } from '../query/where.js';
import { formatRange } from '../ranges.js';
import { typeHint } from '../query/condition.js';
import { formatCount } from '../units.js';
import type { IO } from '../io.js';
import { maxTokensFrom, OutputBudget, type NextOf } from '../budget.js';

/**
 * The input of the command that continues a cut output from record `from`, `matched` matches later: the
 * conditions and the options that shape the output, --records last (WHERE_LAYOUT prints it so).
 */
export function whereNextInput(id: string, p: WherePlan, from: number, matched: number): Record<string, unknown> {
  const o = p.options;
  const q = p.query;
  return {
    id,
    condition: p.args,
    any: q.any || undefined,
    ignoreCase: o.ignoreCase || undefined,
    fields: o.fields,
    maxCount: q.maxCount !== Infinity ? String(q.maxCount - matched) : undefined,
    stream: o.stream,
    maxTokens: o.maxTokens,
    dir: o.dir || undefined,
    records: formatRange(from, q.range.to),
  };
}

/**
 * Prints the records a query found (`matches`, whereMatches' over `view`, taken one by one as they are found), within
 * the budget, then on stderr what the view passed over and, when nothing matched, why that may be. Returns the
 * exit code: 0 if a record matched, 1 if none did.
 */
export async function printWhere(
  rf: ResultFile,
  plan: WherePlan,
  matches: Iterable<WhereMatch>,
  view: RecordDecoder,
  io: Pick<IO, 'env' | 'run'>,
  write: (s: string) => Promise<void> | void,
  writeErr: (s: string) => Promise<void> | void,
  nexts: { nextOf: NextOf; readOf: NextOf },
): Promise<number> {
  const q = plan.query;
  const id = rf.header.id;
  const decoder = view;
  const budget = new OutputBudget(maxTokensFrom(plan.options.maxTokens, io.env), rf.header.encoding, io.run);
  let matched = 0;
  let cut = false;
  for (const m of matches) {
    if (q.countOnly) {
      matched++;
      continue;
    }
    const text = matchText(q, decoder, m);
    const line = `${m.n}: ${text}\n`;
    if (budget.take(line)) {
      await write(line);
      matched++;
      continue;
    }
    if (matched === 0) {
      // one record larger than the whole budget: a window of it, and how to read the rest
      const fit = budget.fitPrefix(text, Math.max(0, budget.left - 40));
      await write(`${m.n}:[0-${fit}/${text.length}] ${text.slice(0, fit)}\n`);
      matched++;
      // the rest as lro read shows it: the stored record's text (not --fields' object, nor a map's entry or a YAML
      // document, whose number is not a stored record's)
      const asStored = !q.fields && !decoder.map;
      const rest = asStored ? nexts.readOf({ id, records: String(m.n), columns: `${fit}:` }) : null;
      const what = `record ${m.n} has ${formatCount(text.length)} characters, more than --max-tokens ${budget.max} allows; the rest: ${rest ? rest.text : 'a larger --max-tokens'}`;
      await write(budget.continuation(what, nexts.nextOf(whereNextInput(id, plan, m.n + 1, matched)), rest ? [rest] : []));
    } else {
      await write(budget.continuation(`output cut at --max-tokens ${budget.max} after ${formatCount(matched)} matching records`, nexts.nextOf(whereNextInput(id, plan, m.n, matched))));
    }
    cut = true;
    break;
  }
  if (q.countOnly) await write(`${matched}\n`);
  const note = cut ? '' : decoder.skippedNote(q.range, nexts.readOf, io.run); // (made only when written)
  if (note) await writeErr(note);
  const hint = matched === 0 ? typeHint(q.conditions) : '';
  if (hint) await writeErr(`lro: no record matched: ${hint}\n`);
  return matched > 0 ? EXIT.ok : EXIT.noMatch;
}
