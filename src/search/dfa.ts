// lro's own regex engine for `lro grep`: the pattern's NFA (nfa.ts) run as a DFA built lazily over byte classes,
// as ripgrep's regex-automata and RE2 do, so a pattern it takes is matched in time linear in the text by
// construction (no backtracking, nothing to watch over). The DFA answers one question per record, whether its
// text matches; where, when it is printed, is left to the JavaScript regex on that one record.
//
// It walks the stored bytes of text records (`"text"\n`, search/needles.ts tells why they are the text's bytes
// but for escapes). The records' framing is in the automaton itself: state 0 is "before a record" (its quote
// leads to the pattern's start state, `^` holding), a state of the pattern meets the closing quote as the end of
// the text (`$` holding) and goes to a match or to state 1, "rest of a record" (its newline back to state 0). A
// backslash (an escape: the stored bytes are not the text there), a newline or quote out of place, is a record
// for JavaScript to decide: the walk stops there as it stops on a match. The walk itself (dfa.wat) is a table
// lookup a byte; a transition not known yet stops it, and this module adds the state (subset construction on
// demand). The states are cached in a bounded table: when it is full it is cleared and the walk goes on. The
// state between attempts (nothing of the pattern started) is accelerated: the walk skips to the next of the few
// bytes that leave it, 16 bytes at a time (see dfa.wat).
import type { Pattern } from '@eslint-community/regexpp/ast';
import { BYTE, compileNfa, LINE_END, LINE_START, MATCH, type Nfa, SPLIT } from './nfa.js';
import KERNEL from './dfa.wat';

/** dfa.wat, assembled by the build. */
export const DFA_WASM: string = KERNEL;

/** What run() stops for (next states below 0). */
export const UNKNOWN = -1;
export const MATCHED = -2;
export const FOR_JS = -3;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;

/** Layout of the kernel's memory (see dfa.wat). */
const SLOTS = 1024;
/** The bytes that leave the accelerated state, as four nibble tables (see dfa.wat). */
const ACCEL = 1040;
/** A state left on more byte values than this is not accelerated (skipping would stop at most bytes). */
const MAX_ACCEL = 160;
const TABLE = 4096;
/** The table's size: the states cached (rows of C i32) before it is cleared. */
export const TABLE_BYTES = 2 << 20;
/** The data to walk is copied here (after the table). */
const DATA = TABLE + TABLE_BYTES;
const MAX_STATES = 10_000;

// The few WebAssembly names used here (TypeScript's ES libraries do not declare them).
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
};
interface Exports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  run(pos: number, end: number, s: number, acc: number): number;
}

let compiled: object | null = null;

/** A DFA state: the NFA states it stands for (sorted) and whether it is the start of a text. */
interface DState {
  set: Int32Array;
  atStart: boolean;
}

export class LazyDfa {
  private readonly x: Exports;
  private view: Uint8Array;
  private table: Int32Array;
  private slots: Int32Array;
  /** Byte -> class; a representative byte of each class. */
  private readonly classOf = new Uint8Array(256);
  private readonly rep: number[] = [];
  private readonly C: number;
  private readonly rowBytes: number;
  private states: DState[] = [];
  private byKey = new Map<string, number>();
  private readonly mark: Int32Array;
  private gen = 0;
  /** The pattern has a `^`: the start of a text is a state of its own. */
  private readonly anchored: boolean;
  /** The set of the state between attempts (nothing started), its bytes out, and its row offset (-1: none). */
  private readonly idle: Int32Array;
  private readonly idleBytes: number[] | null;
  private acc = -1;
  /** Whether the last walk() stopped at a match (else at a record for JavaScript). */
  matched = false;
  /** The state the last walk() that reached its end ended in (0: between records), to go on from (see walk). */
  state = 0;
  /** Times the table was full and cleared. */
  clears = 0;
  /** A match proves the record matches (else it is a candidate: see Nfa.exact). */
  readonly exact: boolean;
  /** The pattern matches the empty text: every record matches. */
  readonly matchesEmpty: boolean;

  /** `maxStates`: the states cached before the cache is cleared (fewer for tests). */
  constructor(
    private readonly nfa: Nfa,
    private readonly maxStates = MAX_STATES,
  ) {
    compiled ??= new WebAssembly.Module(Buffer.from(DFA_WASM, 'base64'));
    this.x = new WebAssembly.Instance(compiled).exports as Exports;
    this.x.memory.grow(Math.ceil((DATA + (1 << 16)) / 65536));
    this.view = new Uint8Array(this.x.memory.buffer);
    this.table = new Int32Array(this.x.memory.buffer, TABLE, TABLE_BYTES / 4);
    this.slots = new Int32Array(this.x.memory.buffer, SLOTS, 2);
    this.mark = new Int32Array(nfa.states.length);
    // byte classes: bytes no range of the pattern tells apart are one class; the framing bytes have their own
    const cuts = new Uint8Array(257);
    const cut = (b: number) => (cuts[b] = 1);
    for (const st of nfa.states) if (st.kind === BYTE) (cut(st.lo), cut(st.hi + 1));
    for (const b of [QUOTE, BACKSLASH, NEWLINE]) (cut(b), cut(b + 1));
    let c = -1;
    for (let b = 0; b < 256; b++) {
      if (b === 0 || cuts[b]) this.rep[++c] = b;
      this.classOf[b] = c;
    }
    this.C = c + 1;
    this.rowBytes = this.C * 4;
    const cls = new Int32Array(this.x.memory.buffer, 0, 256);
    for (let b = 0; b < 256; b++) cls[b] = this.classOf[b] * 4;
    this.exact = nfa.exact;
    this.matchesEmpty = this.closure([nfa.start], true, true).includes(this.matchId);
    this.anchored = nfa.states.some((st) => st.kind === LINE_START);
    this.idle = this.closure([nfa.start], false, false);
    this.idleBytes = this.bytesOut(this.idle);
    if (this.idleBytes) {
      const v = this.view;
      v.fill(0, ACCEL, ACCEL + 64);
      for (let h = 0; h < 8; h++) {
        v[ACCEL + 16 + h] = 1 << h;
        v[ACCEL + 48 + 8 + h] = 1 << h;
      }
      for (const b of this.idleBytes) v[ACCEL + (b < 0x80 ? 0 : 32) + (b & 15)] |= 1 << ((b >> 4) & 7);
    }
    this.clear();
  }

  /** The NFA's match state (compileNfa adds it first). */
  private readonly matchId = 0;

  /** Bytes of the kernel's memory for data (from dataAt()). */
  reserve(bytes: number): void {
    const need = DATA + bytes + 64 - this.view.length;
    if (need > 0) {
      this.x.memory.grow(Math.ceil(need / 65536));
      this.view = new Uint8Array(this.x.memory.buffer);
      this.table = new Int32Array(this.x.memory.buffer, TABLE, TABLE_BYTES / 4);
      this.slots = new Int32Array(this.x.memory.buffer, SLOTS, 2);
    }
  }

  /**
   * Whether the stored text record view[ls, le) (le at its newline) matches: true or false, or undefined when
   * the DFA leaves it to JavaScript (an escape, a damaged record, a match of a DFA that is not exact). (It uses the memory for data: not while a
   * walk over other data goes on.)
   */
  decide(view: Uint8Array, ls: number, le: number): boolean | undefined {
    const length = le + 1 - ls;
    if (DATA + length > this.view.length) this.reserve(length);
    this.view.set(view.subarray(ls, le + 1), DATA);
    const h = this.walk(DATA, DATA + length);
    return h < 0 ? false : this.matched && this.exact ? true : undefined;
  }

  /** Where data to walk is put in memory (see reserve). */
  get dataAt(): number {
    return DATA;
  }

  get memory(): Uint8Array {
    return this.view;
  }

  /** Empties the cache: state 0 (before a record) and 1 (rest of a record) only. */
  private clear(): void {
    this.states = [
      { set: new Int32Array(0), atStart: false },
      { set: new Int32Array(0), atStart: false },
    ];
    this.byKey.clear();
    this.acc = -1;
    const C = this.C;
    const t = this.table;
    t.fill(FOR_JS, 0, 2 * C);
    t[this.classOf[QUOTE]] = UNKNOWN; // state 0: a quote starts the text
    t[C + this.classOf[NEWLINE]] = 0; // state 1: the newline ends the record
  }

  /**
   * The byte values on which the walk leaves the idle state (a byte the pattern may start with, the framing
   * bytes), when they are few enough to skip to (MAX_ACCEL), else null. (A byte that starts no match keeps the
   * idle state: the next set is the idle set again.)
   */
  private bytesOut(idle: Int32Array): number[] | null {
    if (idle.includes(this.matchId)) return null;
    const out = new Set([QUOTE, BACKSLASH, NEWLINE]);
    for (const i of idle) {
      const st = this.nfa.states[i];
      if (st.kind === BYTE) for (let b = st.lo; b <= st.hi; b++) out.add(b);
    }
    return out.size <= MAX_ACCEL ? [...out] : null;
  }

  /** The state of a set of NFA states, added (its row not known yet) if new; -1 if the table is full. */
  private intern(set: Int32Array, atStart: boolean): number {
    atStart &&= this.anchored;
    const key = `${atStart ? 's' : ''}${set.join(',')}`;
    const known = this.byKey.get(key);
    if (known !== undefined) return known;
    const k = this.states.length;
    if (k >= this.maxStates || (k + 1) * this.rowBytes > TABLE_BYTES) return -1;
    this.states.push({ set, atStart });
    this.byKey.set(key, k * this.rowBytes);
    if (this.idleBytes && !atStart && sameSet(set, this.idle)) this.acc = k * this.rowBytes;
    const C = this.C;
    const row = k * C;
    this.table.fill(UNKNOWN, row, row + C);
    this.table[row + this.classOf[BACKSLASH]] = FOR_JS;
    this.table[row + this.classOf[NEWLINE]] = FOR_JS;
    // the closing quote: the end of the text
    this.table[row + this.classOf[QUOTE]] = this.closure(Array.from(set), atStart, true).includes(this.matchId) ? MATCHED : this.rowBytes;
    return k * this.rowBytes;
  }

  /**
   * The NFA states reached from `from` without reading a byte (`^` passes at the start of the text, `$` at its
   * end), sorted: the byte states, the match, and the `$` not passed yet (the end may still come).
   */
  private closure(from: number[], atStart: boolean, atEnd: boolean): Int32Array {
    const g = ++this.gen;
    const out: number[] = [];
    const stack = from.slice();
    const states = this.nfa.states;
    while (stack.length > 0) {
      const i = stack.pop()!;
      if (this.mark[i] === g) continue;
      this.mark[i] = g;
      const st = states[i];
      switch (st.kind) {
        case SPLIT:
          for (let k = st.outs.length - 1; k >= 0; k--) stack.push(st.outs[k]);
          break;
        case LINE_START:
          if (atStart) stack.push(st.out);
          break;
        case LINE_END:
          if (atEnd) stack.push(st.out);
          else out.push(i);
          break;
        case BYTE:
        case MATCH:
          out.push(i);
      }
    }
    return Int32Array.from(out).sort();
  }

  /** The next state of state `s` (a row offset) on byte b: computed, stored in the table and returned. */
  private step(s: number, b: number): number {
    const k = s / this.rowBytes;
    let next: number;
    if (k === 0) {
      // the quote that opens a record: the pattern's start (never reached for any other byte: see clear())
      const first = this.closure([this.nfa.start], true, false);
      next = first.includes(this.matchId) ? MATCHED : this.intern(first, true);
    } else {
      const moved: number[] = [this.nfa.start]; // a match may start at any position
      const states = this.nfa.states;
      for (const i of this.states[k].set) {
        const st = states[i];
        if (st.kind === BYTE && b >= st.lo && b <= st.hi) moved.push(st.out);
      }
      const set = this.closure(moved, false, false);
      next = set.includes(this.matchId) ? MATCHED : this.intern(set, false);
    }
    if (next === -1) return -1;
    this.table[k * this.C + this.classOf[b]] = next;
    return next;
  }

  /**
   * Walks memory[pos, end) to the first record that matches or is for JavaScript; returns the position of the
   * byte where that was found (in that record), or -1 at the end. `matched` tells which of the two it was. The
   * walk starts at a record's start (state 0), or in the state `from` where an earlier walk ended (`state`): data
   * walked a window at a time, a record longer than one going on in the next.
   */
  walk(pos: number, end: number, from = 0): number {
    let s = from;
    const slots = this.slots;
    for (;;) {
      const r = this.x.run(pos, end, s, this.acc);
      if (r === 0) {
        this.state = slots[1];
        return -1;
      }
      pos = slots[0];
      s = slots[1];
      if (r === UNKNOWN) {
        if (this.step(s, this.view[pos]) === -1) {
          // the cache is full: start it again from the state the walk is in
          const { set, atStart } = this.states[s / this.rowBytes];
          this.clears++;
          this.clear();
          s = s === 0 ? 0 : this.intern(set, atStart);
          this.step(s, this.view[pos]);
        }
        continue;
      }
      this.matched = r === MATCHED;
      return pos;
    }
  }

  /** The number of byte classes (for tests and --explain). */
  get classes(): number {
    return this.C;
  }

  get cachedStates(): number {
    return this.states.length;
  }
}

function sameSet(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The DFA of a pattern's tree (parsed with the u flag); throws Unsupported for what it does not take (see compileNfa). */
export function compileDfa(tree: Pattern, ignoreCase: boolean, relaxWords = false): LazyDfa {
  return new LazyDfa(compileNfa(tree, ignoreCase, relaxWords));
}
