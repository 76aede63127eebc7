// lro's regex engine (dfa.ts) as a finder of the records to print or count (search/grep.ts): the DFA walks a
// chunk of stored text records and stops at the first that matches (settled: its text matches, proved without
// the JavaScript regex) or that it leaves to JavaScript (a record with an escape: the regex decides it). Which
// patterns it takes, and why not the others, is `dfaFor` (also what `lro grep --explain` says).
import { LazyDfa } from './dfa.js';
import type { LineFinder } from './chunk-regex.js';
import { Unsupported, compileNfa, parseUnicode } from './nfa.js';
import type { Matcher } from './pattern.js';

/**
 * The DFA for a matcher, or why the pattern is left to the JavaScript regex. Word boundaries (\b, \B, -w) are
 * not in the engine: such a pattern's DFA matches as if they held everywhere, a superset (dfa.exact false): a
 * record it does not match is ruled out, the others are candidates for the regex.
 */
export function dfaFor(m: Matcher): { dfa: LazyDfa } | { why: string } {
  if (!m.unicode) return { why: 'it is valid only without the u flag (legacy syntax)' };
  const tree = parseUnicode(m.source);
  if (!tree) return { why: 'it does not parse' };
  try {
    const nfa = compileNfa(tree, m.ignoreCase, true);
    if (m.word) nfa.exact = false; // (the source is the pattern before -w wraps it)
    return { dfa: new LazyDfa(nfa) };
  } catch (e) {
    if (e instanceof Unsupported) return { why: e.message };
    throw e;
  }
}

/**
 * Finds the records of a chunk that match or need the regex: the chunk's bytes are copied into the engine's
 * memory once (a copy runs at memory speed, the walk a byte at a time), then walked from record to record.
 */
export class DfaFinder implements LineFinder {
  private base = -1;
  private baseEnd = -1;
  /** The last find(): from where, and what it found (Infinity: nothing up to baseEnd). */
  private from = -1;
  private hit = -1;
  private matched = false;
  /** Chunks walked (the search reports progress when it grows). */
  windows = 0;

  constructor(readonly dfa: LazyDfa) {}

  reset(): void {
    // (and what the last find() found: a record of the next chunk read without a find, after-context, is not
    // settled by where a match was in the last one)
    this.base = -1;
    this.from = -1;
    this.hit = -1;
    this.matched = false;
  }

  find(view: Buffer, start: number, end: number): number {
    if (start >= end) return -1;
    if (this.base < 0 || start < this.base || end !== this.baseEnd) {
      this.dfa.reserve(end - start);
      this.dfa.memory.set(view.subarray(start, end), this.dfa.dataAt);
      this.base = start;
      this.baseEnd = end;
      this.from = -1;
      this.windows++;
    }
    if (this.from >= 0 && start >= this.from && start <= this.hit) return this.hit === Infinity ? -1 : this.hit;
    const at = this.dfa.dataAt - this.base;
    const h = this.dfa.walk(start + at, end + at);
    this.from = start;
    this.hit = h < 0 ? Infinity : h - at;
    this.matched = h >= 0 && this.dfa.matched;
    return h < 0 ? -1 : this.hit;
  }

  /** The record [ls, le) where the last find() stopped matches, proved by the DFA on its exact text. */
  settles(view: Buffer, ls: number, le: number): boolean {
    return this.matched && this.dfa.exact && this.hit >= ls && this.hit < le && le - ls >= 2 && view[ls] === 0x22 && view[le - 1] === 0x22;
  }
}
