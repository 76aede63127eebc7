// Turns js-tiktoken's rank lists into a binary hash table that lro's tokenizer maps in with one file read.
// js-tiktoken builds a Map of 200k joined strings at start-up (~600 ms); this table needs no construction.
// Layout (little endian), read by src/engines/ranks.ts:
//   "LROBPE1\n" | u32 n | u32 tableBits | u32 blobLen | u32 patLen | pat_str (padded to 4)
//   | u32 ranks[n] | u32 offsets[n+1] | u32 table[1 << tableBits] (token index + 1, 0 = empty) | blob
import { writeFileSync } from 'node:fs';

export const MAGIC = 'LROBPE1\n';

export function fnv1a(bytes, start, end) {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    h ^= bytes[i];
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export async function buildRanks(encoding, outFile) {
  const ranks = (await import(`js-tiktoken/ranks/${encoding}`)).default;
  const tokens = [];
  for (const line of ranks.bpe_ranks.split('\n')) {
    if (!line) continue;
    const [, offsetStr, ...encoded] = line.split(' ');
    const offset = Number.parseInt(offsetStr, 10);
    encoded.forEach((b64, i) => tokens.push([Buffer.from(b64, 'base64'), offset + i]));
  }
  const n = tokens.length;
  let tableBits = 1;
  while ((1 << tableBits) < n * 2) tableBits++;
  const tableSize = 1 << tableBits;
  const blobLen = tokens.reduce((s, [b]) => s + b.length, 0);
  const pat = Buffer.from(ranks.pat_str, 'utf8');
  const patPadded = (pat.length + 3) & ~3;

  const headerBytes = 8 + 16 + patPadded;
  const total = headerBytes + 4 * n + 4 * (n + 1) + 4 * tableSize + blobLen;
  const out = Buffer.alloc(total);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(n, 8);
  out.writeUInt32LE(tableBits, 12);
  out.writeUInt32LE(blobLen, 16);
  out.writeUInt32LE(pat.length, 20);
  pat.copy(out, 24);
  const rankView = new Uint32Array(out.buffer, out.byteOffset + headerBytes, n);
  const offView = new Uint32Array(out.buffer, out.byteOffset + headerBytes + 4 * n, n + 1);
  const table = new Uint32Array(out.buffer, out.byteOffset + headerBytes + 8 * n + 4, tableSize);
  const blobStart = headerBytes + 8 * n + 4 + 4 * tableSize;
  let pos = 0;
  const mask = tableSize - 1;
  tokens.forEach(([bytes, rank], i) => {
    rankView[i] = rank;
    offView[i] = pos;
    bytes.copy(out, blobStart + pos);
    pos += bytes.length;
    let slot = fnv1a(bytes, 0, bytes.length) & mask;
    while (table[slot] !== 0) slot = (slot + 1) & mask;
    table[slot] = i + 1;
  });
  offView[n] = pos;
  writeFileSync(outFile, out);
}
