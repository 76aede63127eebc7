// The token counting kernel (bpe.wat, assembled): the pre-tokenizer and the byte-pair merge of ASCII text, on
// its UTF-8 bytes, in one call per window of text; tokenizer.ts counts what it leaves (see BpeTokenizer.count).

import KERNEL from './bpe.wat';

/** bpe.wat, assembled by the build (test/tokens/bpe-wasm.test.ts checks these bytes against the source). */
export const BPE_WASM: string = KERNEL;

// The few WebAssembly names used here (TypeScript's ES libraries do not declare them).
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
};
interface Exports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  init(cl100k: number, offsets: number, table: number, mask: number, blob: number): void;
  initShort(cl100k: number, short: number, bits: number): void;
  bound(p: number, end: number): number;
  count(p: number, end: number, final: number): number;
  stopAt: { value: number };
  stopEnd: { value: number };
  why: { value: number };
}

/** Why count() stopped. */
export const STOP = { END: 0, NOT_ASCII: 1, MORE: 2, LONG: 3 } as const;

/** Where the rank table lies in the kernel's memory: after the kinds and the merge's arrays (bpe.wat). */
const TABLE = 4096;

let compiled: object | null = null;

/** One instance of the kernel: its memory holds a rank table, then a window of text. */
export class BpeKernel {
  private readonly x: Exports;
  /** Where the caller puts the rank table (tokenizer.ts RankTable reads it there too). */
  readonly table: Buffer;
  private readonly memory: Buffer;
  private readonly text: number;

  /** Room for a rank table of tableBytes and for the UTF-8 of windowChars UTF-16 units of text. */
  constructor(tableBytes: number, windowChars: number) {
    compiled ??= new WebAssembly.Module(Buffer.from(BPE_WASM, 'base64'));
    this.x = new WebAssembly.Instance(compiled).exports as Exports;
    this.text = (TABLE + tableBytes + 15) & ~15;
    const need = this.text + 3 * windowChars + 16;
    const pages = Math.ceil(need / 65536) - this.x.memory.buffer.byteLength / 65536;
    if (pages > 0) this.x.memory.grow(pages); // once: views of the memory stay valid
    this.memory = Buffer.from(this.x.memory.buffer);
    this.table = this.memory.subarray(TABLE, TABLE + tableBytes);
  }

  /** Points the kernel at the rank table's parts (views of this.table) and picks the pre-tokenizer. */
  init(cl100k: boolean, offsets: Uint32Array, table: Uint32Array, blob: Uint8Array): void {
    this.x.init(cl100k ? 1 : 0, offsets.byteOffset, table.byteOffset, table.length - 1, blob.byteOffset);
  }

  /**
   * Points the kernel at the short tokens (token-bound.ts: `keys`, a view of this.table, 2^bits of them) instead
   * of a rank table, for bound().
   */
  initShort(cl100k: boolean, keys: Uint32Array, bits: number): void {
    this.x.initShort(cl100k ? 1 : 0, keys.byteOffset, bits);
  }

  /** token-bound.ts's bound of the tokens of the loaded bytes [0, to), the whole text; -1 if it has a byte outside ASCII. */
  bound(to: number): number {
    return this.x.bound(this.text, this.text + to);
  }

  /** Puts text[start, end) where count() reads it, as UTF-8; returns its length in bytes. */
  load(text: string, start: number, end: number): number {
    return this.memory.write(text.slice(start, end), this.text, 'utf8');
  }

  /**
   * Counts the tokens of the loaded bytes [from, to) up to where the kernel stops (stopAt, why); final: the text
   * ends at `to` (else a piece that reaches it is left to the next window).
   */
  count(from: number, to: number, final: boolean): number {
    return this.x.count(this.text + from, this.text + to, final ? 1 : 0);
  }

  /** Where count() stopped, in the loaded bytes. */
  get stopAt(): number {
    return this.x.stopAt.value - this.text;
  }

  /** Why it stopped (STOP). */
  get why(): number {
    return this.x.why.value;
  }

  /** For STOP.LONG: where that piece ends, in the loaded bytes. */
  get stopEnd(): number {
    return this.x.stopEnd.value - this.text;
  }
}
