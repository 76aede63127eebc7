// The pre-tokenizer patterns (pretokenize.ts) for any text: where the piece at i ends, exactly as the pattern (a
// JavaScript regex with the u and y flags) would say, for the pieces the ASCII pre-tokenizer leaves (-1). The
// pattern itself took about 17 ms to compile on its first two runs (its Unicode classes, twice: V8 first compiles
// a regex to bytecode, then to machine code), paid by any count that met one character outside ASCII: a ✓ in a
// test run, an accented name, a preview line of Japanese. Here a character outside ASCII is classified once, by
// one small regex (about 3 ms to compile), and the pattern's alternatives are followed by hand, with the
// backtracking the regex does: in o200k_base a mark, a modifier letter or an "other" letter (CJK) is both upper
// and lower case, and a mark may also be the piece's optional first character.
// test/tokens/pretokenize.test.ts checks this against the pattern on random text of every kind of character.

// Character kinds, as the patterns see them (bits).
const UP = 1; // o200k's [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
const LO = 2; // o200k's [\p{Ll}\p{Lm}\p{Lo}\p{M}]
const LET = 4; // \p{L}
const NUM = 8; // \p{N}
const WS = 16; // \s
const NL = 32; // \r \n
const SLASH = 64; // /
const KNOWN = 128; // (in the cache: classified)

const ASCII = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if (c >= 0x41 && c <= 0x5a) ASCII[c] = UP | LET;
  else if (c >= 0x61 && c <= 0x7a) ASCII[c] = LO | LET;
  else if (c >= 0x30 && c <= 0x39) ASCII[c] = NUM;
  else if ((c >= 0x09 && c <= 0x0d) || c === 0x20) ASCII[c] = WS | (c === 0x0a || c === 0x0d ? NL : 0);
  else if (c === 0x2f) ASCII[c] = SLASH;
}

/** Kinds of the characters met so far: the BMP in a table (made when first needed), the rest in a map. */
let bmp: Uint8Array | null = null;
const astral = new Map<number, number>();
let classes: RegExp | null = null;

let classifiedCount = 0;

/** How many characters outside ASCII were classified so far (each costs a few microseconds, once). */
export const charactersClassified = (): number => classifiedCount;

/** The kind of a code point outside ASCII (a lone surrogate is none of these, as the pattern sees it). */
function classify(cp: number): number {
  classes ??= /(\p{Lu}|\p{Lt})|(\p{Ll})|(\p{Lm}|\p{Lo})|(\p{M})|(\p{N})/u;
  classifiedCount++;
  const ch = String.fromCodePoint(cp);
  const m = classes.exec(ch);
  let k = 0;
  if (m) k = m[1] ? UP | LET : m[2] ? LO | LET : m[3] ? UP | LO | LET : m[4] ? UP | LO : NUM;
  return /\s/.test(ch) ? k | WS : k;
}

/** The kind of the character at i (i < text.length). */
function kindAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c < 128) return ASCII[c];
  const cp = text.codePointAt(i)!;
  if (cp < 0x10000) {
    bmp ??= new Uint8Array(0x10000);
    const k = bmp[cp];
    if (k !== 0) return k & ~KNOWN;
    const got = classify(cp);
    bmp[cp] = got | KNOWN;
    return got;
  }
  let k = astral.get(cp);
  if (k === undefined) astral.set(cp, (k = classify(cp)));
  return k;
}

/** The index after the character at i (a surrogate pair is one character). */
function after(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
    const d = text.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return i + 2;
  }
  return i + 1;
}

/** The index of the character before the one at i (i > 0). */
function before(text: string, i: number): number {
  const d = text.charCodeAt(i - 1);
  if (d >= 0xdc00 && d <= 0xdfff && i >= 2) {
    const c = text.charCodeAt(i - 2);
    if (c >= 0xd800 && c <= 0xdbff) return i - 2;
  }
  return i - 1;
}

/** The end of the run of characters from i whose kind has a bit of `mask`. */
function run(text: string, i: number, mask: number): number {
  while (i < text.length && kindAt(text, i) & mask) i = after(text, i);
  return i;
}

/** Has kind: the character at i exists and has a bit of `mask`. */
const has = (text: string, i: number, mask: number) => i < text.length && (kindAt(text, i) & mask) !== 0;
/** `[^\r\n\p{L}\p{N}]`: the optional first character of a word piece. */
const isPrefix = (text: string, i: number) => i < text.length && (kindAt(text, i) & (LET | NUM | NL)) === 0;
/** `[^\s\p{L}\p{N}]`: punctuation, symbols and the like. */
const isPunct = (text: string, i: number) => i < text.length && (kindAt(text, i) & (WS | LET | NUM)) === 0;

/** The end of a contraction at i ('s 't 're 've 'm 'll 'd, each case spelt out in the patterns), else i. */
function contraction(text: string, i: number): number {
  if (text.charCodeAt(i) !== 0x27) return i;
  const a = text.charCodeAt(i + 1) | 0x20;
  if (a === 0x73 || a === 0x74 || a === 0x6d || a === 0x64) return i + 2; // s t m d
  if (a === 0x72 || a === 0x76) return (text.charCodeAt(i + 2) | 0x20) === 0x65 ? i + 3 : i; // re ve
  if (a === 0x6c) return (text.charCodeAt(i + 2) | 0x20) === 0x6c ? i + 3 : i; // ll
  return i;
}

/** o200k's `U*W+C?` from j (U* backtracks until W+ can match): its end, or -1. */
function upperThenLower(text: string, j: number): number {
  for (let k = run(text, j, UP); ; k = before(text, k)) {
    if (has(text, k, LO)) return contraction(text, run(text, k, LO));
    if (k <= j) return -1;
  }
}

/** o200k's `U+W*C?` from j: its end, or -1. */
function upperRun(text: string, j: number): number {
  const u = run(text, j, UP);
  return u > j ? contraction(text, run(text, u, LO)) : -1;
}

/** `\p{N}{1,3}` at i: its end, or -1. */
function digits(text: string, i: number): number {
  let e = i;
  for (let n = 0; n < 3 && has(text, e, NUM); n++) e = after(text, e);
  return e > i ? e : -1;
}

/** ` ?[^\s\p{L}\p{N}]+[tail]*` at i: its end, or -1. */
function punctuation(text: string, i: number, tail: number): number {
  const p = text.charCodeAt(i) === 0x20 && isPunct(text, i + 1) ? i + 1 : i;
  if (!isPunct(text, p)) return -1;
  let e = p;
  while (isPunct(text, e)) e = after(text, e);
  return run(text, e, tail);
}

/** `\s*[\r\n]+ | \s+(?!\S) | \s+` at i: its end, or -1. */
function spaces(text: string, i: number): number {
  const w = run(text, i, WS);
  if (w === i) return -1;
  // \s*[\r\n]+ : up to the last \r or \n of the run (both are one code unit)
  for (let p = w - 1; p >= i; p--) if (text.charCodeAt(p) === 0x0a || text.charCodeAt(p) === 0x0d) return p + 1;
  // \s+(?!\S) : the whole run at the end of the text, else all but its last character
  if (w >= text.length) return w;
  const last = before(text, w);
  return last > i ? last : w; // \s+
}

/**
 * The end of the piece starting at i (i < text.length) under o200k_base's pattern, or -1 where it matches
 * nothing (it matches at every character).
 */
export function o200kPieceEndAny(text: string, i: number): number {
  const x = isPrefix(text, i);
  let e = x ? upperThenLower(text, after(text, i)) : -1;
  if (e < 0) e = upperThenLower(text, i);
  if (e < 0 && x) e = upperRun(text, after(text, i));
  if (e < 0) e = upperRun(text, i);
  if (e < 0) e = digits(text, i);
  if (e < 0) e = punctuation(text, i, NL | SLASH);
  if (e < 0) e = spaces(text, i);
  return e;
}

/** The same under cl100k_base's pattern. */
export function cl100kPieceEndAny(text: string, i: number): number {
  const c = contraction(text, i);
  if (c > i) return c;
  // [^\r\n\p{L}\p{N}]?\p{L}+ (the prefix is never a letter: taken when a letter follows)
  const j = isPrefix(text, i) && has(text, after(text, i), LET) ? after(text, i) : i;
  const l = run(text, j, LET);
  if (l > j) return l;
  let e = digits(text, i);
  if (e < 0) e = punctuation(text, i, NL);
  if (e < 0) e = spaces(text, i);
  return e;
}
