// Counting lines is most of the cost of a grep that matches rarely (record numbers need every newline counted),
// so it runs 16 bytes at a time in a tiny WebAssembly SIMD module (newlines.wat, assembled; 10x a JS loop).

/** newlines.wat, assembled (test/search/newlines.test.ts checks these bytes against the source). */
export const NEWLINES_WASM = 'AGFzbQEAAAABBwFgAn9/AX8DAgEABQMBAAEHEgIGbWVtb3J5AgAFY291bnQAAAq+AQG7AQMBfwF7An8gAUEQayEFAkADQCAAIAVKDQH9DAAAAAAAAAAAAAAAAAAAAAAhA0EAIQQCQANAIAAgBUoNASAEQf8BTw0BIAMgAP0ABABBCv0P/SP9cSEDIABBEGohACAEQQFqIQQMAAsLIAP9ff1/IQMgAiAD/RsAIAP9GwFqIAP9GwIgA/0bA2pqaiECDAALCwJAA0AgACABTw0BIAAtAABBCkYEQCACQQFqIQILIABBAWohAAwACwsgAgs=';

/** Below this many bytes a JavaScript loop is cheaper than copying into the module's memory. */
const SMALL = 256;

// The few WebAssembly names used here (TypeScript's ES libraries do not declare them).
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
};
interface WasmMemory {
  buffer: ArrayBuffer;
  grow(pages: number): number;
}

let wasm: { memory: WasmMemory; count: (start: number, end: number) => number; view: Buffer } | null = null;

function instance(size: number): NonNullable<typeof wasm> {
  if (!wasm) {
    const module = new WebAssembly.Module(Buffer.from(NEWLINES_WASM, 'base64'));
    const exports = new WebAssembly.Instance(module).exports as { memory: WasmMemory; count: (s: number, e: number) => number };
    wasm = { memory: exports.memory, count: exports.count, view: Buffer.from(exports.memory.buffer) };
  }
  if (wasm.view.length < size) {
    wasm.memory.grow(Math.ceil((size - wasm.view.length) / 65536));
    wasm.view = Buffer.from(wasm.memory.buffer);
  }
  return wasm;
}

/** The number of \n bytes in data[from, to). */
export function countNewlines(data: Uint8Array, from = 0, to = data.length): number {
  if (to - from < SMALL) {
    let c = 0;
    for (let i = from; i < to; i++) if (data[i] === 0x0a) c++;
    return c;
  }
  const w = instance(to - from);
  w.view.set(data.subarray(from, to), 0);
  return w.count(0, to - from);
}
