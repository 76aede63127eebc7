// One page of a long text that has no records to cut at (`lro info --full`'s descriptor): as much of it from a
// character offset as the output budget holds, cut after a line or a comma where one is near, then a line with the
// exact command for the rest. The pages, without their last lines, put back together are the text.
import type { Encoding } from '../tokens/tokenizer.js';
import { formatCount } from '../units.js';
import { largerBudget, OutputBudget, type Next } from '../budget.js';
import type { RunCapture } from '../io.js';

/** Tokens kept for the continuation line itself. */
const NEXT_LINE_TOKENS = 80;

/**
 * The page of `text` from character `from`: the whole rest when it fits `max` tokens (0: no limit), else a part
 * ending `[lro: printed characters A-B of N …; next: <next(B)>]`. A part cut inside a line gets a newline before
 * that last line (not part of the text: B says where the text stopped).
 */
export function textPage(
  text: string,
  from: number,
  max: number,
  encoding: Encoding,
  /** The command for the text from `at` on (with --max-tokens `maxTokens` when given). */
  next: (at: number, maxTokens?: number) => Next,
  run?: RunCapture,
): string {
  const rest = text.slice(from);
  const budget = new OutputBudget(max, encoding, run);
  if (budget.fits(rest)) return rest;
  const room = Math.max(1, max - NEXT_LINE_TOKENS);
  let fit = Math.max(1, budget.fitPrefix(rest, room));
  const breakAt = Math.max(rest.lastIndexOf('\n', fit - 1), rest.lastIndexOf(',', fit - 1)) + 1;
  if (breakAt > fit / 2) fit = breakAt; // a whole line or member, unless that leaves too little
  const part = rest.slice(0, fit);
  const end = from + fit;
  const what = `printed characters ${from}-${end} of ${formatCount(text.length)} (--max-tokens ${max})`;
  // a budget that holds little more than this line: the next part asks for a larger one (this one would take a
  // page for every few characters)
  const larger = max - NEXT_LINE_TOKENS < NEXT_LINE_TOKENS ? largerBudget(max) : undefined;
  return `${part}${part.endsWith('\n') ? '' : '\n'}${budget.continuation(what, next(end, larger))}`;
}
