// Block hashes: a result's stored records cut into blocks of a fixed size from record 1's first byte, each hashed,
// and line 1 itself sealed by a hash, all kept in the header's `blocks` member. A reader of part of a result (a
// remote object's start or end, fetched by a Range GET) checks the blocks it uses and the header it numbers records
// by, without the rest; a whole read is checked by the header's sha256 as before.
//
// A block's hash is sha256 over the sha256 digests of its 1 MB leaves, cut to 12 bytes: the writer hashes leaves as
// records stream through it and picks the block size (a power of two of leaves) only at the end, the smallest whose
// hashes fit the room line 1 has left, so a header never outgrows its slot for them (a result up to 1 GB: 1 MB
// blocks in the room offload-store reserves; larger ones get larger blocks).
import { createRequire } from 'node:module';
import { FormatError } from './format-error.js';

/** The unit the writer hashes: a block is a power of two of leaves. */
export const LEAF = 1 << 20;
/** Bytes of a block's hash kept (96 bits): 16 base64 characters. */
const HASH_BYTES = 12;
const HASH_CHARS = 16;
/** Blocks of LEAF bytes each, as many as this room in line 1 holds: 1,024 (1 GB of records), with the member's own. */
export const BLOCKS_ROOM = 1024 * HASH_CHARS + 160;

/** The header's `blocks` member: block size, the records' bytes, line 1's seal and the blocks' hashes (base64). */
export interface Blocks {
  size: number;
  bytes: number;
  head: string;
  hashes: string;
}

type Crypto = typeof import('node:crypto');
let cryptoModule: Crypto | null = null;
/** node:crypto, loaded when a hash is first needed: a local read that checks no block does not pay for it. */
const crypto = (): Crypto => (cryptoModule ??= createRequire(import.meta.url)('node:crypto') as Crypto);

/** Hashes record bytes as they stream, a leaf at a time: 32 bytes per MB are kept. */
export class LeafHasher {
  private leaves: Buffer[] = [];
  private hash: import('node:crypto').Hash | null = null;
  private inLeaf = 0;
  bytes = 0;

  update(b: Uint8Array): void {
    let at = 0;
    while (at < b.length) {
      const n = Math.min(LEAF - this.inLeaf, b.length - at);
      (this.hash ??= crypto().createHash('sha256')).update(b.subarray(at, at + n));
      this.inLeaf += n;
      at += n;
      if (this.inLeaf === LEAF) this.endLeaf();
    }
    this.bytes += b.length;
  }

  private endLeaf(): void {
    this.leaves.push(this.hash!.digest());
    this.hash = null;
    this.inLeaf = 0;
  }

  /** The leaves' digests, the last (shorter) one included. */
  digests(): Buffer[] {
    if (this.inLeaf > 0) this.endLeaf();
    return this.leaves;
  }
}

/** A block's hash from its leaves' digests. */
function blockHash(leaves: Buffer[]): Buffer {
  const h = crypto().createHash('sha256');
  for (const l of leaves) h.update(l);
  return h.digest().subarray(0, HASH_BYTES);
}

/** The member as it is written (`"head"` a placeholder until sealHeader): JSON without its key. */
function memberText(size: number, bytes: number, hashes: string): string {
  return JSON.stringify({ size, bytes, head: SEAL_PLACEHOLDER, hashes });
}

const SEAL_PLACEHOLDER = 'A'.repeat(HASH_CHARS);

/**
 * The `blocks` member's text for records hashed by `hasher`, with the smallest block size whose text fits `room`
 * characters (any size when room is Infinity); null when not even one block's does.
 */
export function blocksMember(hasher: LeafHasher, room: number): string | null {
  const leaves = hasher.digests();
  for (let per = 1; ; per *= 2) {
    const count = Math.ceil(leaves.length / per);
    const length = memberText(per * LEAF, hasher.bytes, '').length + count * HASH_CHARS;
    if (length <= room) {
      const hashes: Buffer[] = [];
      for (let i = 0; i < leaves.length; i += per) hashes.push(blockHash(leaves.slice(i, i + per)));
      return memberText(per * LEAF, hasher.bytes, Buffer.concat(hashes).toString('base64'));
    }
    if (count <= 1) return null;
  }
}

/**
 * The header line's own hash: of its bytes (without the slot's padding) with the seal's value as the placeholder,
 * and a MAC (format/mac.ts: the member just before `blocks`) as its own, as the MAC is made after the seal.
 */
function headHash(line: Buffer, at: number): string {
  const h = crypto().createHash('sha256');
  const mac = macValueAt(line, line.lastIndexOf(BLOCKS_MEMBER, at));
  if (mac >= 0) {
    h.update(line.subarray(0, mac));
    h.update(MAC_PLACEHOLDER);
    h.update(line.subarray(mac + MAC_CHARS, at));
  } else h.update(line.subarray(0, at));
  h.update(SEAL_PLACEHOLDER);
  h.update(line.subarray(at + HASH_CHARS, trimmedEnd(line)));
  return h.digest().subarray(0, HASH_BYTES).toString('base64');
}

/** How the `blocks` member begins, as the writer adds it. */
const BLOCKS_MEMBER = ',"blocks":{"size":';
/** The MAC's member (format/mac.ts): HMAC-SHA256 in base64 without padding, right before `blocks` or the end. */
export const MAC_MEMBER = ',"mac":"';
export const MAC_CHARS = 43;
export const MAC_PLACEHOLDER = 'A'.repeat(MAC_CHARS);

/**
 * Where the MAC's value starts when `,"mac":"<43 characters>"` ends at `end` (where `blocks` begins, or a listed
 * line's closing brace); else -1. Only there: a `mac` key elsewhere (in `meta`) is no MAC.
 */
export function macValueAt(line: Buffer, end: number): number {
  const at = end - 1 - MAC_CHARS;
  const start = at - MAC_MEMBER.length;
  if (start < 0 || line[end - 1] !== 0x22 || line.toString('latin1', start, at) !== MAC_MEMBER) return -1;
  return at;
}

/** The end of line 1 without the spaces that pad it to its slot. */
function trimmedEnd(line: Buffer): number {
  let end = line.length;
  while (end > 0 && line[end - 1] === 0x20) end--;
  return end;
}

/** Line 1 with the `blocks` member's seal filled in (its placeholder is the line's last). */
export function sealHeader(json: string): string {
  const line = Buffer.from(json, 'utf8');
  const mark = `"head":"${SEAL_PLACEHOLDER}"`;
  const at = line.lastIndexOf(mark) + '"head":"'.length;
  return `${json.slice(0, json.lastIndexOf(mark))}"head":"${headHash(line, at)}"${json.slice(json.lastIndexOf(mark) + mark.length)}`;
}

/** What a reader of part of a result is told when a block or the header is not what was stored. */
export class BlockMismatch extends FormatError {}

/** Checks the header's `blocks` member for its shape; a string saying what is wrong, or null. */
export function blocksProblem(b: unknown): string | null {
  if (typeof b !== 'object' || b === null) return 'is not an object';
  const { size, bytes, head, hashes } = b as Record<string, unknown>;
  if (!Number.isSafeInteger(size) || (size as number) < LEAF || (size as number) % LEAF !== 0) return 'has no block size';
  if (!Number.isSafeInteger(bytes) || (bytes as number) < 0) return 'has no byte count';
  if (typeof head !== 'string' || head.length !== HASH_CHARS) return 'has no seal';
  const count = Math.ceil((bytes as number) / (size as number));
  if (typeof hashes !== 'string' || hashes.length !== count * HASH_CHARS) return 'has not one hash per block';
  return null;
}

/**
 * Checks line 1 against its seal, and the object's size against the records' bytes it gives (`recordsOffset`: just
 * after line 1). Throws BlockMismatch naming what differs.
 */
export function checkHeaderSeal(line: Buffer, b: Blocks, size: number): void {
  const mark = Buffer.from(`"head":"${b.head}"`);
  const at = line.lastIndexOf(mark);
  if (at < 0 || headHash(line, at + '"head":"'.length) !== b.head) throw new BlockMismatch('has a header that is not the one stored (its seal does not match)');
  const expected = line.length + 1 + b.bytes;
  if (size !== expected) {
    const how = size < expected ? 'is shorter' : 'is longer';
    throw new BlockMismatch(`${how} than stored (${size} bytes, its header says ${expected})`);
  }
}

/** The blocks (first, last: 0-based) holding record bytes start..end (offsets from record 1's first byte). */
export function blocksOver(b: Blocks, start: number, end: number): { first: number; last: number } {
  return { first: Math.floor(start / b.size), last: Math.max(Math.floor(start / b.size), Math.ceil(end / b.size) - 1) };
}

/** Where block i is among the record bytes: [start, end). */
export function blockSpan(b: Blocks, i: number): { start: number; end: number } {
  return { start: i * b.size, end: Math.min(b.bytes, (i + 1) * b.size) };
}

/** The digest of one leaf (up to LEAF bytes) of a block, for checkLeaves. */
export function leafDigest(data: Uint8Array): Buffer {
  return crypto().createHash('sha256').update(data).digest();
}

/**
 * Whether block i is the bytes whose leaves' digests are `leaves` (`length` bytes in all); throws BlockMismatch
 * naming the block when it is not. A reader can hash a large block a leaf at a time.
 */
export function checkLeaves(b: Blocks, i: number, leaves: Buffer[], length: number): void {
  const { start, end } = blockSpan(b, i);
  if (length !== end - start) throw new BlockMismatch(`block ${i + 1} has ${length} bytes, not the ${end - start} stored`);
  const want = Buffer.from(b.hashes.slice(i * HASH_CHARS, (i + 1) * HASH_CHARS), 'base64');
  if (!blockHash(leaves).equals(want)) {
    throw new BlockMismatch(`block ${i + 1} of ${Math.ceil(b.bytes / b.size)} (bytes ${start}-${end} of its records) is not what was stored`);
  }
}

/** Whether `data` is block i's bytes (whole); throws BlockMismatch naming the block when it is not. */
export function checkBlock(b: Blocks, i: number, data: Uint8Array): void {
  const leaves: Buffer[] = [];
  for (let at = 0; at < data.length; at += LEAF) leaves.push(leafDigest(data.subarray(at, Math.min(data.length, at + LEAF))));
  checkLeaves(b, i, leaves, data.length);
}

/**
 * Checks every whole block inside `data`, the record bytes from offset `at` (from record 1's first byte); returns
 * the part of `data` they cover (from the first whole block's start to the last one's end), or null when none is
 * whole. A block cut by either end of `data` is not checked and not returned.
 */
export function checkedBlocks(b: Blocks, at: number, data: Uint8Array): { start: number; end: number } | null {
  const first = Math.ceil(at / b.size);
  let i = first;
  for (; ; i++) {
    const { start, end } = blockSpan(b, i);
    if (start >= b.bytes || end > at + data.length) break;
    checkBlock(b, i, data.subarray(start - at, end - at));
  }
  if (i === first) return null;
  return { start: blockSpan(b, first).start, end: blockSpan(b, i - 1).end };
}
