// JSON lines checked 16 bytes at a time (json.wat, assembled): whether each line is one JSON value, as JSON.parse
// would say, without building the value. For JSONL input this replaces a JSON.parse per line, which cost most of
// an offload's time and filled the heap with objects thrown away at once.

import KERNEL from './json.wat';

/** json.wat, assembled by the build (test/format/json-simd.test.ts checks these bytes against the source). */
export const JSON_WASM: string = KERNEL;

const DATA = 65536;

// The few WebAssembly names used here (TypeScript's ES libraries do not declare them).
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
};
interface Exports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  value(p: number, end: number): number;
  lines(p: number, end: number): number;
}

let compiled: object | null = null;

/** One instance of the checker and its memory; load() a region of lines, then ask about them. */
export class JsonLineChecker {
  private readonly x: Exports;
  private view: Buffer;

  constructor() {
    compiled ??= new WebAssembly.Module(Buffer.from(JSON_WASM, 'base64'));
    this.x = new WebAssembly.Instance(compiled).exports as Exports;
    this.view = Buffer.from(this.x.memory.buffer);
  }

  /** Copies bytes[0, end) (valid UTF-8) in, for the questions below (positions are relative to bytes). */
  load(bytes: Uint8Array, end: number): void {
    if (DATA + end > this.view.length) {
      this.x.memory.grow(Math.ceil((DATA + end - this.view.length) / 65536));
      this.view = Buffer.from(this.x.memory.buffer);
    }
    this.view.set(bytes.subarray(0, end), DATA);
  }

  /**
   * From `start` (a line start), the lines that are each one JSON value: returns the start of the first line
   * that is not (or that nests too deep to tell: ask JSON.parse), or end; and how many lines were values.
   */
  values(start: number, end: number): { stop: number; count: number } {
    const stop = this.x.lines(DATA + start, DATA + end) - DATA;
    return { stop, count: this.view.readInt32LE(0) };
  }

  /** Whether [start, end) is one JSON value: true, false, or null when it nests too deep to tell. */
  isValue(start: number, end: number): boolean | null {
    const r = this.x.value(DATA + start, DATA + end);
    return r < 0 ? null : r === 1;
  }
}
