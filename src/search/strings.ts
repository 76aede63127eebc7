// `lro grep ID PATTERN --strings`: the printable strings of a binary result, as strings(1) finds them (runs of at
// least 4 printable ASCII characters or tabs), numbered 1, 2, 3... in order, each with the byte offset it starts at.
// The pattern is tested on each string as grep tests a record.
import { originalContent, type ResultFile } from '../format/reader.js';
import type { GrepQuery } from './grep-types.js';

/** The shortest run of printable characters that counts as a string (strings(1)'s default). */
export const MIN_STRING = 4;
/** A string longer than this is cut (its offset and number stay right; the rest is still skipped over). */
export const MAX_STRING = 4096;

export interface PrintableString {
  /** 1-based, in order of the bytes. */
  n: number;
  /** Byte offset of its first character in the original. */
  offset: number;
  text: string;
  /** Its length in bytes (more than text.length when it was cut). */
  length: number;
}

const printable = (c: number): boolean => (c >= 0x20 && c <= 0x7e) || c === 0x09;

/** The printable strings of a result's original bytes, in order. */
export function* printableStrings(rf: ResultFile): Generator<PrintableString> {
  let n = 0;
  let pos = 0; // offset of the next byte
  let start = -1; // offset of the current run, -1 when outside one
  let text: number[] = [];
  const done = (): PrintableString | null => {
    const length = pos - start;
    const s = length >= MIN_STRING ? { n: ++n, offset: start, text: String.fromCharCode(...text), length } : null;
    start = -1;
    text = [];
    return s;
  };
  for (const piece of originalContent(rf)) {
    for (let i = 0; i < piece.length; i++, pos++) {
      const c = piece[i];
      if (printable(c)) {
        if (start < 0) start = pos;
        if (text.length < MAX_STRING) text.push(c);
        continue;
      }
      if (start >= 0) {
        const s = done();
        if (s) yield s;
      }
    }
  }
  if (start >= 0) {
    const s = done();
    if (s) yield s;
  }
}

/**
 * The strings of rf a search selects, in order: those of its range (string numbers) its pattern matches (or, with
 * -v, does not), at most -m of them. `lro grep ID PATTERN --strings` prints them (render/grep-strings.ts).
 */
export function* selectedStrings(rf: ResultFile, q: GrepQuery): Generator<PrintableString> {
  const re = q.matcher.regex;
  let matched = 0;
  for (const s of printableStrings(rf)) {
    if (s.n < q.range.from) continue;
    if (s.n > q.range.to || matched >= q.maxCount) break;
    re.lastIndex = 0;
    if (re.test(s.text) === q.invert) continue;
    matched++;
    yield s;
  }
}

