// Bytes <-> JSON string bodies, losslessly. Valid UTF-8 is kept as is (only `"`, `\` and control characters
// are escaped, as JSON.stringify does). A byte that is not part of valid UTF-8 becomes the lone surrogate
// U+DC80..U+DCFF ("surrogateescape", as Python does), written as the escape \udcXX. Valid UTF-8 never decodes to
// a lone surrogate, so decoding is unambiguous and `lro cat` gives back the exact bytes.
import { isUtf8 } from 'node:buffer';

const HEX = '0123456789abcdef';
const SHORT: Record<number, number> = { 0x08: 0x62, 0x09: 0x74, 0x0a: 0x6e, 0x0c: 0x66, 0x0d: 0x72 };

/** Whether a byte must be escaped inside a JSON string. */
export function mustEscape(c: number): boolean {
  return c < 0x20 || c === 0x22 || c === 0x5c;
}

/**
 * Writes the JSON string body (no quotes) for src[start, end) into out at pos; returns the new pos.
 * out must have room for 6 bytes per input byte. src[start, end) must be valid UTF-8.
 */
export function escapeUtf8Into(src: Uint8Array, start: number, end: number, out: Uint8Array, pos: number): number {
  for (let i = start; i < end; i++) {
    const c = src[i];
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c) {
      out[pos++] = c;
    } else if (c === 0x22 || c === 0x5c) {
      out[pos++] = 0x5c;
      out[pos++] = c;
    } else {
      const short = SHORT[c];
      out[pos++] = 0x5c;
      if (short) out[pos++] = short;
      else {
        out[pos++] = 0x75;
        out[pos++] = 0x30;
        out[pos++] = 0x30;
        out[pos++] = HEX.charCodeAt(c >> 4);
        out[pos++] = HEX.charCodeAt(c & 15);
      }
    }
  }
  return pos;
}

/** Length of the valid UTF-8 sequence starting at src[i] (1-4), or 0 if the byte there starts none. */
export function utf8SequenceLength(src: Uint8Array, i: number, end: number): number {
  const c = src[i];
  if (c < 0x80) return 1;
  let need: number;
  let min: number;
  if (c >= 0xc2 && c <= 0xdf) {
    need = 1;
    min = 0x80;
  } else if (c >= 0xe0 && c <= 0xef) {
    need = 2;
    min = 0x800;
  } else if (c >= 0xf0 && c <= 0xf4) {
    need = 3;
    min = 0x10000;
  } else return 0;
  if (i + need >= end) return 0;
  let cp = c & (need === 1 ? 0x1f : need === 2 ? 0x0f : 0x07);
  for (let k = 1; k <= need; k++) {
    const d = src[i + k];
    if ((d & 0xc0) !== 0x80) return 0;
    cp = (cp << 6) | (d & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return need + 1;
}

/** Decodes bytes that may be invalid UTF-8 into a string where each invalid byte b is the lone surrogate U+DC00+b. */
export function decodeSurrogateEscape(src: Uint8Array, start = 0, end = src.length): string {
  let out = '';
  let runStart = start;
  let i = start;
  while (i < end) {
    const len = utf8SequenceLength(src, i, end);
    if (len > 0) {
      i += len;
      continue;
    }
    if (i > runStart) out += Buffer.from(src.buffer, src.byteOffset + runStart, i - runStart).toString('utf8');
    out += String.fromCharCode(0xdc00 + src[i]);
    i++;
    runStart = i;
  }
  if (end > runStart) out += Buffer.from(src.buffer, src.byteOffset + runStart, end - runStart).toString('utf8');
  return out;
}

/** The JSON string literal (with quotes) holding src[start, end), whatever bytes they are. */
export function jsonStringOfBytes(src: Uint8Array, start = 0, end = src.length): Buffer {
  const view = src.subarray(start, end);
  if (isUtf8(view)) {
    const out = Buffer.allocUnsafe(view.length * 6 + 2);
    out[0] = 0x22;
    let p = escapeUtf8Into(view, 0, view.length, out, 1);
    out[p++] = 0x22;
    return out.subarray(0, p);
  }
  return Buffer.from(JSON.stringify(decodeSurrogateEscape(view)), 'utf8');
}

/** Encodes a decoded record string back to the original bytes: UTF-8, with lone U+DC80..U+DCFF as raw bytes. */
export function encodeSurrogateEscape(s: string): Buffer {
  let hasLone = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) {
      if (c <= 0xdbff && i + 1 < s.length) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          i++;
          continue;
        }
      }
      hasLone = true;
      break;
    }
  }
  if (!hasLone) return Buffer.from(s, 'utf8');
  const parts: Buffer[] = [];
  let runStart = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
    }
    if (c >= 0xdc80 && c <= 0xdcff) {
      parts.push(Buffer.from(s.slice(runStart, i), 'utf8'), Buffer.from([c - 0xdc00]));
      runStart = i + 1;
    }
    // any other lone surrogate cannot come from lro's own records; Buffer.from writes U+FFFD for it
  }
  parts.push(Buffer.from(s.slice(runStart), 'utf8'));
  return Buffer.concat(parts);
}

/** Decodes one JSON string record (with its quotes) to the original bytes (may share memory with line). */
export function decodeJsonStringRecord(line: Uint8Array): Buffer {
  const b = Buffer.from(line.buffer, line.byteOffset, line.length);
  if (b.length >= 2 && b[0] === 0x22 && b[b.length - 1] === 0x22 && b.indexOf(0x5c) === -1) {
    return b.subarray(1, b.length - 1);
  }
  const value: unknown = JSON.parse(b.toString('utf8'));
  if (typeof value !== 'string') throw new Error('record is not a JSON string');
  return encodeSurrogateEscape(value);
}
