// The byte-scanning kernel of `lro grep` (scan.wat, assembled): finds any of up to 8 literals ("needles") 16
// bytes at a time, checking two of each needle's rarest bytes first, as ripgrep's memchr does; and counts
// newlines. Records are read straight into the kernel's memory (`view`), so the bytes are never copied to be
// searched.

import { readSync } from 'node:fs';
import { newlineFrom } from '../file-span.js';
import KERNEL from './scan.wat';

/** scan.wat, assembled by the build (test/search/scan.test.ts checks these bytes against the source). */
export const SCAN_WASM: string = KERNEL;

/** The output area of lines(), in the kernel's memory. */
export const OUT = 65536;
export const OUT_SIZE = 256 << 10;
/** Where data starts in the kernel's memory (below it: the needle table, lines()'s state and output area). */
export const DATA = OUT + OUT_SIZE;
/** The kernel reads a little past the end of what it searches: memory keeps this much after any data. */
const SLACK = 256;
export const MAX_NEEDLES = 8;
/** Longer literals are searched by their first MAX_NEEDLE_BYTES bytes (then a hit must be checked). */
export const MAX_NEEDLE_BYTES = 188;
const FOUND_AT = 4092;
/** find()'s Teddy tables, for several needles (see scan.wat). */
const TEDDY = 8832;
/** anyOf()'s word table (see scan.wat). */
const WORDS = 8192;
const MAX_WORDS = 16;
/** The lines wordLines() gives per call: four i32 each, in the output area. */
export const WORD_LINES = OUT_SIZE / 16;

// The few WebAssembly names used here (TypeScript's ES libraries do not declare them).
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
};
interface WasmMemory {
  buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface Exports {
  memory: WasmMemory;
  count(start: number, end: number): number;
  find(start: number, end: number, n: number): number;
  lines(): number;
  anyOf(start: number, end: number): number;
  wordLines(start: number, end: number, out: number, max: number): number;
}

/** The i32 slots of lines()'s state, as indexes into an Int32Array over memory (see scan.wat). */
export const S = { pos: 1024, end: 1025, line: 1026, out: 1027, outEnd: 1028, flags: 1029, maxText: 1030, selected: 1031, limit: 1032, ls: 1033, le: 1034, definite: 1035, needles: 1036, esc: 1037 } as const;
/** lines() flags. */
export const PRINT = 1;
export const QUOTED = 2;
export const WORD = 4;
/** What lines() stopped for. */
export const AT_END = 0;
export const FOR_JS = 1;
export const OUT_FULL = 2;
export const AT_LIMIT = 3;

/** A literal to find: its bytes, and whether ASCII letters match either case. */
export interface Needle {
  bytes: Uint8Array;
  fold: boolean;
}

// Bytes from the most to the least frequent in logs and JSON (a rough order: it only picks which two bytes of a
// needle to check first). Bytes not listed count as rarer than all of these.
const BY_FREQUENCY = Buffer.from(' etaoinsr01ldc2hum.:-3p54g6879/_fb,="ywvkTSAEIRCNDLOPM[]xF{}B()UGHW\'qVzKYJjQXZ', 'latin1');
const RARITY = new Uint8Array(256).fill(255);
BY_FREQUENCY.forEach((b, i) => (RARITY[b] = Math.min(RARITY[b], i)));

/** How rare a byte is in logs and JSON: higher is rarer (255 for bytes not in the table). */
export const byteRarity = (c: number): number => RARITY[c & 0xff];

const isLetter = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

/** The two positions of a needle to check first: its rarest byte and the rarest other byte value. */
export function checkPositions(bytes: Uint8Array, fold: boolean): [number, number] {
  const rarity = (i: number) => {
    const c = bytes[i];
    return fold && isLetter(c) ? Math.min(RARITY[c | 0x20], RARITY[c & ~0x20]) : RARITY[c];
  };
  let p1 = 0;
  for (let i = 1; i < bytes.length; i++) if (rarity(i) > rarity(p1)) p1 = i;
  let p2 = -1;
  for (let i = 0; i < bytes.length; i++) {
    if (i === p1 || bytes[i] === bytes[p1]) continue;
    if (p2 < 0 || rarity(i) > rarity(p2)) p2 = i;
  }
  if (p2 < 0) p2 = bytes.length > 1 ? (p1 === 0 ? bytes.length - 1 : 0) : p1;
  return p1 < p2 ? [p1, p2] : [p2, p1];
}

let compiled: object | null = null;

/** One instance of the kernel: its memory, the needles set, and searches over data read into it. */
export class ByteScanner {
  private readonly x: Exports;
  /** The kernel's whole memory; data lives at [DATA, DATA + capacity). Replaced when memory grows. */
  view: Buffer;
  /** lines()'s state slots (see S); replaced with view. */
  state: Int32Array;
  private needles = 0;

  constructor(capacity: number) {
    compiled ??= new WebAssembly.Module(Buffer.from(SCAN_WASM, 'base64'));
    this.x = new WebAssembly.Instance(compiled).exports as Exports;
    this.view = Buffer.from(this.x.memory.buffer);
    this.state = new Int32Array(this.x.memory.buffer);
    this.reserve(capacity);
  }

  /** Bytes of data the memory holds. */
  get capacity(): number {
    return this.view.length - DATA - SLACK;
  }

  /** Grows the memory to hold at least `capacity` bytes of data (keeping what is there); `view` may change. */
  reserve(capacity: number): void {
    const need = DATA + capacity + SLACK - this.view.length;
    if (need <= 0) return;
    this.x.memory.grow(Math.ceil(need / 65536));
    this.view = Buffer.from(this.x.memory.buffer);
    this.state = new Int32Array(this.x.memory.buffer);
  }

  /** Sets the needles that find() looks for (1 to MAX_NEEDLES, each 1 to MAX_NEEDLE_BYTES bytes). */
  setNeedles(needles: Needle[]): void {
    if (needles.length < 1 || needles.length > MAX_NEEDLES) throw new RangeError('1 to 8 needles');
    const v = this.view;
    v.fill(0, 0, 4096);
    needles.forEach((nd, k) => {
      const bytes = nd.bytes;
      if (bytes.length < 1 || bytes.length > MAX_NEEDLE_BYTES) throw new RangeError('needle length');
      const base = k * 512;
      const mask = (c: number) => (nd.fold && isLetter(c) ? 0x20 : 0);
      v.writeInt32LE(bytes.length, base);
      const [p1, p2] = checkPositions(bytes, nd.fold);
      v.writeInt32LE(p1, base + 4);
      v.writeInt32LE(p2, base + 8);
      v.fill(bytes[p1] | mask(bytes[p1]), base + 16, base + 32);
      v.fill(mask(bytes[p1]), base + 32, base + 48);
      v.fill(bytes[p2] | mask(bytes[p2]), base + 48, base + 64);
      v.fill(mask(bytes[p2]), base + 64, base + 80);
      for (let i = 0; i < bytes.length; i++) {
        v[base + 128 + i] = bytes[i] | mask(bytes[i]);
        v[base + 320 + i] = mask(bytes[i]);
      }
    });
    // Teddy's tables (see scan.wat): a bit per needle for each nibble of its first bytes (both cases when folded)
    v.fill(0, TEDDY, TEDDY + 96);
    const f = Math.min(3, ...needles.map((nd) => nd.bytes.length));
    needles.forEach((nd, k) => {
      for (let j = 0; j < f; j++) {
        const c = nd.bytes[j];
        for (const x of nd.fold && isLetter(c) ? [c | 0x20, c & ~0x20] : [c]) {
          v[TEDDY + j * 32 + (x & 15)] |= 1 << k;
          v[TEDDY + j * 32 + 16 + (x >> 4)] |= 1 << k;
        }
      }
    });
    v.fill(0xff, TEDDY + f * 32, TEDDY + 96); // positions past the shortest needle match anything
    this.needles = needles.length;
    this.state[S.needles] = needles.length;
  }

  /** The first position in [start, end) of memory where a needle lies wholly before end, or -1. */
  find(start: number, end: number): number {
    return this.x.find(start, end, this.needles);
  }

  /** Which needle the last successful find() found (its index in setNeedles). */
  get found(): number {
    return this.view.readInt32LE(FOUND_AT);
  }

  /** The number of \n bytes in [start, end) of memory. */
  count(start: number, end: number): number {
    return this.x.count(start, end);
  }

  /**
   * Sets the words anyOf() looks for, in either case: 1 to MAX_WORDS words of 3 to 24 ASCII letters (the
   * error words of a log, for instance).
   */
  setWords(words: string[]): void {
    if (words.length < 1 || words.length > MAX_WORDS) throw new RangeError('1 to 16 words');
    const v = this.view;
    v.fill(0, WORDS, WORDS + 640);
    words.forEach((word, k) => {
      if (!/^[A-Za-z]{3,24}$/.test(word)) throw new RangeError(`not a word of 3 to 24 ASCII letters: ${word}`);
      const base = WORDS + k * 32;
      const bucket = k % 8;
      v.write(word.toLowerCase(), base, 'latin1');
      v[base + 24] = word.length;
      v[base + 25] = bucket;
      // the nibble tables of the first three bytes, both cases
      for (let j = 0; j < 3; j++) {
        const c = word.charCodeAt(j) | 0x20;
        for (const x of [c, c & ~0x20]) {
          v[WORDS + 512 + j * 32 + (x & 15)] |= 1 << bucket;
          v[WORDS + 512 + j * 32 + 16 + (x >> 4)] |= 1 << bucket;
        }
      }
    });
    v.writeInt32LE(words.length, WORDS + 608);
  }

  /** The first position in [start, end) of memory where a word set by setWords() lies wholly before end, or -1. */
  anyOf(start: number, end: number): number {
    return this.x.anyOf(start, end);
  }

  /** Which word the last successful anyOf() found (its index in setWords). */
  get foundWord(): number {
    return this.view.readInt32LE(WORDS + 612);
  }

  /**
   * The lines of [start, end) of memory (whole lines) holding a word set by setWords(), up to WORD_LINES of them
   * per call, as four i32 each in the output area from OUT: the line's start, its \n, the number of \n in
   * [start, its start), the word's index. Returns how many; then `wordLinesNext` is where to go on (end when all
   * is done) and `wordLinesCounted` the number of \n in [start, there).
   */
  wordLines(start: number, end: number): number {
    return this.x.wordLines(start, end, OUT, WORD_LINES);
  }

  get wordLinesNext(): number {
    return this.view.readInt32LE(WORDS + 616);
  }

  get wordLinesCounted(): number {
    return this.view.readInt32LE(WORDS + 620);
  }

  /** Runs lines() from its state (see scan.wat); returns what it stopped for. */
  lines(): number {
    return this.x.lines();
  }
}

/**
 * A stretch of whole records in the scanner's memory: [start, end) (end just after a \n), at file offset `at`.
 * With `long` set, a record longer than the memory that was not gathered (see scanChunks): its stored bytes are
 * the file's [at, at + long), its newline next; nothing of it is in memory (start = end).
 */
export interface Chunk {
  start: number;
  end: number;
  at: number;
  long?: number;
}

/**
 * Reads the record bytes of a file (from `offset`) into the scanner's memory, yielding chunks of whole lines; a
 * chunk's bytes stay in place until the next is asked for. A line longer than the memory grows it (it is held
 * whole), or, with `gather` false, is yielded as a `long` chunk, found by reading on to its newline a memory at
 * a time: memory never touched before costs more to fill than a second read of the record from the page cache.
 * A last line without a newline throws `unterminated()`.
 */
export function* scanChunks(scanner: ByteScanner, fd: number, offset: number, unterminated: () => Error, gather = true): Generator<Chunk> {
  let carry = 0; // bytes of an unfinished line at DATA
  let pos = offset;
  for (;;) {
    if (carry === scanner.capacity) {
      if (gather) scanner.reserve(scanner.capacity * 2);
      else {
        const at = pos - carry;
        const end = newlineFrom(fd, pos, unterminated, scanner.view, DATA, scanner.capacity);
        yield { start: DATA, end: DATA, at, long: end - at };
        pos = end + 1;
        carry = 0;
        continue;
      }
    }
    const got = readSync(fd, scanner.view, DATA + carry, scanner.capacity - carry, pos);
    if (got === 0) {
      if (carry > 0) throw unterminated();
      return;
    }
    pos += got;
    const filled = DATA + carry + got;
    const end = scanner.view.lastIndexOf(0x0a, filled - 1) + 1;
    if (end <= DATA) {
      carry = filled - DATA;
      continue;
    }
    yield { start: DATA, end, at: pos - (filled - DATA) };
    carry = filled - end;
    scanner.view.copyWithin(DATA, end, filled);
  }
}

let counter: ByteScanner | null = null;

/** The number of \n bytes in data[from, to), for data outside a kernel's memory (it is copied in). */
export function countNewlines(data: Uint8Array, from = 0, to = data.length): number {
  if (to - from < 256) {
    let c = 0;
    for (let i = from; i < to; i++) if (data[i] === 0x0a) c++;
    return c;
  }
  counter ??= new ByteScanner(to - from);
  counter.reserve(to - from);
  counter.view.set(data.subarray(from, to), DATA);
  return counter.count(DATA, DATA + to - from);
}
