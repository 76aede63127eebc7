// A record's key found in its JSON bytes without parsing it: JSON.parse of every record of a 200 MB listing
// makes gigabytes of short-lived objects, whose collection lets a process grow by tens of megabytes. The key's
// value is compared as written (its bytes), so "id": 1 and "id": 1.0 are two keys, as are "A" and "\u0041".
import type { FieldPath } from '../query/path.js';

/** The value's bounds found by keyBounds: bytes [start, end). */
export const BOUNDS = new Int32Array(2);

const isWs = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function skipWs(b: Uint8Array, i: number, end: number): number {
  while (i < end && isWs(b[i])) i++;
  return i;
}

/** The end of the string starting at b[i] (a quote): just after its closing quote. */
function skipString(b: Uint8Array, i: number, end: number): number {
  for (i++; i < end; i++) {
    const c = b[i];
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
  }
  return end;
}

/** The end of the value starting at b[i]. */
function skipValue(b: Uint8Array, i: number, end: number): number {
  const c = b[i];
  if (c === 0x22) return skipString(b, i, end);
  if (c !== 0x7b && c !== 0x5b) {
    while (i < end && b[i] !== 0x2c && b[i] !== 0x7d && b[i] !== 0x5d && !isWs(b[i])) i++;
    return i;
  }
  let depth = 0;
  for (; i < end; i++) {
    const d = b[i];
    if (d === 0x22) i = skipString(b, i, end) - 1;
    else if (d === 0x7b || d === 0x5b) depth++;
    else if ((d === 0x7d || d === 0x5d) && --depth === 0) return i + 1;
  }
  return end;
}

/** Whether b[s, e) (a key between its quotes) is `key`'s bytes. */
function sameKey(b: Uint8Array, s: number, e: number, key: Uint8Array): boolean {
  if (e - s !== key.length) return false;
  for (let k = 0; k < key.length; k++) if (b[s + k] !== key[k]) return false;
  return true;
}

/** Narrows [start, end) (an object) to its member `key`'s value; false when it is not an object or lacks it. */
function member(b: Uint8Array, key: Uint8Array): boolean {
  const end = BOUNDS[1];
  let i = skipWs(b, BOUNDS[0], end);
  if (b[i] !== 0x7b) return false;
  i++;
  for (;;) {
    i = skipWs(b, i, end);
    if (i >= end || b[i] !== 0x22) return false;
    const keyEnd = skipString(b, i, end);
    const match = sameKey(b, i + 1, keyEnd - 1, key);
    i = skipWs(b, keyEnd, end);
    if (b[i] !== 0x3a) return false;
    i = skipWs(b, i + 1, end);
    const valueEnd = skipValue(b, i, end);
    if (match) {
      BOUNDS[0] = i;
      BOUNDS[1] = valueEnd;
      return true;
    }
    i = skipWs(b, valueEnd, end);
    if (b[i] !== 0x2c) return false;
    i++;
  }
}

/** A key path as the bytes of its keys (as JSON writes them between quotes); null when it has an index or []. */
export function keySteps(path: FieldPath): Uint8Array[] | null {
  const out: Uint8Array[] = [];
  for (const s of path.steps) {
    if (s.kind !== 'key') return null;
    out.push(Buffer.from(JSON.stringify(s.key).slice(1, -1)));
  }
  return out;
}

/**
 * Sets BOUNDS to the bytes of the value at `steps` in the record b, and returns true, when that value is a
 * string or a number (a key); false for anything else (absent, null, an object…).
 */
export function keyBounds(b: Uint8Array, steps: Uint8Array[]): boolean {
  BOUNDS[0] = 0;
  BOUNDS[1] = b.length;
  for (const k of steps) if (!member(b, k)) return false;
  const c = b[BOUNDS[0]];
  return c === 0x22 || c === 0x2d || (c >= 0x30 && c <= 0x39);
}
