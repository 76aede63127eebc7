// Token counting with the vocabularies and pre-tokenizer patterns of js-tiktoken (o200k_base, cl100k_base).
// Why not js-tiktoken's own encoder: building its rank Map costs ~600 ms per process, and its byte-pair merge is
// quadratic in the piece length ("a" x 50000 takes minutes). Here the ranks are a prebuilt hash table read with
// one file read (scripts/build-ranks.mjs), and long pieces merge with a heap in O(n log n). The merge order is
// the same (lowest rank first, leftmost on ties), so counts equal js-tiktoken's; test/engines checks that.
// ASCII text is counted by a WebAssembly kernel (bpe.wat): at native speed from the first piece, where this
// code takes several milliseconds to warm up (100 KB of a log: 25 ms before, 5 ms after, in a new process).
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BpeKernel, STOP } from './bpe-wasm.js';
import { cl100kPieceEnd, o200kPieceEnd } from './pretokenize.js';
import { charactersClassified, cl100kPieceEndAny, o200kPieceEndAny } from './pretokenize-unicode.js';

export type Encoding = 'o200k_base' | 'cl100k_base';
export const ENCODINGS: readonly Encoding[] = ['o200k_base', 'cl100k_base'];

/** Counts the tokens of a string; never throws, whatever the text (special tokens count as ordinary text). */
export interface Tokenizer {
  readonly encoding: Encoding;
  count(text: string): number;
}

const MAGIC = 'LROBPE2\n';
const HEAP_MIN_PIECE = 48; // below this, a plain scan of adjacent pairs is faster than a heap (bpe.wat: the same 48)
const CACHE_MAX_PIECE = 48;
const CACHE_MAX_ENTRIES = 20000;
/** Longer pieces are cached apart, fewer of them (at most 2 MB of keys). */
const LONG_CACHE_MAX_PIECE = 4096;
const LONG_CACHE_MAX_ENTRIES = 256;
/**
 * The longest token of both vocabularies, in bytes (o200k_base and cl100k_base: 128; test/engines checks it),
 * so a text of B bytes has at least B / MAX_TOKEN_BYTES tokens: a budget can refuse a text far too long for it
 * without counting it.
 */
export const MAX_TOKEN_BYTES = 128;

/** UTF-16 units of text given to the kernel per call (it holds their UTF-8: 3 bytes each at most). */
export const WINDOW = 32 << 10;
/** Pieces outside ASCII the pre-tokenizer finds by hand before the pattern takes over (see pieceEnd). */
export const HAND_PIECES = 2000;
/** Distinct characters outside ASCII it classifies before the pattern takes over. */
export const HAND_CHARACTERS = 128;

/** The path of a file the build makes in dist/ranks/ (`name`: e.g. o200k_base.bin), from a bundle or from src/. */
function ranksFile(name: string): string {
  const candidates = [new URL(`./ranks/${name}`, import.meta.url), new URL(`../../dist/ranks/${name}`, import.meta.url)];
  for (const url of candidates) {
    const path = fileURLToPath(url);
    if (existsSync(path)) return path;
  }
  throw new Error(`token table ${name} is missing; run npm run build`);
}

/** The rank table of one vocabulary: token bytes -> rank, looked up without building any JavaScript map. */
class RankTable {
  readonly pattern: string;
  /** Token r is blob[offsets[r], offsets[r + 1]). */
  readonly offsets: Uint32Array;
  /** Open addressing on the FNV-1a hash of a token's bytes: rank + 1, 0 for an empty slot. */
  readonly table: Uint32Array;
  private readonly mask: number;
  readonly blob: Uint8Array;

  constructor(buf: Buffer, what: string) {
    if (buf.byteOffset % 4 !== 0) buf = Buffer.from(buf); // typed-array views need 4-byte alignment
    if (buf.toString('latin1', 0, 8) !== MAGIC) throw new Error(`${what} is not an lro rank table; run npm run build`);
    const n = buf.readUInt32LE(8);
    const tableBits = buf.readUInt32LE(12);
    const blobLen = buf.readUInt32LE(16);
    const patLen = buf.readUInt32LE(20);
    this.pattern = buf.toString('utf8', 24, 24 + patLen);
    const headerBytes = 24 + ((patLen + 3) & ~3);
    const base = buf.byteOffset;
    this.offsets = new Uint32Array(buf.buffer, base + headerBytes, n + 1);
    const tableSize = 2 ** tableBits;
    this.table = new Uint32Array(buf.buffer, base + headerBytes + 4 * (n + 1), tableSize);
    this.mask = tableSize - 1;
    this.blob = new Uint8Array(buf.buffer, base + headerBytes + 4 * (n + 1) + 4 * tableSize, blobLen);
  }

  /** Rank of bytes[start, end), or -1 if that byte string is not a token. */
  rank(bytes: Uint8Array, start: number, end: number): number {
    let h = 0x811c9dc5;
    for (let i = start; i < end; i++) {
      h ^= bytes[i];
      h = Math.imul(h, 0x01000193);
    }
    const len = end - start;
    const { table, offsets, blob, mask } = this;
    for (let slot = (h >>> 0) & mask; ; slot = (slot + 1) & mask) {
      const entry = table[slot];
      if (entry === 0) return -1;
      const t = entry - 1;
      const off = offsets[t];
      if (offsets[t + 1] - off !== len) continue;
      let same = true;
      for (let i = 0; i < len; i++) {
        if (blob[off + i] !== bytes[start + i]) {
          same = false;
          break;
        }
      }
      if (same) return t;
    }
  }
}

class BpeTokenizer implements Tokenizer {
  /** The pre-tokenizer's pattern, made once the hand-made pre-tokenizer has done its share (see pieceEnd). */
  private patternRegex: RegExp | null = null;
  /** Pieces outside ASCII found by hand so far. */
  private handPieces = 0;
  private scratch = new Uint8Array(1024);
  private readonly cache = new Map<string, number>();
  private readonly longCache = new Map<string, number>();
  // Reusable work arrays for the merges.
  private starts = new Int32Array(64);
  private pairRanks = new Float64Array(64);

  constructor(
    readonly encoding: Encoding,
    private readonly table: RankTable,
    private readonly kernel: BpeKernel,
  ) {
  }

  /** Sticky: the pattern's alternatives cover every character, so each match starts where the last ended. */
  private get regex(): RegExp {
    return (this.patternRegex ??= new RegExp(this.table.pattern, 'uy'));
  }

  /**
   * The kernel (bpe.wat) counts the text a window at a time, on its UTF-8; where it stops, this counts one piece
   * and lets it go on: a piece that depends on characters outside ASCII (the pre-tokenizer, pieceEnd, decides
   * where it ends), a long piece (merged with a heap), a piece longer than a window.
   */
  count(text: string): number {
    const k = this.kernel;
    const n = text.length;
    let total = 0;
    let s = 0; // the next piece starts at text[s]
    while (s < n) {
      let w = Math.min(n, s + WINDOW);
      if (w < n && isHighSurrogate(text.charCodeAt(w - 1))) w--; // a window holds whole characters
      const bytes = k.load(text, s, w);
      const final = w === n;
      let b = 0; // text[s] in the window's bytes
      for (;;) {
        total += k.count(b, bytes, final);
        const at = k.stopAt;
        s += at - b; // the kernel passes ASCII only: a byte per character
        b = at;
        const why = k.why;
        if (why === STOP.END || (why === STOP.MORE && b > 0)) break; // (the next window starts at s)
        let e: number;
        if (why === STOP.LONG) e = s + (k.stopEnd - b);
        else {
          e = this.pieceEnd(text, s);
          if (e < 0) return total + n - s; // not expected: every character matches some alternative
        }
        const len = this.encodeUtf8(text, s, e);
        total += this.countPiece(text, s, e, len);
        if (e >= w) {
          s = e;
          break;
        }
        b += len;
        s = e;
      }
    }
    return total;
  }

  /**
   * The end of the piece at text[start], as the encoding's pattern says, or -1 if nothing matches: by hand for
   * ASCII (pretokenize.ts); outside ASCII by hand (pretokenize-unicode.ts) for the first HAND_PIECES pieces and
   * HAND_CHARACTERS distinct characters, then by the pattern itself. Compiling the pattern costs about 17 ms,
   * which a few pieces (a ✓, a name, a preview line in Japanese) are not worth; by hand, each new character
   * costs a few microseconds to classify and each piece about a microsecond until V8 optimises the code, which
   * a megabyte of text in another script (thousands of distinct characters) is not worth.
   */
  private pieceEnd(text: string, start: number): number {
    const o200k = this.encoding === 'o200k_base';
    const end = (o200k ? o200kPieceEnd : cl100kPieceEnd)(text, start);
    if (end >= 0) return end;
    if (this.handPieces < HAND_PIECES && charactersClassified() < HAND_CHARACTERS) {
      this.handPieces++;
      return (o200k ? o200kPieceEndAny : cl100kPieceEndAny)(text, start);
    }
    this.regex.lastIndex = start;
    return this.regex.test(text) ? this.regex.lastIndex : -1;
  }

  /** The tokens of text[start, end), whose UTF-8 (len bytes) encodeUtf8 has just put in this.scratch. */
  private countPiece(text: string, start: number, end: number, len: number): number {
    if (len <= 1) return len;
    const bytes = this.scratch;
    if (this.table.rank(bytes, 0, len) >= 0) return 1;
    const chars = end - start;
    if (chars <= CACHE_MAX_PIECE) return cached(this.cache, CACHE_MAX_ENTRIES, text.slice(start, end), () => this.mergeScan(bytes, len));
    if (len < HEAP_MIN_PIECE) return this.mergeScan(bytes, len);
    if (chars > LONG_CACHE_MAX_PIECE) return mergeHeap(this.table, bytes, len);
    // a long piece that repeats (lines of blanks, rules of dashes): each counted once
    return cached(this.longCache, LONG_CACHE_MAX_ENTRIES, text.slice(start, end), () => mergeHeap(this.table, bytes, len));
  }

  /** UTF-8 of text[start, end) into this.scratch (lone surrogates become U+FFFD, as TextEncoder does). */
  private encodeUtf8(piece: string, start: number, end: number): number {
    if (this.scratch.length < (end - start) * 3) this.scratch = new Uint8Array((end - start) * 3 + 64);
    const out = this.scratch;
    let p = 0;
    const n = end;
    for (let i = start; i < n; i++) {
      let c = piece.charCodeAt(i);
      if (c < 0x80) {
        out[p++] = c;
      } else if (c < 0x800) {
        out[p++] = 0xc0 | (c >> 6);
        out[p++] = 0x80 | (c & 63);
      } else {
        if (c >= 0xd800 && c <= 0xdfff) {
          const next = i + 1 < n ? piece.charCodeAt(i + 1) : 0;
          if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
            c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
            i++;
            out[p++] = 0xf0 | (c >> 18);
            out[p++] = 0x80 | ((c >> 12) & 63);
            out[p++] = 0x80 | ((c >> 6) & 63);
            out[p++] = 0x80 | (c & 63);
            continue;
          }
          c = 0xfffd;
        }
        out[p++] = 0xe0 | (c >> 12);
        out[p++] = 0x80 | ((c >> 6) & 63);
        out[p++] = 0x80 | (c & 63);
      }
    }
    return p;
  }

  /** Byte-pair merge by scanning all adjacent pairs each round (tiktoken's algorithm); returns the token count. */
  private mergeScan(bytes: Uint8Array, len: number): number {
    if (this.starts.length < len + 1) {
      this.starts = new Int32Array(len + 1);
      this.pairRanks = new Float64Array(len + 1);
    }
    const starts = this.starts;
    const ranks = this.pairRanks;
    for (let i = 0; i <= len; i++) starts[i] = i;
    let parts = len; // parts i span starts[i]..starts[i+1]
    for (let i = 0; i < parts - 1; i++) ranks[i] = this.pairRank(bytes, starts[i], starts[i + 2]);
    while (parts > 1) {
      let best = -1;
      let bestRank = Infinity;
      for (let i = 0; i < parts - 1; i++) {
        if (ranks[i] < bestRank) {
          bestRank = ranks[i];
          best = i;
        }
      }
      if (best < 0) break;
      // merge part best with part best+1
      for (let i = best + 1; i < parts; i++) starts[i] = starts[i + 1];
      for (let i = best + 1; i < parts - 1; i++) ranks[i] = ranks[i + 1];
      parts--;
      ranks[best] = best + 1 < parts ? this.pairRank(bytes, starts[best], starts[best + 2]) : Infinity;
      if (best > 0) ranks[best - 1] = this.pairRank(bytes, starts[best - 1], starts[best + 1]);
    }
    return parts;
  }

  private pairRank(bytes: Uint8Array, start: number, end: number): number {
    const r = this.table.rank(bytes, start, end);
    return r < 0 ? Infinity : r;
  }
}

/**
 * Byte-pair merge with a min-heap of (rank, start) over a linked list of parts: O(n log n) for any piece length.
 * A heap entry is stale when its left part was merged away or its right neighbour grew; such entries are skipped.
 */
function mergeHeap(table: RankTable, bytes: Uint8Array, len: number): number {
  const next = new Int32Array(len + 1); // start of the part after the part starting at i (len = end)
  const prev = new Int32Array(len + 1);
  const alive = new Uint8Array(len + 1);
  for (let i = 0; i < len; i++) {
    next[i] = i + 1;
    prev[i] = i - 1;
    alive[i] = 1;
  }
  const heap = new PairHeap(len);
  const pushPair = (start: number) => {
    const mid = next[start];
    if (mid >= len) return;
    const end = next[mid];
    const rank = table.rank(bytes, start, end);
    if (rank >= 0) heap.push(rank, start, end);
  };
  for (let i = 0; i < len - 1; i++) pushPair(i);
  let parts = len;
  while (heap.size > 0) {
    const start = heap.topStart();
    const end = heap.topEnd();
    heap.pop();
    if (!alive[start]) continue;
    const mid = next[start];
    if (mid >= len || next[mid] !== end) continue;
    alive[mid] = 0;
    next[start] = end;
    if (end < len) prev[end] = start;
    parts--;
    if (prev[start] >= 0) pushPair(prev[start]);
    pushPair(start);
  }
  return parts;
}

/**
 * mergeHeap's min-heap of pairs, lowest rank first and, among equal ranks, the leftmost: one key per entry,
 * rank * (len + 1) + start (exact in a double: ranks are below 2^18, pieces below 2^32 bytes), and the pair's end
 * beside it. Sized for every entry a merge can make (the first pairs, then at most two a merge), so it never grows:
 * a 5 MB run of spaces (one piece) took 6 s with three growing arrays and a comparison closure, 1.2 s so.
 */
class PairHeap {
  private readonly keys: Float64Array;
  private readonly ends: Int32Array;
  private readonly span: number;
  size = 0;

  constructor(len: number) {
    this.keys = new Float64Array(3 * len + 16);
    this.ends = new Int32Array(3 * len + 16);
    this.span = len + 1;
  }

  topStart(): number {
    return this.keys[0] % this.span;
  }

  topEnd(): number {
    return this.ends[0];
  }

  push(rank: number, start: number, end: number): void {
    const { keys, ends } = this;
    const key = rank * this.span + start;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (keys[parent] <= key) break;
      keys[i] = keys[parent];
      ends[i] = ends[parent];
      i = parent;
    }
    keys[i] = key;
    ends[i] = end;
  }

  pop(): void {
    const { keys, ends } = this;
    const size = --this.size;
    const key = keys[size];
    const end = ends[size];
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= size) break;
      const c = l + 1 < size && keys[l + 1] < keys[l] ? l + 1 : l;
      if (keys[c] >= key) break;
      keys[i] = keys[c];
      ends[i] = ends[c];
      i = c;
    }
    keys[i] = key;
    ends[i] = end;
  }
}

/** A piece's count from `cache`, or counted and kept (the cache emptied when it holds `max`). */
function cached(cache: Map<string, number>, max: number, piece: string, count: () => number): number {
  let n = cache.get(piece);
  if (n === undefined) {
    n = count();
    if (cache.size >= max) cache.clear();
    cache.set(piece, n);
  }
  return n;
}

const loaded = new Map<Encoding, Tokenizer>();

/** The tokenizer for an encoding, loaded on first use (one read of its 2 to 4.3 MB table, into the kernel's memory). */
export function getTokenizer(encoding: Encoding = 'o200k_base'): Tokenizer {
  let t = loaded.get(encoding);
  if (!t) {
    const kernel = kernelWithTable(`${encoding}.bin`);
    const table = new RankTable(kernel.table, `the ${encoding} rank table`);
    kernel.init(encoding === 'cl100k_base', table.offsets, table.table, table.blob);
    t = new BpeTokenizer(encoding, table, kernel);
    loaded.set(encoding, t);
  }
  return t;
}

/**
 * A kernel with the build's table dist/ranks/`name` read into its memory (one read of the file: a rank table, or
 * the short tokens of token-bound.ts).
 */
export function kernelWithTable(name: string): BpeKernel {
  const fd = openSync(ranksFile(name), 'r');
  try {
    const kernel = new BpeKernel(fstatSync(fd).size, WINDOW);
    const bytes = kernel.table;
    for (let at = 0; at < bytes.length; ) {
      const n = readSync(fd, bytes, at, bytes.length - at, at);
      if (n === 0) throw new Error(`token table ${name} is truncated; run npm run build`);
      at += n;
    }
    return kernel;
  } finally {
    closeSync(fd);
  }
}

/** Whether a UTF-16 unit is the first of a surrogate pair. */
export function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}
