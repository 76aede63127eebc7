// The types a search is asked with and answers in, shared by the two ways through a result (grep.ts, the general
// way, and grep-lines.ts, the fast one) and by the query's parser (grep-plan.ts); below all three, so none of
// them imports another for its types.
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
