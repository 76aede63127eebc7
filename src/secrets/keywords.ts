// The keyword prefilter: one pass over the bytes finds, for each line, which rules have one of their keywords on
// it (case-insensitive, as gitleaks lowercases the text before its Aho–Corasick search), so a rule's regex runs
// only on the lines that can match. The Aho–Corasick automaton is built with the rules (scripts/build-keywords.mjs)
// as a full transition table; its loop (one table load per byte) runs in a tiny WebAssembly module (keywords-kernel.wat).
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { KEYWORDS_WASM } from './keywords-wasm.js';

// The few WebAssembly names used here (TypeScript's ES libraries do not declare them).
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
};
interface WasmExports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  state: { value: number };
  scan(delta: number, out: number, first: number, p: number, end: number, hits: number): number;
}

/** Where the transition table starts in the file, and so in the module's memory (after 4 counts). */
const DELTA_AT = 16;

/** Bytes run through the module at a time (each may record a hit of 8 bytes). */
const PIECE = 64 << 10;

/**
 * A line with keywords on it: its bounds, the output sets seen there (possibly repeated), and every hit as a
 * (position of the keyword's last byte, output set) pair, flat (null when not known). The arrays are reused for
 * the next line: a visitor uses them before it returns.
 */
export type LineVisitor = (from: number, to: number, sets: number[], hits: number[] | null) => boolean;

export class KeywordAutomaton {
  /** delta[state * 256 + byte] = next state (read by the module, and by JavaScript for short texts). */
  private readonly delta: Uint16Array;
  /** out[state] = index into `sets` of the rules whose keyword ends here, or -1. */
  readonly out: Int32Array;
  /** Rule indices per output set. */
  readonly sets: Int32Array[];
  private readonly wasm: { x: WasmExports; mem: Uint8Array; hits: Int32Array; input: number; hitsAt: number; outAt: number };

  /** States from this one on have an output. */
  private readonly firstOutput: number;
  /** Per output set: whether it holds a trigger below `gateLimit` (set with gateOutputsBelow). */
  private gates: Uint8Array | null = null;

  /**
   * Lines are reported only when one of their hits is an output below `limit` (a rule's keyword); outputs from
   * `limit` on (literals the rules are tried at) ride along in `hits` but report no line by themselves.
   */
  gateOutputsBelow(limit: number): void {
    this.gates = Uint8Array.from(this.sets, (set) => (set.some((x) => x < limit) ? 1 : 0));
  }

  /**
   * Loads the automaton built by scripts/build-keywords.mjs (its file layout is described there) from `file`, read
   * straight into the module's memory, which then holds the file as it is (the transition table 16 bytes in), the
   * input and the hits: the tables are views of it, not copies (each copy of its 0.9 MB was fresh memory, about
   * 3 ms of a stored input's offload where a page costs what it does in a small VM).
   */
  constructor(file: string) {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      const x = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(KEYWORDS_WASM, 'base64'))).exports as WasmExports;
      const input = align(size);
      const hitsAt = align(input + PIECE);
      const need = hitsAt + PIECE * 8;
      x.memory.grow(Math.ceil(Math.max(0, need - x.memory.buffer.byteLength) / 65536)); // once: the views stay valid
      const mem = new Uint8Array(x.memory.buffer);
      for (let at = 0; at < size; ) {
        const got = readSync(fd, mem, at, size - at, at);
        if (got === 0) throw new Error(`${file} is truncated; run npm run build`);
        at += got;
      }
      const head = new Uint32Array(x.memory.buffer, 0, 4);
      const [n, setCount, entries] = head;
      this.firstOutput = head[3];
      const deltaBytes = (n * 256 * 2 + 3) & ~3;
      this.delta = new Uint16Array(x.memory.buffer, DELTA_AT, n * 256);
      const outAt = DELTA_AT + deltaBytes;
      this.out = new Int32Array(x.memory.buffer, outAt, n);
      const startsAt = outAt + n * 4;
      const starts = new Uint32Array(x.memory.buffer, startsAt, setCount + 1);
      const rules = new Int32Array(x.memory.buffer, startsAt + (setCount + 1) * 4, entries);
      this.sets = [];
      for (let i = 0; i < setCount; i++) this.sets.push(rules.subarray(starts[i], starts[i + 1]));
      this.wasm = { x, mem, hits: new Int32Array(x.memory.buffer, hitsAt, PIECE * 2), input, hitsAt, outAt };
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Runs over buf[start, end) (start at a line start) and calls `line(lineStart, lineEnd, sets)` for every line
   * (ended by `\n`, or by `end` when `final`) on which some keyword occurs (every line when `all`). `line` returns
   * true to stop there: the result is then that line's start; otherwise it is where the last complete line ended
   * (the start of an unfinished one, or `end` when `final`).
   */
  scanLines(buf: Uint8Array, start: number, end: number, final: boolean, all: boolean, line: LineVisitor): number {
    const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
    const stopAt = final ? end : b.lastIndexOf(0x0a, end - 1) + 1; // lines ending before this are complete
    if (all) {
      // every line (slow path, for rules without keywords)
      for (let from = start; from < stopAt; ) {
        const nl = b.indexOf(0x0a, from);
        const le = nl < 0 || nl >= stopAt ? stopAt : nl;
        if (line(from, le, this.setsIn(b.toString('latin1', from, le)), null)) return from;
        from = le + 1;
      }
      return stopAt;
    }
    const w = this.wasm;
    let ls = -1; // the line the hits so far are on
    let le = -1;
    // reused for every line: a visitor must not keep them
    const sets: number[] = [];
    const hits: number[] = [];
    let gated = false; // a keyword on the line
    const gates = this.gates;
    w.x.state.value = 0;
    for (let p = start; p < stopAt; p += PIECE) {
      const q = Math.min(stopAt, p + PIECE);
      w.mem.set(b.subarray(p, q), w.input);
      const n = w.x.scan(DELTA_AT, w.outAt, this.firstOutput, w.input, w.input + (q - p), w.hitsAt);
      for (let k = 0; k < n; k++) {
        const pos = p + (w.hits[2 * k] - w.input);
        const set = w.hits[2 * k + 1];
        if (pos > le) {
          // a hit on a new line: report the last one
          if (ls >= 0 && gated && line(ls, le, sets, hits)) return ls;
          ls = Math.max(start, b.lastIndexOf(0x0a, pos) + 1);
          const nl = b.indexOf(0x0a, pos);
          le = nl < 0 || nl >= stopAt ? stopAt : nl;
          sets.length = 0;
          hits.length = 0;
          gated = false;
        }
        if (!gated && (!gates || gates[set] === 1)) gated = true;
        if (sets[sets.length - 1] !== set) sets.push(set);
        hits.push(pos, set);
      }
    }
    if (ls >= 0 && gated && line(ls, le, sets, hits)) return ls;
    return stopAt;
  }

  /** The output sets seen anywhere in text (a latin1 string), for one text scanned as a whole. */
  setsIn(text: string): number[] {
    const delta = this.delta;
    const out = this.out;
    const hits: number[] = [];
    let s = 0;
    for (let i = 0; i < text.length; i++) {
      s = delta[(s << 8) | (text.charCodeAt(i) & 0xff)];
      const o = out[s];
      if (o >= 0 && !hits.includes(o)) hits.push(o);
    }
    return hits;
  }
}

const align = (n: number) => (n + 7) & ~7;
