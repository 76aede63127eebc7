// The text of a record as people read it and as grep searches it: a text record is its original line; a
// JSON record (json, jsonl) is its JSON text; a jsonl line that was not JSON is its original line; a binary
// record is its base64. A text result with terminal noise (header `noise_bytes`) is read rendered, as a
// terminal shows it (format/terminal.ts), unless `asStored` asks for the line as it was written (grep --raw).
import { isAscii } from 'node:buffer';
import { StringDecoder } from 'node:string_decoder';
import { decodeJsonStringRecord, JsonStringBody } from './escape.js';
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

/**
 * The display text of a record too long to hold (stored bytes in pieces, from recordBytes), decoded piece by
 * piece: what displayBytes(...).toString('utf8') gives for a held one, until `need` characters have come; after
 * that only how many characters each piece holds (a number), counted at memory speed where a piece is ASCII, so a
 * window at the start of a record of gigabytes costs one read of it. Never rendered as a terminal shows it: a
 * long record's original is longer than MAX_RENDER_LINE, which is left as it is. A JSON record is not checked as
 * JSON here (that would take a parse of the whole record), only its text decoded.
 */
export function* displayPieces(h: Header, n: number, stored: Iterable<Buffer>, invalid?: Set<number>, need = Infinity): Generator<string | number> {
  const damaged = () => new FormatError(`record ${n} is not what a ${h.content_type} result holds`);
  let bytes: Iterable<Buffer> = stored;
  let quotes = 0;
  if (h.content_type === 'text' || (h.content_type === 'jsonl' && invalid?.has(n))) bytes = jsonStringPieces(stored);
  else if (h.content_type === 'binary') bytes = unquoted(stored, () => quotes++); // quoted base64
  const utf8 = new StringDecoder('utf8');
  let produced = 0;
  let clean = true; // the decoder holds no part of a character
  try {
    for (const b of bytes) {
      if (produced < need) {
        const text = utf8.write(b);
        produced += text.length;
        yield text;
      } else if (clean && isAscii(b)) yield b.length;
      else yield utf8.write(b).length;
      clean = b.length === 0 ? clean : b[b.length - 1] < 0x80;
    }
  } catch (e) {
    if (e instanceof FormatError) throw e;
    throw damaged();
  }
  if (h.content_type === 'binary' && quotes !== 2) throw damaged();
  yield utf8.end();
}

/** Pieces without the first and the last byte, each of which is reported to `quote` if it is a quote. */
function* unquoted(stored: Iterable<Buffer>, quote: () => void): Generator<Buffer> {
  let held: Buffer | null = null; // the last byte so far, held back
  let first = true;
  for (const piece of stored) {
    if (piece.length === 0) continue;
    if (first && piece[0] === 0x22) quote();
    const body = first ? piece.subarray(1) : piece;
    first = false;
    if (body.length === 0) continue;
    if (held) yield held;
    yield body.subarray(0, body.length - 1);
    held = Buffer.from(body.subarray(body.length - 1));
  }
  if (held?.[0] === 0x22) quote();
}

/**
 * The original bytes of a JSON string record arriving in pieces (its quotes included), a piece at a time: a
 * piece without escapes as it is (a view, valid until the next), others unescaped. Throws if it is not one.
 */
export function* jsonStringPieces(stored: Iterable<Buffer>): Generator<Buffer> {
  const body = new JsonStringBody();
  let carry: Buffer | null = null; // the last byte (maybe the closing quote), or an escape cut by a piece's end
  let first = true;
  for (const piece of stored) {
    if (piece.length === 0) continue;
    if (first && piece[0] !== 0x22) throw new Error('record is not a JSON string');
    let src = first ? piece.subarray(1) : piece;
    first = false;
    if (carry && carry[0] === 0x5c) src = Buffer.concat([carry, src]);
    else if (carry) yield carry;
    carry = null;
    if (src.length === 0) continue;
    if (src.indexOf(0x5c) < 0) {
      yield src.subarray(0, src.length - 1);
      carry = Buffer.from(src.subarray(src.length - 1));
      continue;
    }
    const out = Buffer.allocUnsafe(src.length);
    body.pos = 0;
    const stop = body.decode(src, 0, src.length - 1, out, false);
    carry = Buffer.from(src.subarray(stop));
    yield out.subarray(0, body.pos);
  }
  if (!carry || carry[carry.length - 1] !== 0x22) throw new Error('record is not a JSON string');
  const out = Buffer.allocUnsafe(carry.length);
  body.pos = 0;
  body.decode(carry, 0, carry.length - 1, out, true);
  yield out.subarray(0, body.pos);
}

/** A window of a record's text: characters start..end of its `total`; `complete` unless cut at `keep`. */
export interface TextWindow {
  text: string;
  start: number;
  end: number;
  total: number;
  complete: boolean;
}

/**
 * Characters [start, end) of a text that arrives in pieces, keeping at most `keep` of them; counts them all. A
 * number is a piece only counted (past start + keep).
 */
export function textWindow(pieces: Iterable<string | number>, start: number, end: number, keep = Infinity): TextWindow {
  const kept: string[] = [];
  const stop = Math.min(end, start + keep);
  let pos = 0;
  for (const piece of pieces) {
    if (typeof piece === 'number') {
      pos += piece; // characters only counted: past what is kept
      continue;
    }
    const from = Math.max(start, pos);
    const upto = Math.min(stop, pos + piece.length);
    if (upto > from) kept.push(piece.slice(from - pos, upto - pos));
    pos += piece.length;
  }
  const s = Math.min(start, pos);
  const e = Math.min(end, pos);
  const text = kept.join('');
  return { text, start: s, end: s + text.length, total: pos, complete: s + text.length === e };
}
