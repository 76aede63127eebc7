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
  if (b.length < 2 || b[0] !== 0x22 || b[b.length - 1] !== 0x22) throw new Error('record is not a JSON string');
  if (b.indexOf(0x5c) === -1) return b.subarray(1, b.length - 1);
  const out = Buffer.allocUnsafe(b.length - 2);
  const body = new JsonStringBody();
  body.decode(b, 1, b.length - 1, out, true);
  return out.subarray(0, body.pos);
}

/** The byte a one-letter escape (`\n`, `\"`, …) stands for, by its letter; 0 for none. */
const UNESCAPE = new Uint8Array(128);
for (const [k, v] of [[0x22, 0x22], [0x5c, 0x5c], [0x2f, 0x2f], [0x62, 0x08], [0x66, 0x0c], [0x6e, 0x0a], [0x72, 0x0d], [0x74, 0x09]]) UNESCAPE[k] = v;

/** The value of 4 hex digits at src[i], or -1. */
function hex4(src: Uint8Array, i: number): number {
  let v = 0;
  for (let k = i; k < i + 4; k++) {
    const c = src[k];
    const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
    if (d < 0) return -1;
    v = (v << 4) | d;
  }
  return v;
}

/** Writes code point cp as UTF-8 into out at pos; returns the new pos. */
function putUtf8(out: Uint8Array, pos: number, cp: number): number {
  if (cp < 0x80) out[pos++] = cp;
  else if (cp < 0x800) {
    out[pos++] = 0xc0 | (cp >> 6);
    out[pos++] = 0x80 | (cp & 63);
  } else if (cp < 0x10000) {
    out[pos++] = 0xe0 | (cp >> 12);
    out[pos++] = 0x80 | ((cp >> 6) & 63);
    out[pos++] = 0x80 | (cp & 63);
  } else {
    out[pos++] = 0xf0 | (cp >> 18);
    out[pos++] = 0x80 | ((cp >> 12) & 63);
    out[pos++] = 0x80 | ((cp >> 6) & 63);
    out[pos++] = 0x80 | (cp & 63);
  }
  return pos;
}

/**
 * The bytes of a JSON string body, unescaped without building a string: what decodeJsonStringRecord gives for
 * the whole record, also for a body that arrives in pieces (a record too long to hold). `\uXXXX` pairs become UTF-8, a lone U+DC80..U+DCFF the raw byte it stands for
 * (escape.ts's surrogateescape) and any other lone surrogate U+FFFD, as encodeSurrogateEscape does. The output
 * is never longer than the input. Throws on what is not a JSON string body: a raw `"`, a bad escape (control
 * bytes are not looked for, as decodeJsonStringRecord's copy of a record without escapes does not).
 */
export class JsonStringBody {
  /** Where the next output byte goes (set by the caller before decode). */
  pos = 0;

  /**
   * Unescapes src[start, end) into out from this.pos. Unless `final`, stops before an escape that `end` cuts
   * (up to 11 bytes); returns where it stopped, for the caller to carry over.
   */
  decode(src: Uint8Array, start: number, end: number, out: Uint8Array, final: boolean): number {
    // a byte loop: in escape-dense text (JSON logged as text: a \" every few bytes) it outruns indexOf calls
    let i = start;
    let p = this.pos;
    while (i < end) {
      const c = src[i];
      if (c !== 0x5c) {
        if (c === 0x22) throw new Error('a JSON string body holds a raw quote');
        out[p++] = c;
        i++;
        continue;
      }
      const one = i + 1 < end ? UNESCAPE[src[i + 1] & 127] : 0;
      if (one !== 0 && src[i + 1] < 128) {
        out[p++] = one;
        i += 2;
        continue;
      }
      const used = this.escape(src, i, end, out, p, final);
      if (used === 0) break; // cut by end: the caller carries src[i, end) over
      p = this.written;
      i += used;
    }
    this.pos = p;
    return i;
  }

  private written = 0;

  /** One escape at src[i] (a backslash): bytes consumed (0 when cut short), output end in this.written. */
  private escape(b: Uint8Array, i: number, end: number, out: Uint8Array, p: number, final: boolean): number {
    if (i + 1 >= end) return cut(final);
    const c = b[i + 1];
    if (c !== 0x75) throw new Error('not a JSON escape'); // the one-letter ones are decode's
    if (i + 6 > end) return cut(final);
    const u = hex4(b, i + 2);
    if (u < 0) throw new Error('not a JSON escape');
    if (u >= 0xd800 && u <= 0xdbff) {
      // a high surrogate: a pair with a \uDC00..\uDFFF right after it, else lone
      if (i + 12 > end && !final && (i + 6 >= end || b[i + 6] === 0x5c)) return cut(final);
      const low = i + 12 <= end && b[i + 6] === 0x5c && b[i + 7] === 0x75 ? hex4(b, i + 8) : -1;
      if (low >= 0xdc00 && low <= 0xdfff) {
        this.written = putUtf8(out, p, 0x10000 + ((u - 0xd800) << 10) + (low - 0xdc00));
        return 12;
      }
      this.written = putUtf8(out, p, 0xfffd);
      return 6;
    }
    if (u >= 0xdc80 && u <= 0xdcff) {
      out[p] = u - 0xdc00;
      this.written = p + 1;
      return 6;
    }
    this.written = putUtf8(out, p, u >= 0xdc00 && u <= 0xdfff ? 0xfffd : u);
    return 6;
  }
}

/** An escape cut short: 0 (to be carried over), or an error at the end of the body. */
function cut(final: boolean): number {
  if (final) throw new Error('a JSON string ends inside an escape');
  return 0;
}
