// The types a search is asked with and answers in, shared by the ways through a result (grep.ts, the general way;
// grep-lines.ts, the literal scan; grep-dfa.ts, lro's DFA without a literal) and by the query's parser
// (grep-plan.ts); below them all, so none of them imports another for its types.
import type { Range } from '../ranges.js';
import type { Matcher } from './pattern.js';

export interface GrepQuery {
  matcher: Matcher;
  invert: boolean;
  range: Range;
  before: number;
  after: number;
  /** Stop after this many selected records (-m). */
  maxCount: number;
  /** Only count: no text, no context. */
  countOnly: boolean;
  /** -w: whole words (the matcher's regex says so too; the kernel needs to know). */
  word: boolean;
  /** Search text records as stored (grep --raw), not rendered as a terminal shows them. */
  asStored?: boolean;
  /** Only these records may be selected (grep --stream); the others can still be context. */
  only?: (n: number) => boolean;
}

/** How each way through a result gets a record's text and tests it: made once by grep.ts for a search. */
export interface RecordTest {
  /** A record's text for matching (throws FormatError for a damaged record). */
  textOf: (n: number, line: Buffer) => string;
  /** Whether a text matches the pattern (ignoring -v). */
  matches: (text: string, n: number) => boolean;
}

/**
 * A line to print: a selected record (`match`), a context record, or a gap between groups (`--`); or, from the
 * fast path, `printed` lines already rendered as `N:text\n` bytes (valid until the search goes on) and
 * `counted` selections that were only counted.
 */
export type GrepEvent =
  | { kind: 'match'; n: number; text: string }
  | { kind: 'context'; n: number; text: string }
  | { kind: 'gap' }
  | { kind: 'printed'; bytes: Buffer; matches: number }
  | { kind: 'counted'; matches: number }
  | { kind: 'progress' };
