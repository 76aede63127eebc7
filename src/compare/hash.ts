// What a diff holds of two results instead of their records: 64-bit hashes (two 32-bit lanes) of keys and of
// records, in typed arrays, so two results of hundreds of megabytes are compared in tens of megabytes. A
// collision (two different records with the same 64 bits) would hide one change in about 10^19 pairs.

/** The two lanes of the last hash (hi, lo): written by hashBytes and hashString, read at once. */
export const HASH = new Uint32Array(2);

/** Hashes bytes into HASH: two multiply-xor lanes with different seeds, each finished as murmur3 finishes. */
export function hashBytes(b: Uint8Array, start = 0, end = b.length): void {
  let h1 = 0x9747b28c ^ (end - start);
  let h2 = 0x85ebca6b;
  for (let i = start; i < end; i++) {
    const c = b[i];
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 15);
  }
  HASH[0] = fmix(h1 ^ h2);
  HASH[1] = fmix(h2 + Math.imul(h1, 0x27d4eb2d));
}

/** Hashes a string's UTF-16 code units into HASH. */
export function hashString(s: string): void {
  let h1 = 0x9747b28c ^ s.length;
  let h2 = 0x85ebca6b;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 15);
  }
  HASH[0] = fmix(h1 ^ h2);
  HASH[1] = fmix(h2 + Math.imul(h1, 0x27d4eb2d));
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** HASH as one number of 53 bits (for a line's identity in a unified diff, kept in a Float64Array). */
export function hash53(): number {
  return (HASH[0] & 0x1fffff) * 0x100000000 + HASH[1];
}

/** A growing list of 32-bit integers (record numbers). */
export class IntList {
  private data = new Int32Array(64);
  length = 0;

  push(v: number): void {
    if (this.length === this.data.length) {
      const bigger = new Int32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = v;
  }

  at(i: number): number {
    return this.data[i];
  }
}

const SIDES = 2;

/**
 * Keys (by hash) → for each side, the hash of the value it had and the record it was in (0: absent). An open
 * addressing table in typed arrays: 32 bytes a slot, at most 3/4 full. The same key twice on one side keeps the
 * later value and record (a test's last status, a record listed twice).
 */
export class KeyTable {
  private cap = 1 << 10;
  size = 0;
  private keys = new Uint32Array(this.cap * 2);
  private values = new Uint32Array(this.cap * 2 * SIDES);
  private records = new Int32Array(this.cap * SIDES);

  /** Sets the value (vh, vl) of the key (kh, kl) on side 0 (A) or 1 (B), seen in `record` (1-based). */
  set(kh: number, kl: number, side: number, vh: number, vl: number, record: number): void {
    if ((this.size + 1) * 4 > this.cap * 3) this.grow();
    const slot = this.slot(kh, kl);
    if (this.records[slot * SIDES] === 0 && this.records[slot * SIDES + 1] === 0) {
      this.keys[slot * 2] = kh;
      this.keys[slot * 2 + 1] = kl;
      this.size++;
    }
    this.values[(slot * SIDES + side) * 2] = vh;
    this.values[(slot * SIDES + side) * 2 + 1] = vl;
    this.records[slot * SIDES + side] = record;
  }

  /** The slot of a key: where it is, or the empty slot where it goes. */
  private slot(kh: number, kl: number): number {
    const mask = this.cap - 1;
    for (let s = kl & mask; ; s = (s + 1) & mask) {
      if (this.records[s * SIDES] === 0 && this.records[s * SIDES + 1] === 0) return s;
      if (this.keys[s * 2] === kh && this.keys[s * 2 + 1] === kl) return s;
    }
  }

  private grow(): void {
    const { keys, values, records, cap } = this;
    this.cap = cap * 2;
    this.keys = new Uint32Array(this.cap * 2);
    this.values = new Uint32Array(this.cap * 2 * SIDES);
    this.records = new Int32Array(this.cap * SIDES);
    for (let s = 0; s < cap; s++) {
      if (records[s * SIDES] === 0 && records[s * SIDES + 1] === 0) continue;
      const to = this.slot(keys[s * 2], keys[s * 2 + 1]);
      this.keys.set(keys.subarray(s * 2, s * 2 + 2), to * 2);
      this.values.set(values.subarray(s * 2 * SIDES, (s + 1) * 2 * SIDES), to * 2 * SIDES);
      this.records.set(records.subarray(s * SIDES, (s + 1) * SIDES), to * SIDES);
    }
  }

  /** The record a key was seen in on a side (0: absent from it). */
  recordOf(kh: number, kl: number, side: number): number {
    return this.records[this.slot(kh, kl) * SIDES + side];
  }

  /** Whether a key's value on a side is (vh, vl). */
  valueIs(kh: number, kl: number, side: number, vh: number, vl: number): boolean {
    const v = (this.slot(kh, kl) * SIDES + side) * 2;
    return this.values[v] === vh && this.values[v + 1] === vl;
  }

  /**
   * Calls f for every key: its records on each side (0: absent), whether the two values are the same, the
   * low lanes of the values (a test's status code), and the key's hash.
   */
  forEach(f: (recordA: number, recordB: number, same: boolean, lowA: number, lowB: number, kh: number, kl: number) => void): void {
    for (let s = 0; s < this.cap; s++) {
      const a = this.records[s * SIDES];
      const b = this.records[s * SIDES + 1];
      if (a === 0 && b === 0) continue;
      const v = s * 2 * SIDES;
      const same = this.values[v] === this.values[v + 2] && this.values[v + 1] === this.values[v + 3];
      f(a, b, same, this.values[v + 1], this.values[v + 3], this.keys[s * 2], this.keys[s * 2 + 1]);
    }
  }
}

/**
 * A's records by key (hash) → the hash of the record and its number: 16 bytes a slot, at most 3/4 full and made
 * at A's size, so A's 1.7 million records of 200 MB take 35 MB. B's records are only looked up, each
 * marking the A record it matched as seen (its number made negative); a key only B has is not kept.
 */
export class SeenTable {
  private cap: number;
  size = 0;
  private keys: Uint32Array;
  private values: Uint32Array;
  private records: Int32Array;

  /** `expected`: how many keys A has at most (its record count), so the table is made once at its size. */
  constructor(expected = 0) {
    this.cap = Math.max(1024, Math.ceil((expected * 4) / 3) + 1);
    this.keys = new Uint32Array(this.cap * 2);
    this.values = new Uint32Array(this.cap);
    this.records = new Int32Array(this.cap);
  }

  /** Adds A's record `n` with key (kh, kl) and value hash v; returns false if the key was there (then replaced). */
  add(kh: number, kl: number, v: number, n: number): boolean {
    if ((this.size + 1) * 4 > this.cap * 3) this.grow();
    const s = this.slot(kh, kl);
    const fresh = this.records[s] === 0;
    if (fresh) {
      this.keys[s * 2] = kh;
      this.keys[s * 2 + 1] = kl;
      this.size++;
    }
    this.values[s] = v;
    this.records[s] = n;
    return fresh;
  }

  /** Whether A's value was the one the last see() was given (set by see(); no object made per record). */
  same = false;

  /**
   * Looks a key of B up: 0 when A has none, else A's record number, negative when an earlier record of B had
   * the key; marks it seen, and sets `same`.
   */
  see(kh: number, kl: number, v: number): number {
    const s = this.slot(kh, kl);
    const r = this.records[s];
    this.same = r !== 0 && this.values[s] === v;
    if (r > 0) this.records[s] = -r;
    return r;
  }

  /** A's records no record of B matched, in record order. */
  unseen(): Int32Array {
    let n = 0;
    for (let s = 0; s < this.cap; s++) if (this.records[s] > 0) n++;
    const out = new Int32Array(n);
    n = 0;
    for (let s = 0; s < this.cap; s++) if (this.records[s] > 0) out[n++] = this.records[s];
    return out.sort();
  }

  /** Where a key is or goes: linear probing from its hash mapped onto [0, cap) (any cap, not a power of two). */
  private slot(kh: number, kl: number): number {
    const cap = this.cap;
    // the high bits choose the slot: mixed first, so that keys differing in low bits only spread out too
    const mixed = Math.imul(kl ^ Math.imul(kh, 0x85ebca6b), 0x9e3779b1) >>> 0;
    for (let s = Math.floor(mixed * (cap / 4294967296)); ; s = s + 1 === cap ? 0 : s + 1) {
      if (this.records[s] === 0) return s;
      if (this.keys[s * 2] === kh && this.keys[s * 2 + 1] === kl) return s;
    }
  }

  private grow(): void {
    const { keys, values, records, cap } = this;
    this.cap = cap * 2;
    this.keys = new Uint32Array(this.cap * 2);
    this.values = new Uint32Array(this.cap);
    this.records = new Int32Array(this.cap);
    for (let s = 0; s < cap; s++) {
      if (records[s] === 0) continue;
      const to = this.slot(keys[s * 2], keys[s * 2 + 1]);
      this.keys[to * 2] = keys[s * 2];
      this.keys[to * 2 + 1] = keys[s * 2 + 1];
      this.values[to] = values[s];
      this.records[to] = records[s];
    }
  }
}
