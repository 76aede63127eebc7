// The library's way into stored results: open one by id ('last', or a result file's path), read its records as
// values, describe it again. The CLI's read/info print what these return; programs get the values themselves.
import { describe, type Descriptor } from '../describe/descriptor.js';
import { statsOfResult } from '../describe/stored.js';
import { getTokenizer } from '../tokens/tokenizer.js';
import { readRecords, type ResultFile } from '../format/reader.js';
import { displayBytes, invalidSet } from '../format/record-text.js';
import { storeHolding } from '../store/open.js';
import { damaged, resolveResult } from '../store/resolve.js';

/** Where the store is: `dir`, else `env.LRO_DIR`, else `${TMPDIR:-/tmp}/lro-<uid>` (env defaults to process.env). */
export interface StoreOptions {
  dir?: string;
  env?: NodeJS.ProcessEnv;
}

/** A result named by its id, 'last', or its file path; or one already opened. */
export type ResultRef = string | ResultFile;

/** Opens a stored result (reads and checks its header); throws LroError saying what to do when it cannot. */
export function openResult(ref: ResultRef, opts: StoreOptions = {}): ResultFile {
  if (typeof ref !== 'string') return ref;
  return resolveResult(ref, { dir: opts.dir, env: opts.env ?? process.env });
}


/** Which records to read: `from`..`to` (1-based, inclusive), or the first `head` / last `tail`. Default: all. */
export interface ReadResultOptions extends StoreOptions {
  from?: number;
  to?: number;
  head?: number;
  tail?: number;
}

/** One record: its number, its text as `lro read` shows it, and its value. */
export interface RecordValue {
  n: number;
  /** The original line (text), the stored JSON (json, jsonl), or base64 (binary). */
  text: string;
  /** The parsed JSON value for json/jsonl records (numbers beyond 2^53 lose digits: use `text`); else `text`. */
  value: unknown;
}

/** Reads records of a stored result into memory (pick a range for a big one). */
export function readResult(ref: ResultRef, opts: ReadResultOptions = {}): RecordValue[] {
  const rf = openResult(ref, opts);
  const h = rf.header;
  let from = opts.from ?? 1;
  let to = opts.to ?? Infinity;
  if (opts.head !== undefined) to = Math.min(to, from + opts.head - 1);
  if (opts.tail !== undefined) from = Math.max(from, Math.min(to, h.count) - opts.tail + 1);
  const invalid = invalidSet(h);
  const json = h.content_type === 'json' || h.content_type === 'jsonl';
  return damaged(rf, () => {
    const out: RecordValue[] = [];
    for (const r of readRecords(rf, Math.max(1, from), to)) {
      const text = displayBytes(h, r.n, r.line, invalid).toString('utf8');
      out.push({ n: r.n, text, value: json && !invalid?.has(r.n) ? JSON.parse(text) : text });
    }
    return out;
  });
}

/** Options of describeResult: `full` drops the size bound (as `lro info --full`). */
export interface DescribeResultOptions extends StoreOptions {
  full?: boolean;
  previewTokens?: number;
}

/** The descriptor of a stored result, as offload returned it (ids and paths current). */
export function describeResult(ref: ResultRef, opts: DescribeResultOptions = {}): Descriptor {
  const rf = openResult(ref, opts);
  const stats = damaged(rf, () => statsOfResult(rf));
  // an S3 store's result by its object's s3:// URL, not by the file of the cache it was read from
  return describe(rf.header, storeHolding(rf.path).shown(rf.path), stats, { full: !!opts.full, previewTokens: opts.previewTokens, tokenizer: getTokenizer(rf.header.encoding) });
}
