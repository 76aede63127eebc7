// An upper bound of a text's tokens, without the vocabulary's rank table: that table is 2 to 4.3 MB, and reading
// it into new memory costs a process about 25 ms. A budget or an offload threshold that the bound already keeps
// needs no exact count: an output of 3 to 6 KB, or an input of 10 to 19 KB, is decided without the table.
//
// Why it is a bound. A piece of the pre-tokenizer (tokens never cross pieces) ends byte-pair merging as parts that
// are each a token, and no two neighbours of which join into a token (else they would have been merged). So its
// count is at most the most parts any split of the piece can have under those two rules, as far as they can be
// checked with the short tokens alone (every ASCII token of 2 to 4 bytes, dist/ranks/<encoding>.short.bin, 256 KB):
// a part of at most 4 bytes must be a short token, and two neighbours of at most 4 bytes together must not join
// into one. Longer parts are not checked; a part longer than 9 bytes never needs to be tried, as two parts of more
// than 4 bytes each would be more. On logs the bound is about 1.3 x the exact count, where a text's bytes are
// about 3 x.
//
// The kernel of the exact count (bpe.wat, `bound`) finds the pieces and their splits: in JavaScript, the splits of
// a 3 KB output made V8 compile them in the background (40 ms of CPU), and node waits for that before it exits.
// A text with a character outside ASCII, or longer than a window, gets its UTF-8 length (a token is at least a byte).
import type { BpeKernel } from './bpe-wasm.js';
import { kernelWithTable, WINDOW, type Encoding } from './tokenizer.js';

const MAGIC = 'LROSHT1\n';
/** The longest part a split needs to try (see above): more bytes than this many limits are over any limit. */
const LONG_PART = 9;

const kernels = new Map<Encoding, BpeKernel>();

/** A kernel holding the short tokens of a vocabulary (scripts/build-ranks.mjs buildShortTokens), made once. */
function boundKernel(encoding: Encoding): BpeKernel {
  let k = kernels.get(encoding);
  if (!k) {
    const name = `${encoding}.short.bin`;
    k = kernelWithTable(name);
    const bytes = k.table;
    if (bytes.length < 12 || bytes.toString('latin1', 0, 8) !== MAGIC) throw new Error(`token table ${name} is not an lro short-token table; run npm run build`);
    const bits = bytes.readUInt32LE(8);
    if (bytes.length !== 12 + 4 * 2 ** bits) throw new Error(`token table ${name} is truncated; run npm run build`);
    k.initShort(encoding === 'cl100k_base', new Uint32Array(bytes.buffer, bytes.byteOffset + 12, 2 ** bits), bits);
    kernels.set(encoding, k);
  }
  return k;
}

const NOT_ASCII = /[^\0-\x7f]/;

/**
 * At least the tokens of text in the encoding (Tokenizer.count), found without the rank table; or, when text is
 * too long to stay within `limit` anyway, some number above limit (a caller asks whether a text stays within one).
 */
export function tokenBound(text: string, encoding: Encoding = 'o200k_base', limit = Infinity): number {
  if (text.length > limit * LONG_PART) return text.length; // more parts than the limit, whatever the split
  if (text.length <= 1) return text.length;
  if (text.length > WINDOW || NOT_ASCII.test(text)) return Buffer.byteLength(text);
  const k = boundKernel(encoding);
  const bound = k.bound(k.load(text, 0, text.length));
  return bound < 0 ? Buffer.byteLength(text) : bound;
}
