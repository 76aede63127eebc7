// Reading the two results for a diff: every record streamed once per pass (bounded memory: one chunk of the
// file and one record), and, for the items a page prints, the texts of just those records in one more pass.
import { moreRecordsThanHeader, fewerRecordsThanHeader } from '../format/format-error.js';
import { readRecords, recordChunks, type ResultFile } from '../format/reader.js';
import { displayBytes, invalidSet } from '../format/record-text.js';
import { parseRecord, type JsonValue } from '../values/json-value.js';
import { damaged } from '../store/resolve.js';

/** Whether a result's records are JSON values (json, jsonl). */
export function isJsonResult(rf: ResultFile): boolean {
  return rf.header.content_type === 'json' || rf.header.content_type === 'jsonl';
}

/**
 * Calls f with each record's number and display bytes (a text line; a record's JSON; a jsonl line that was not
 * JSON as it was), and whether it is a JSON value. The bytes are valid only during the call: the file is read
 * into one buffer used again and again (a fresh one per chunk is garbage the collector frees late, and the
 * process grows by it). The records are counted against the header, as readRecords does.
 */
export function eachRecord(rf: ResultFile, f: (n: number, bytes: Buffer, json: boolean) => void): void {
  const h = rf.header;
  const invalid = invalidSet(h);
  const json = isJsonResult(rf);
  damaged(rf, () => {
    let n = 0;
    for (const chunk of recordChunks(rf, true)) {
      let start = 0;
      for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, start)) {
        if (++n > h.count) throw moreRecordsThanHeader(h.count);
        f(n, displayBytes(h, n, chunk.subarray(start, nl), invalid), json && !invalid?.has(n));
        start = nl + 1;
      }
    }
    if (n < h.count) throw fewerRecordsThanHeader(h.count, n);
  });
}

/** The first `count` records parsed as JSON (those that are not JSON left out). */
export function sampleValues(rf: ResultFile, count: number): JsonValue[] {
  const out: JsonValue[] = [];
  if (!isJsonResult(rf)) return out;
  const invalid = invalidSet(rf.header);
  return damaged(rf, () => {
    for (const r of readRecords(rf, 1, count)) {
      if (invalid?.has(r.n)) continue;
      try {
        out.push(parseRecord(r.line.toString('utf8')));
      } catch {
        // a damaged record: it is reported when the whole result is read
      }
    }
    return out;
  });
}

/** Characters of a record's text kept for an item (a record of megabytes is shown by its start). */
const KEEP_CHARS = 1 << 20;

/** The display texts of the records numbered `wanted`, read in one pass that stops after the last of them. */
export function fetchTexts(rf: ResultFile, wanted: Iterable<number>): Map<number, string> {
  const want = new Set(wanted);
  const out = new Map<number, string>();
  if (want.size === 0) return out;
  let first = Infinity;
  let last = 0;
  for (const n of want) {
    first = Math.min(first, n);
    last = Math.max(last, n);
  }
  const h = rf.header;
  const invalid = invalidSet(h);
  return damaged(rf, () => {
    for (const r of readRecords(rf, first, last)) {
      if (!want.has(r.n)) continue;
      const bytes = displayBytes(h, r.n, r.line, invalid);
      out.set(r.n, bytes.subarray(0, KEEP_CHARS * 3).toString('utf8').slice(0, KEEP_CHARS));
    }
    return out;
  });
}

/** One record's display bytes, whole (a long line too). */
function recordBytes(rf: ResultFile, n: number): Buffer | null {
  const invalid = invalidSet(rf.header);
  return damaged(rf, () => {
    for (const r of readRecords(rf, n, n)) if (r.n === n) return displayBytes(rf.header, n, r.line, invalid);
    return null;
  });
}

/** Where two long lines first differ, and a window of each from a little before it (byte offsets). */
export interface Difference {
  start: number;
  a: { text: string; end: number; length: number };
  b: { text: string; end: number; length: number };
}

/** The window of `bytes` from `start` (moved back to a character's first byte), `size` bytes long at most. */
function windowOf(bytes: Buffer, start: number, size: number): { text: string; end: number; length: number } {
  const end = Math.min(bytes.length, start + size);
  return { text: bytes.subarray(start, end).toString('utf8'), end, length: bytes.length };
}

/**
 * Where record `na` of A and record `nb` of B (long lines: their texts are kept only to KEEP_CHARS) first differ,
 * compared whole, byte for byte; null when they do not, or cannot be read.
 */
export function firstDifference(a: ResultFile, na: number, b: ResultFile, nb: number, before: number, size: number): Difference | null {
  const x = recordBytes(a, na);
  const y = recordBytes(b, nb);
  if (!x || !y) return null;
  const n = Math.min(x.length, y.length);
  let d = 0;
  for (const step of [1 << 16, 1 << 10, 1]) while (d + step <= n && x.subarray(d, d + step).equals(y.subarray(d, d + step))) d += step;
  if (d === n && x.length === y.length) return null;
  let start = Math.max(0, d - before);
  while (start > 0 && (x[start] & 0xc0) === 0x80) start--; // not inside a character
  return { start, a: windowOf(x, start, size), b: windowOf(y, start, size) };
}
