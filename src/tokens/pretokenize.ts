// The pre-tokenizer patterns of o200k_base and cl100k_base, followed by hand for ASCII text: where the next piece
// of a text ends, exactly as the pattern (a JavaScript regex with the u and y flags) would say, without running
// it. The regex costs about 20 ms to compile (its Unicode classes) and 20 ms per MB to run; logs and JSON are
// mostly ASCII. As soon as the answer could depend on a character outside ASCII (a letter? a space?) other than
// some well-known punctuation, the answer is -1 and pretokenize-unicode.ts, which knows every character, decides
// that piece. test/tokens/pretokenize.test.ts checks both against the pattern stored with the vocabulary.
//
// o200k_base: [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(CONTRACTION)?
//   | [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(CONTRACTION)?
//   | \p{N}{1,3} | ?[^\s\p{L}\p{N}]+[\r\n/]* | \s*[\r\n]+ | \s+(?!\S) | \s+
// cl100k_base: (CONTRACTION) | [^\r\n\p{L}\p{N}]?\p{L}+ | \p{N}{1,3} | ?[^\s\p{L}\p{N}]+[\r\n]* | \s*[\r\n]+
//   | \s+(?!\S) | \s+
// CONTRACTION: 's, 't, 're, 've, 'm, 'll, 'd, in either case.

// Character kinds of ASCII, as the patterns see them.
const UPPER = 1;
const LOWER = 2;
const DIGIT = 4;
const SPACE = 8; // \s
const NEWLINE = 16; // \r \n
const SLASH = 32;
const KIND = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if (c >= 0x41 && c <= 0x5a) KIND[c] = UPPER;
  else if (c >= 0x61 && c <= 0x7a) KIND[c] = LOWER;
  else if (c >= 0x30 && c <= 0x39) KIND[c] = DIGIT;
  else if ((c >= 0x09 && c <= 0x0d) || c === 0x20) KIND[c] = SPACE | (c === 0x0a || c === 0x0d ? NEWLINE : 0);
  else if (c === 0x2f) KIND[c] = SLASH;
}
const LETTER = UPPER | LOWER;
/** Not a letter, not a digit, not \r or \n: the optional first character of a word piece. */
const isPrefix = (k: number) => (k & (LETTER | DIGIT | NEWLINE)) === 0;
/** Not whitespace, not a letter, not a digit: punctuation and the like. */
const isPunct = (k: number) => (k & (LETTER | DIGIT | SPACE)) === 0;

/**
 * Kind of the character at i: its KIND, 0 past the end (nothing matches there), -1 when unknown. Besides ASCII,
 * the punctuation of General Punctuation (U+2010-2027, U+2030-205E: dashes, quotes, bullets, the ellipsis lro
 * itself writes) and the arrows (U+2190-21FF) are known: neither letters, digits nor spaces, like ASCII
 * punctuation.
 */
function kindAt(text: string, i: number): number {
  if (i >= text.length) return 0;
  const c = text.charCodeAt(i);
  if (c < 128) return KIND[c] | 128; // bit 7 marks "a character"
  return (c >= 0x2010 && c <= 0x2027) || (c >= 0x2030 && c <= 0x205e) || (c >= 0x2190 && c <= 0x21ff) ? 128 : -1;
}
const END = 0;
const NOT_ASCII = -1;

/** The end of a contraction ('s, 'T, 're, 'LL, ...) at i, 0 if there is none, -1 if it depends on non-ASCII. */
function contraction(text: string, i: number): number {
  if (text.charCodeAt(i) !== 0x27) return 0;
  const a = text.charCodeAt(i + 1) | 0x20; // NaN | 0x20 = 0x20 past the end
  if (a === 0x73 || a === 0x74 || a === 0x6d || a === 0x64) return i + 2; // s t m d
  if (a === 0x72 || a === 0x76) return (text.charCodeAt(i + 2) | 0x20) === 0x65 ? i + 3 : 0; // re ve
  if (a === 0x6c) return (text.charCodeAt(i + 2) | 0x20) === 0x6c ? i + 3 : 0; // ll
  return 0;
}

/** The end of the run of characters whose kind has one of the bits in `mask`, from i; -1 if it stops at non-ASCII. */
function run(text: string, i: number, mask: number): number {
  for (;;) {
    const k = kindAt(text, i);
    if (k === NOT_ASCII) return -1;
    if (k === END || (k & mask) === 0) return i;
    i++;
  }
}

/** Whitespace pieces (the last three alternatives of both patterns), from i where there is whitespace. */
function spaces(text: string, i: number): number {
  const w = run(text, i, SPACE);
  if (w < 0) return -1;
  // \s*[\r\n]+ : up to the last \r or \n of the run
  for (let p = w - 1; p >= i; p--) if (KIND[text.charCodeAt(p)] & NEWLINE) return p + 1;
  // \s+(?!\S) : the whole run at the end of the text, else all but its last character
  if (w >= text.length) return w;
  if (w - i >= 2) return w - 1;
  return w; // \s+
}

/** o200k_base: the end of the piece starting at i (i < text.length), or -1 when the regex must decide. */
export function o200kPieceEnd(text: string, i: number): number {
  const k = kindAt(text, i);
  if (k === NOT_ASCII) return -1;
  // letters, maybe after one prefix character
  const j = isPrefix(k) ? i + 1 : i;
  const u = run(text, j, UPPER);
  if (u < 0) return -1;
  const l = run(text, u, LOWER);
  if (l < 0) return -1;
  if (l > u || u > j) {
    // U*L+ (some lower case) or U+L* (upper case only): either way up to l, then a contraction
    const c = contraction(text, l);
    return c < 0 ? -1 : c || l;
  }
  if (k & DIGIT) return digits(text, i);
  return punctOrSpaces(text, i, k, SLASH | NEWLINE);
}

/** cl100k_base: the end of the piece starting at i (i < text.length), or -1 when the regex must decide. */
export function cl100kPieceEnd(text: string, i: number): number {
  const k = kindAt(text, i);
  if (k === NOT_ASCII) return -1;
  const c = contraction(text, i);
  if (c > 0) return c;
  const j = isPrefix(k) ? i + 1 : i;
  const l = run(text, j, LETTER);
  if (l < 0) return -1;
  if (l > j) return l;
  if (k & DIGIT) return digits(text, i);
  return punctOrSpaces(text, i, k, NEWLINE);
}

/** `\p{N}{1,3}` from i, where there is a digit; -1 if a fourth position short of three is outside ASCII. */
function digits(text: string, i: number): number {
  let e = i + 1;
  while (e < i + 3) {
    const k = kindAt(text, e);
    if (k === NOT_ASCII) return -1; // a digit of another script?
    if (!(k & DIGIT)) break;
    e++;
  }
  return e;
}

/** ` ?[^\s\p{L}\p{N}]+[tail]*` (tail: \r \n, and / for o200k), else the whitespace alternatives. */
function punctOrSpaces(text: string, i: number, k: number, tail: number): number {
  let p = i;
  if (text.charCodeAt(i) === 0x20) {
    const next = kindAt(text, i + 1);
    if (next === NOT_ASCII) return -1; // punctuation of another script?
    if (next !== END && isPunct(next & 127)) p = i + 1;
  }
  const first = p === i ? k : kindAt(text, p);
  if (isPunct(first & 127)) {
    let e = p + 1;
    for (;;) {
      const q = kindAt(text, e);
      if (q === NOT_ASCII) return -1;
      if (q === END || !isPunct(q & 127)) break;
      e++;
    }
    for (;;) {
      const q = kindAt(text, e);
      if (q <= 0 || (q & tail) === 0) return e; // the tail characters are all ASCII
      e++;
    }
  }
  if (k & SPACE) return spaces(text, i);
  return -1; // not reached for ASCII: every character is a letter, digit, punctuation or space
}
