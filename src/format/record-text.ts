// The text of a record as people read it and as grep searches it: a text record is its original line; a
// JSON record (json, jsonl) is its JSON text; a jsonl line that was not JSON is its original line; a binary
// record is its base64.
import { decodeJsonStringRecord } from './escape.js';
import type { Header } from './header.js';
import { compactJsonText } from './json-scan.js';

/** Record text for display: the original line (text), the stored JSON (json, jsonl), base64 (binary). */
export function displayBytes(h: Header, n: number, line: Buffer, invalid?: Set<number>): Buffer {
  if (h.content_type === 'text' || (h.content_type === 'jsonl' && invalid?.has(n))) return decodeJsonStringRecord(line);
  if (h.content_type === 'binary') return line.subarray(1, line.length - 1);
  return line;
}

/** Record text for matching: as displayBytes, but JSON records compact, so '"status":"error"' matches. */
export function searchBytes(h: Header, n: number, line: Buffer, invalid?: Set<number>): Buffer {
  const b = displayBytes(h, n, line, invalid);
  return h.content_type === 'jsonl' && !invalid?.has(n) ? compactJsonText(b) : b;
}

/** The records of h that are not JSON (jsonl lines kept as strings). */
export function invalidSet(h: Header): Set<number> | undefined {
  return h.invalid_records?.length ? new Set(h.invalid_records) : undefined;
}
