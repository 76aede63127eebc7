// Turns js-tiktoken's rank lists into a binary hash table that lro's tokenizer maps in with one file read.
// js-tiktoken builds a Map of 200k joined strings at start-up (~600 ms); this table needs no construction.
// Layout (little endian), read by src/tokens/tokenizer.ts (RankTable) and src/tokens/bpe.wat:
//   "LROBPE2\n" | u32 n | u32 tableBits | u32 blobLen | u32 patLen | pat_str (padded to 4)
//   | u32 offsets[n+1] | u32 table[1 << tableBits] (rank + 1, 0 = empty) | blob
// Token r (its rank) is blob[offsets[r], offsets[r+1]); n is the highest rank + 1, and a rank no token has would be
// an empty token, which no lookup matches.
import { writeFileSync } from 'node:fs';

export const MAGIC = 'LROBPE2\n';

export function fnv1a(bytes, start, end) {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    h ^= bytes[i];
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The tokens of a vocabulary, as [bytes, rank]. */
async function vocabulary(encoding) {
  const ranks = (await import(`js-tiktoken/ranks/${encoding}`)).default;
  const tokens = [];
  for (const line of ranks.bpe_ranks.split('\n')) {
    if (!line) continue;
    const [, offsetStr, ...encoded] = line.split(' ');
    const offset = Number.parseInt(offsetStr, 10);
    encoded.forEach((b64, i) => tokens.push([Buffer.from(b64, 'base64'), offset + i]));
  }
  return { ranks, tokens };
}

export async function buildRanks(encoding, outFile) {
  const { ranks, tokens } = await vocabulary(encoding);
  tokens.sort((a, b) => a[1] - b[1]);
  const n = tokens[tokens.length - 1][1] + 1;
  let tableBits = 1;
  while ((1 << tableBits) < tokens.length * 2) tableBits++;
  const tableSize = 1 << tableBits;
  const blobLen = tokens.reduce((s, [b]) => s + b.length, 0);
  const pat = Buffer.from(ranks.pat_str, 'utf8');
  const patPadded = (pat.length + 3) & ~3;

  const headerBytes = 8 + 16 + patPadded;
  const total = headerBytes + 4 * (n + 1) + 4 * tableSize + blobLen;
  const out = Buffer.alloc(total);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(n, 8);
  out.writeUInt32LE(tableBits, 12);
  out.writeUInt32LE(blobLen, 16);
  out.writeUInt32LE(pat.length, 20);
  pat.copy(out, 24);
  const offView = new Uint32Array(out.buffer, out.byteOffset + headerBytes, n + 1);
  const table = new Uint32Array(out.buffer, out.byteOffset + headerBytes + 4 * (n + 1), tableSize);
  const blobStart = headerBytes + 4 * (n + 1) + 4 * tableSize;
  let pos = 0;
  let next = 0; // the next rank to give an offset
  const mask = tableSize - 1;
  for (const [bytes, rank] of tokens) {
    while (next <= rank) offView[next++] = pos; // (ranks without a token: empty)
    bytes.copy(out, blobStart + pos);
    pos += bytes.length;
    let slot = fnv1a(bytes, 0, bytes.length) & mask;
    while (table[slot] !== 0) slot = (slot + 1) & mask;
    table[slot] = rank + 1;
  }
  offView[n] = pos;
  writeFileSync(outFile, out);
}

// The short tokens of a vocabulary, for src/tokens/token-bound.ts: every token of 2 to SHORT_MAX ASCII bytes, as a
// key (its bytes, 7 bits each, and its length above them) in an open-addressing table read with one small file read.
// Layout (little endian): "LROSHT1\n" | u32 tableBits | u32 table[1 << tableBits] (a key, 0 = empty)
export const SHORT_MAGIC = 'LROSHT1\n';
export const SHORT_MAX = 4;

/** The key of bytes[start, end) (2 to SHORT_MAX ASCII bytes); token-bound.ts computes the same. */
export function shortKey(bytes, start, end) {
  let k = end - start;
  for (let i = start; i < end; i++) k = (k << 7) | bytes[i];
  return k >>> 0;
}

/** The slot a key hashes to, in a table of 1 << bits slots (token-bound.ts: the same). */
export const shortSlot = (key, bits) => Math.imul(key, 0x9e3779b1) >>> (32 - bits);

export async function buildShortTokens(encoding, outFile) {
  const { tokens } = await vocabulary(encoding);
  const keys = tokens
    .map(([b]) => b)
    .filter((b) => b.length >= 2 && b.length <= SHORT_MAX && b.every((c) => c < 0x80))
    .map((b) => shortKey(b, 0, b.length));
  let bits = 1;
  while (1 << bits < keys.length * 1.6) bits++; // at most 5/8 full
  const out = Buffer.alloc(12 + 4 * (1 << bits));
  out.write(SHORT_MAGIC, 0, 'latin1');
  out.writeUInt32LE(bits, 8);
  const table = new Uint32Array(out.buffer, out.byteOffset + 12, 1 << bits);
  const mask = (1 << bits) - 1;
  for (const key of keys) {
    let slot = shortSlot(key, bits);
    while (table[slot] !== 0) slot = (slot + 1) & mask;
    table[slot] = key;
  }
  writeFileSync(outFile, out);
}
