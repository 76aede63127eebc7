// What a kind detector answers: which kind of output this is, the facts that describe it, whether its error
// lines are errors, and the next commands and jq recipes built from its real fields. A detector that is not
// sure answers null: a wrong kind is worse than none ("text").
import type { Words } from '../commands.js';

/** One recipe: a jq filter over the stored records (text: each record is one line as a JSON string). */
export interface KindRecipe {
  description: string;
  flags: string[];
  filter: string;
}

export interface KindFacts {
  /** paths, listing, table, csv, tsv, diff, git-log, test-run, diagnostics, sql-dump, html, minified, env, syscalls,
   * stat, http-trace, yaml, deb822, log, json-map, json-tree… */
  kind: string;
  /** Facts of this kind (plain JSON, bounded: the descriptor shows them as they are). */
  facts: Record<string, unknown>;
  /**
   * What the descriptor says of error lines: 'words' (lines with an error word, as for any text), 'none' (this
   * kind has no error lines: a path or a row holding "error" is not one), 'own' (the kind's own: `errorLines`).
   */
  errors: 'words' | 'none' | 'own';
  errorLines?: { line: number; text: string }[];
  errorCount?: number;
  /** Whether log levels mean something here (they do not in a listing). */
  levels?: boolean;
  /**
   * lro commands worth running next, as their words (`ID` where the result's id goes). Kept in the header's stats
   * under this name: an older lro kept them as lines under `next`, and reads a result without one as having none.
   */
  nextCommands?: Words[];
  recipes?: KindRecipe[];
}

/** Characters of a line the kind detectors and counters see (as many bytes as a long line keeps for display). */
export const KIND_LINE_CHARS = 2048;

/** The lines a text detector sees: the first lines of the input (all of them when `complete`). */
export interface TextSample {
  lines: string[];
  /** Line number of lines[0] (1). */
  total: number;
  complete: boolean;
}

/**
 * A kind's facts counted over the whole output: a detector sure of the kind from the sample returns one of these,
 * already fed the sample's lines; the analyzer feeds it every later line as it passes, and asks for the facts at
 * the end. It keeps bounded memory (counts past a cap are estimates and say so: see util.ts TopCounts).
 */
export interface KindCounter {
  /** One line after the sample (cleaned as the sample's are: no ANSI, no final CR, its first 1,024 characters). */
  line(text: string, n: number): void;
  /** The facts over every line fed; `total` lines in all. Null when the whole turned out not to be this kind. */
  end(total: number): KindFacts | null;
}

/** A detector whose facts are of the whole output: null when it is not sure of its kind from the sample. */
export type CountingDetector = (s: TextSample) => KindCounter | null;

/** Feeds the sample's lines (numbered from 1) to a counter and returns it. */
export function fed<C extends KindCounter>(c: C, s: TextSample): C {
  s.lines.forEach((l, i) => c.line(l, i + 1));
  return c;
}
