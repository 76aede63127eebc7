// The text of a record as people read it and as grep searches it: a text record is its original line; a
// JSON record (json, jsonl) is its JSON text; a jsonl line that was not JSON is its original line; a binary
// record is its base64. A text result with terminal noise (header `noise_bytes`) is read rendered, as a
// terminal shows it (format/terminal.ts), unless `asStored` asks for the line as it was written (grep --raw).
import { decodeJsonStringRecord } from './escape.js';
import { FormatError, isNoisy, type Header } from './header.js';
import { compactJsonText, isJsonText } from './json-scan.js';
import { renderLineBytes } from './terminal.js';

/**
 * Record text for display: the original line (text; rendered when the result has terminal noise, unless
 * `asStored`), the stored JSON (json, jsonl), base64 (binary). Throws FormatError when a record that must be a
 * JSON string (text, and jsonl lines that were not JSON) is not one.
 */
export function displayBytes(h: Header, n: number, line: Buffer, invalid?: Set<number>, asStored = false): Buffer {
  if (h.content_type === 'text' || (h.content_type === 'jsonl' && invalid?.has(n))) {
    let original: Buffer;
    try {
      original = decodeJsonStringRecord(line);
    } catch {
      throw new FormatError(`record ${n} is not what a ${h.content_type} result holds`);
    }
    return !asStored && isNoisy(h) ? renderLineBytes(original) : original;
  }
  if (h.content_type === 'binary') return line.subarray(1, line.length - 1);
  return line;
}

const BASE64_RECORD = /^"[A-Za-z0-9+/]*={0,2}"$/;

/**
 * displayBytes for records shown as they are stored (lro read): JSON records must be JSON and binary records
 * quoted base64, else FormatError, so a damaged file is reported instead of shown as if it were intact.
 */
export function checkedDisplayBytes(h: Header, n: number, line: Buffer, invalid?: Set<number>, asStored = false): Buffer {
  const ok =
    h.content_type === 'binary'
      ? BASE64_RECORD.test(line.toString('latin1'))
      : h.content_type === 'json' || (h.content_type === 'jsonl' && !invalid?.has(n))
        ? isJsonText(line)
        : true;
  if (!ok) throw new FormatError(`record ${n} is not what a ${h.content_type} result holds`);
  return displayBytes(h, n, line, invalid, asStored);
}

/** Record text for matching: as displayBytes, but JSON records compact, so '"status":"error"' matches. */
export function searchBytes(h: Header, n: number, line: Buffer, invalid?: Set<number>, asStored = false): Buffer {
  const b = displayBytes(h, n, line, invalid, asStored);
  return h.content_type === 'jsonl' && !invalid?.has(n) ? compactJsonText(b) : b;
}

/** The records of h that are not JSON (jsonl lines kept as strings). */
export function invalidSet(h: Header): Set<number> | undefined {
  return h.invalid_records?.length ? new Set(h.invalid_records) : undefined;
}
