// The library's diff: what `lro diff A B --json` prints, as values. Items come a page at a time (`from`,
// `limit`), since two large results can differ in millions of records; `next_from` says where the next page
// starts.
import type { ResultFile } from '../format/reader.js';
import { resolveResult } from '../store/resolve.js';
import { compareResults, itemCount, itemsAt, type CompareOptions } from './diff.js';
import type { Comparison, DiffItem, DiffSummary } from './model.js';

export interface DiffOptions extends CompareOptions {
  /** The store (default: `env.LRO_DIR`, else `${TMPDIR:-/tmp}/lro-<uid>`). */
  dir?: string;
  env?: NodeJS.ProcessEnv;
  /** The first item (0-based). */
  from?: number;
  /** Items returned at most (default 1000). */
  limit?: number;
}

export interface DiffOutput {
  summary: DiffSummary;
  items: DiffItem[];
  /** Where the next page of items starts, when there are more. */
  next_from?: number;
}

/** Opens two results by id ('last', 'last~1', a path) and compares them; throws LroError when one cannot be opened or read. */
export function openAndCompare(a: string | ResultFile, b: string | ResultFile, o: DiffOptions & { env: NodeJS.ProcessEnv }): {
  a: ResultFile;
  b: ResultFile;
  comparison: Comparison;
} {
  const open = (ref: string | ResultFile) => (typeof ref === 'string' ? resolveResult(ref, { dir: o.dir, env: o.env }) : ref);
  const ra = open(a);
  const rb = open(b);
  return { a: ra, b: rb, comparison: compareResults(ra, rb, o) };
}

/** What changed from result `a` to result `b`: the summary and a page of items (as `lro diff --json`). */
export function diff(a: string | ResultFile, b: string | ResultFile, o: DiffOptions = {}): DiffOutput {
  const { a: ra, b: rb, comparison } = openAndCompare(a, b, { ...o, env: o.env ?? process.env });
  const from = o.from ?? 0;
  const total = itemCount(comparison);
  const to = Math.min(total, from + (o.limit ?? 1000));
  const items = itemsAt(comparison, ra, rb, from, to).map((x) => x.item);
  return { summary: comparison.summary, items, ...(to < total ? { next_from: to } : {}) };
}
