// What `lro grep` was asked, as a search: its options (as on the command line, also sent to a worker), parsed
// and checked into a GrepQuery for search/grep.ts. Usage errors surface here, before anything runs.
import { UsageError } from '../errors.js';
import { parseRange, type Range } from '../ranges.js';
import { formatCount, parseCount } from '../units.js';
import type { GrepQuery } from './grep-types.js';
import { compilePattern } from './pattern.js';

export interface GrepOptions {
  dir?: string;
  fixedStrings?: boolean;
  ignoreCase?: boolean;
  wordRegexp?: boolean;
  invertMatch?: boolean;
  count?: boolean;
  maxCount?: string;
  afterContext?: string;
  beforeContext?: string;
  context?: string;
  records?: string;
  json?: boolean;
  maxTokens?: string;
  timeout?: string;
  /** Search text as stored: terminal escapes and redraws included (a result with terminal noise is else rendered). */
  raw?: boolean;
  /** Only the records of this stream of an `lro run` result (see commands/stream-option.ts). */
  stream?: string;
  /** Search the printable strings of a binary result (render/grep-strings.ts). */
  strings?: boolean;
  /** Say which engine runs the pattern and why, instead of searching. */
  explain?: boolean;
}

export interface GrepPlan {
  query: GrepQuery;
  pattern: string;
  options: GrepOptions;
  /** The stream of each record, for --json, when the result knows it. */
  streamOf?: (n: number) => string;
}

/** Parses the options into a search (throws UsageError on bad ones). */
export function planGrep(pattern: string, o: GrepOptions, count: number): GrepPlan {
  const num = (v: string | undefined, name: string) => (v === undefined ? undefined : parseCount(v, name));
  const context = num(o.context, '-C') ?? 0;
  const matcher = compilePattern(pattern, { fixed: !!o.fixedStrings, ignoreCase: !!o.ignoreCase, word: !!o.wordRegexp });
  const range: Range = o.records !== undefined ? parseRange(o.records, '--records') : { from: 1, to: Infinity };
  if (o.records !== undefined && range.from > count && count > 0) {
    throw new UsageError(`--records ${o.records} is past the end: the result has ${formatCount(count)} records`);
  }
  const maxCount = num(o.maxCount, '-m') ?? Infinity;
  return {
    pattern,
    options: o,
    query: {
      matcher,
      invert: !!o.invertMatch,
      range,
      before: num(o.beforeContext, '-B') ?? context,
      after: num(o.afterContext, '-A') ?? context,
      maxCount: maxCount === 0 ? 0 : maxCount,
      countOnly: !!o.count,
      asStored: !!o.raw,
      word: !!o.wordRegexp,
    },
  };
}
