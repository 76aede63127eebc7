// Text records 16 bytes at a time (escape.wat, assembled): lines of valid UTF-8 become JSON string records with
// exactly the escapes of escape.ts, about ten times as fast as a JavaScript loop over the bytes.

import KERNEL from './escape.wat';

/** escape.wat, assembled by the build (test/format/escape-simd.test.ts checks these bytes against the source). */
export const ESCAPE_WASM: string = KERNEL;

const IN = 65536;

// The few WebAssembly names used here (TypeScript's ES libraries do not declare them).
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
};
interface Exports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  records(src: number, end: number, dst: number, crlf: number): number;
}

let compiled: object | null = null;

/** What records() made: the records (a view, valid until the next call), how many, and the input they used. */
export interface Records {
  bytes: Buffer;
  count: number;
  /** Input bytes turned into records: all of them, or up to the line that ends with a bare \n (crlf). */
  used: number;
}

/** One instance of the kernel and its memory (input, then room for the output). */
export class TextRecordKernel {
  private readonly x: Exports;
  private view: Buffer;

  constructor() {
    compiled ??= new WebAssembly.Module(Buffer.from(ESCAPE_WASM, 'base64'));
    this.x = new WebAssembly.Instance(compiled).exports as Exports;
    this.view = Buffer.from(this.x.memory.buffer);
  }

  /**
   * The records of the lines in lines[0, end) (valid UTF-8, end just after a \n). With crlf a line ends with
   * \r\n; the work stops before a line that ends with a bare \n.
   */
  records(lines: Uint8Array, end: number, crlf: boolean): Records {
    const out = IN + end;
    const need = out + end * 7 + 64; // 6 bytes per escaped byte, 3 per line, at worst
    if (need > this.view.length) {
      this.x.memory.grow(Math.ceil((need - this.view.length) / 65536));
      this.view = Buffer.from(this.x.memory.buffer);
    }
    this.view.set(lines.subarray(0, end), IN);
    const outEnd = this.x.records(IN, IN + end, out, crlf ? 1 : 0);
    return { bytes: this.view.subarray(out, outEnd), count: this.view.readInt32LE(0), used: this.view.readInt32LE(4) - IN };
  }
}
