// A streaming, validating JSON scanner over bytes (RFC 8259, as strict as JSON.parse; no recursion, so
// 100,000 nested brackets are only a stack of bytes). It serves the `json` content type in two passes:
//   analyze: is this one JSON document, and which array holds its bulk (arrays reached through objects only)?
//   emit:    write the records (elements of the split array, whitespace outside strings removed) and the envelope.
// Numbers and strings are copied byte for byte, never parsed, so 12345678901234567890 survives.
import { isUtf8 } from 'node:buffer';

/** Why a byte sequence is not one JSON document; `trailing` means a complete value was followed by more. */
export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
    readonly kind: 'invalid' | 'trailing' | 'incomplete',
  ) {
    super(`${message} at byte ${offset}`);
  }
}

/** An array reached from the root through object members only; `keys` are the raw JSON key strings. */
export interface CandidateArray {
  keys: string[];
  start: number;
  end: number;
  count: number;
}

/** What the analyze pass learned about a document. */
export interface JsonAnalysis {
  root: 'object' | 'array' | 'scalar';
  rootCount: number; // elements of the root array
  start: number; // offset of the root value's first byte
  end: number; // offset after the root value's last byte
  largest: CandidateArray | null; // the largest array below the root object (by bytes)
}

/**
 * Where the emit pass sends bytes. Records are whole compact JSON values without the newline; a record's bytes are
 * the scanner's own buffer, valid only during the call (copy what is kept).
 */
export interface JsonSinks {
  record(bytes: Buffer): void;
  envelope?(bytes: Uint8Array): void;
}

export type SplitPlan = { split: 'elements' } | { split: 'none' } | { split: 'path'; arrayStart: number };

// scanner states
const VALUE = 0, OBJ_FIRST = 1, OBJ_KEY = 2, COLON = 3, OBJ_NEXT = 4, ARR_FIRST = 5, ARR_NEXT = 6;
const STR = 7, STR_ESC = 8, STR_U = 9, NUM = 10, LIT = 11, DONE = 12;
// number sub-states
const N_MINUS = 0, N_ZERO = 1, N_INT = 2, N_DOT = 3, N_FRAC = 4, N_E = 5, N_ESIGN = 6, N_EXP = 7;
const KEY_CAPTURE_MAX = 4096;

const isWs = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
const LITERALS: Record<number, Uint8Array> = {
  0x74: Buffer.from('true'),
  0x66: Buffer.from('false'),
  0x6e: Buffer.from('null'),
};

/**
 * One pass over a JSON document, fed in chunks. With no plan it only validates and analyzes; with a plan and
 * sinks it also emits records and the envelope. Throws JsonSyntaxError on the first invalid byte.
 */
export class JsonScanner {
  private state = VALUE;
  private numState = 0;
  private lit: Uint8Array | null = null;
  private litPos = 0;
  private hexLeft = 0;
  private strIsKey = false;
  private pos = 0; // absolute offset of the chunk start
  private kinds = new Uint8Array(64); // 1 = array, 0 = object, per depth (index 0 = root container)
  private counts: number[] = [];
  private starts: number[] = [];
  private depth = 0;
  private objChain = 0; // how many outer levels are objects, counting from the root
  private keys: (string | null)[] = []; // raw key per object level; null when too long to keep
  private keyParts: Buffer[] | null = null;
  private keyLen = 0;
  private rootKind: JsonAnalysis['root'] | null = null;
  private rootStart = -1;
  private rootEnd = -1;
  private largest: CandidateArray | null = null;

  // emission
  private readonly emitting: boolean;
  private splitDepth = -1; // depth of the split array's elements once inside it (elements are at depth splitDepth)
  private inSplit = false;
  /** The record being emitted, assembled here: a pretty-printed record is dozens of spans between whitespace. */
  private record = Buffer.allocUnsafe(1 << 12);
  private recordLen = 0;
  private spanStart = 0;
  private dest: 0 | 1 | 2 = 0; // 0 = drop, 1 = envelope, 2 = record
  envelopeInsertAt = -1; // offset in the envelope where the records belong (path split)
  private envelopeLen = 0;

  constructor(
    private readonly plan?: SplitPlan,
    private readonly sinks?: JsonSinks,
  ) {
    this.emitting = !!plan && !!sinks;
    if (this.emitting) this.dest = plan!.split === 'none' ? 2 : plan!.split === 'path' ? 1 : 0;
  }

  /** Feeds the next chunk of the document; nothing keeps a view of it after the call (the chunk's memory may be
   * reused): a record's bytes are copied into the scanner's own buffer, the envelope's are the sink's to copy. */
  push(chunk: Uint8Array): void {
    const n = chunk.length;
    this.spanStart = 0;
    for (let i = 0; i < n; i++) {
      const c = chunk[i];
      switch (this.state) {
        case STR: {
          // fast path through ordinary string bytes
          let j = i;
          while (j < n) {
            const d = chunk[j];
            if (d === 0x22 || d === 0x5c || d < 0x20) break;
            j++;
          }
          if (this.keyParts && j > i) this.captureKey(chunk, i, j);
          i = j;
          if (i === n) break;
          const d = chunk[i];
          if (d === 0x22) {
            if (this.keyParts) this.captureKey(chunk, i, i + 1);
            if (this.strIsKey) {
              this.finishKey();
              this.state = COLON;
            } else this.valueDone(chunk, i + 1);
          } else if (d === 0x5c) {
            if (this.keyParts) this.captureKey(chunk, i, i + 1);
            this.state = STR_ESC;
          } else this.fail('control character in string', i);
          break;
        }
        case STR_ESC:
          if (this.keyParts) this.captureKey(chunk, i, i + 1);
          if (c === 0x75) {
            this.state = STR_U;
            this.hexLeft = 4;
          } else if (c === 0x22 || c === 0x5c || c === 0x2f || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74) {
            this.state = STR;
          } else this.fail('invalid escape', i);
          break;
        case STR_U:
          if (this.keyParts) this.captureKey(chunk, i, i + 1);
          if (!isHex(c)) this.fail('invalid \\u escape', i);
          if (--this.hexLeft === 0) this.state = STR;
          break;
        case NUM:
          if (!this.numberByte(c)) {
            if (!(this.numState === N_ZERO || this.numState === N_INT || this.numState === N_FRAC || this.numState === N_EXP)) {
              this.fail('invalid number', i);
            }
            this.valueDone(chunk, i);
            i--; // reprocess this byte in the enclosing state
          }
          break;
        case LIT:
          if (c !== this.lit![this.litPos]) this.fail('invalid literal', i);
          if (++this.litPos === this.lit!.length) {
            this.lit = null;
            this.valueDone(chunk, i + 1);
          }
          break;
        default:
          if (isWs(c)) {
            this.skip(chunk, i);
            break;
          }
          this.structural(chunk, c, i);
      }
    }
    if (this.emitting) this.flush(chunk, n);
    this.pos += n;
  }

  /** Ends the document; throws if it is incomplete. */
  end(): JsonAnalysis {
    if (this.state === NUM) {
      if (!(this.numState === N_ZERO || this.numState === N_INT || this.numState === N_FRAC || this.numState === N_EXP)) {
        this.fail('invalid number', 0);
      }
      const empty = new Uint8Array(0);
      this.valueDone(empty, 0);
    }
    if (this.state !== DONE) throw new JsonSyntaxError('unexpected end of input', this.pos, 'incomplete');
    return {
      root: this.rootKind!,
      rootCount: this.rootKind === 'array' ? this.counts[0] ?? 0 : 0,
      start: this.rootStart,
      end: this.rootEnd,
      largest: this.largest,
    };
  }

  private fail(message: string, i: number): never {
    throw new JsonSyntaxError(message, this.pos + i, 'invalid');
  }

  private structural(chunk: Uint8Array, c: number, i: number): void {
    switch (this.state) {
      case VALUE:
      case ARR_FIRST:
        if (this.state === ARR_FIRST && c === 0x5d) return this.close(chunk, i, 1);
        return this.beginValue(chunk, c, i);
      case OBJ_FIRST:
      case OBJ_KEY:
        if (this.state === OBJ_FIRST && c === 0x7d) return this.close(chunk, i, 0);
        if (c !== 0x22) this.fail('expected a string key', i);
        this.state = STR;
        this.strIsKey = true;
        if (this.depth <= this.objChain) {
          this.keyParts = [];
          this.keyLen = 0;
          this.captureKey(chunk, i, i + 1);
        }
        return;
      case COLON:
        if (c !== 0x3a) this.fail("expected ':'", i);
        this.state = VALUE;
        return;
      case OBJ_NEXT:
        if (c === 0x2c) {
          this.state = OBJ_KEY;
          return;
        }
        if (c === 0x7d) return this.close(chunk, i, 0);
        return this.fail("expected ',' or '}'", i);
      case ARR_NEXT:
        if (c === 0x2c) {
          this.state = VALUE;
          if (this.inSplit && this.depth === this.splitDepth) this.skip(chunk, i);
          return;
        }
        if (c === 0x5d) return this.close(chunk, i, 1);
        return this.fail("expected ',' or ']'", i);
      case DONE:
        throw new JsonSyntaxError('more data after the JSON value', this.pos + i, 'trailing');
    }
  }

  private beginValue(chunk: Uint8Array, c: number, i: number): void {
    const abs = this.pos + i;
    if (this.depth === 0) {
      this.rootStart = abs;
      this.rootKind = c === 0x7b ? 'object' : c === 0x5b ? 'array' : 'scalar';
    } else if (this.kinds[this.depth - 1] === 1) {
      this.counts[this.depth - 1]++;
      if (this.inSplit && this.depth === this.splitDepth) this.switchDest(chunk, i, 2);
    }
    if (c === 0x7b || c === 0x5b) return this.open(chunk, c === 0x5b ? 1 : 0, i, abs);
    if (c === 0x22) {
      this.state = STR;
      this.strIsKey = false;
      return;
    }
    if (c === 0x2d || isDigit(c)) {
      this.state = NUM;
      this.numState = c === 0x2d ? N_MINUS : c === 0x30 ? N_ZERO : N_INT;
      return;
    }
    const lit = LITERALS[c];
    if (!lit) this.fail('unexpected character', i);
    this.state = LIT;
    this.lit = lit;
    this.litPos = 1;
  }

  private open(chunk: Uint8Array, kind: 0 | 1, i: number, abs: number): void {
    const d = this.depth;
    if (d === this.kinds.length) {
      const k = new Uint8Array(d * 2);
      k.set(this.kinds);
      this.kinds = k;
    }
    this.kinds[d] = kind;
    this.counts[d] = 0;
    this.starts[d] = abs;
    if (kind === 0 && this.objChain === d) this.objChain = d + 1;
    this.depth = d + 1;
    this.state = kind === 1 ? ARR_FIRST : OBJ_FIRST;
    if (this.emitting && kind === 1 && !this.inSplit) {
      const plan = this.plan!;
      if ((plan.split === 'elements' && d === 0) || (plan.split === 'path' && plan.arrayStart === abs)) {
        this.inSplit = true;
        this.splitDepth = d + 1;
        if (plan.split === 'path') {
          // the envelope keeps an empty array here; records go between its brackets
          this.flush(chunk, i + 1);
          this.envelopeInsertAt = this.envelopeLen;
        }
        this.switchDest(chunk, i + 1, 0);
      }
    }
  }

  private close(chunk: Uint8Array, i: number, kind: 0 | 1): void {
    const d = this.depth - 1;
    if (this.kinds[d] !== kind) this.fail('mismatched bracket', i);
    const abs = this.pos + i;
    if (kind === 1 && d > 0 && d <= this.objChain) {
      // an array whose ancestors are all objects (not the root itself)
      const size = abs + 1 - this.starts[d];
      const keys = this.keys.slice(0, d);
      if ((!this.largest || size > this.largest.end - this.largest.start) && keys.every((k) => k !== null)) {
        this.largest = { keys: keys as string[], start: this.starts[d], end: abs + 1, count: this.counts[d] };
      }
    }
    if (this.inSplit && this.depth === this.splitDepth) {
      // closing the split array: back to the envelope (path) or to nothing (elements)
      this.inSplit = false;
      this.switchDest(chunk, i, this.plan!.split === 'path' ? 1 : 0);
    }
    this.depth = d;
    if (this.objChain > d) this.objChain = d;
    this.valueDone(chunk, i + 1);
  }

  /** A value ended just before chunk[after]. */
  private valueDone(chunk: Uint8Array, after: number): void {
    if (this.depth === 0) {
      this.state = DONE;
      this.rootEnd = this.pos + after;
      if (this.emitting && this.dest === 2) {
        this.flush(chunk, after);
        this.endRecord();
        this.dest = 0;
        this.spanStart = after;
      }
      return;
    }
    const parentIsArray = this.kinds[this.depth - 1] === 1;
    this.state = parentIsArray ? ARR_NEXT : OBJ_NEXT;
    if (this.inSplit && this.depth === this.splitDepth) {
      this.flush(chunk, after);
      this.endRecord();
      this.switchDest(chunk, after, 0);
    }
  }

  private numberByte(c: number): boolean {
    switch (this.numState) {
      case N_MINUS:
        if (c === 0x30) this.numState = N_ZERO;
        else if (isDigit(c)) this.numState = N_INT;
        else return false;
        return true;
      case N_ZERO:
        if (c === 0x2e) this.numState = N_DOT;
        else if (c === 0x65 || c === 0x45) this.numState = N_E;
        else return false;
        return true;
      case N_INT:
        if (isDigit(c)) return true;
        if (c === 0x2e) this.numState = N_DOT;
        else if (c === 0x65 || c === 0x45) this.numState = N_E;
        else return false;
        return true;
      case N_DOT:
        if (!isDigit(c)) return false;
        this.numState = N_FRAC;
        return true;
      case N_FRAC:
        if (isDigit(c)) return true;
        if (c === 0x65 || c === 0x45) this.numState = N_E;
        else return false;
        return true;
      case N_E:
        if (c === 0x2b || c === 0x2d) this.numState = N_ESIGN;
        else if (isDigit(c)) this.numState = N_EXP;
        else return false;
        return true;
      case N_ESIGN:
        if (!isDigit(c)) return false;
        this.numState = N_EXP;
        return true;
      default:
        return isDigit(c);
    }
  }

  private captureKey(chunk: Uint8Array, from: number, to: number): void {
    this.keyLen += to - from;
    if (this.keyLen > KEY_CAPTURE_MAX) {
      this.keyParts = null;
      this.keys[this.depth - 1] = null;
      return;
    }
    this.keyParts!.push(Buffer.from(chunk.subarray(from, to)));
  }

  private finishKey(): void {
    if (this.keyParts) {
      this.keys[this.depth - 1] = Buffer.concat(this.keyParts).toString('utf8');
      this.keyParts = null;
    }
  }

  // ---- emission helpers (no-ops unless emitting) ----

  /** Whitespace or a separator at chunk[i] that no output keeps. */
  private skip(chunk: Uint8Array, i: number): void {
    if (!this.emitting) return;
    this.flush(chunk, i);
    this.spanStart = i + 1;
  }

  private flush(chunk: Uint8Array, upto: number): void {
    if (!this.emitting) return;
    if (upto > this.spanStart) {
      if (this.dest === 2) this.append(chunk, this.spanStart, upto);
      else if (this.dest === 1) {
        const part = chunk.subarray(this.spanStart, upto);
        this.sinks!.envelope?.(part);
        this.envelopeLen += part.length;
      }
    }
    this.spanStart = upto;
  }

  /** Appends chunk[from, to) to the record being emitted. */
  private append(chunk: Uint8Array, from: number, to: number): void {
    const n = to - from;
    if (this.recordLen + n > this.record.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.record.length * 2, this.recordLen + n));
      this.record.copy(grown, 0, 0, this.recordLen);
      this.record = grown;
    }
    if (n <= 32) {
      // a short span (a key, a number, a brace): a loop costs less than the view a copy would make
      const r = this.record;
      let at = this.recordLen;
      for (let i = from; i < to; i++) r[at++] = chunk[i];
    } else this.record.set(chunk.subarray(from, to), this.recordLen);
    this.recordLen += n;
  }

  private switchDest(chunk: Uint8Array, at: number, dest: 0 | 1 | 2): void {
    if (!this.emitting) return;
    this.flush(chunk, at);
    this.dest = dest;
  }

  private endRecord(): void {
    this.sinks!.record(this.record.subarray(0, this.recordLen));
    this.recordLen = 0;
    if (this.record.length > 1 << 20) this.record = Buffer.allocUnsafe(1 << 12); // after a huge record: let it go
  }
}

/** Validates and analyzes a whole document held in memory. */
export function analyzeJson(doc: Uint8Array): JsonAnalysis {
  const s = new JsonScanner();
  s.push(doc);
  return s.end();
}

/** The keys of a candidate array as decoded strings (they are raw JSON strings in the scan). */
export function decodeKeys(keys: string[]): string[] {
  return keys.map((k) => JSON.parse(k) as string);
}

/**
 * The raw text of one top-level member of a JSON object written by lro (e.g. `envelope` in a header), so that
 * numbers inside it keep every digit. Returns null when the member is absent.
 */
export function rawMember(obj: Buffer, key: string): Buffer | null {
  const wanted = Buffer.from(JSON.stringify(key));
  for (const m of objectMembers(obj)) if (m.key.equals(wanted)) return Buffer.from(m.value);
  return null;
}

/** One member of an object: its key as the raw JSON string (quotes included) and its value's text, trimmed. */
export interface RawMember {
  key: Buffer;
  value: Buffer;
}

/**
 * The members of a JSON object's text (valid JSON; whitespace anywhere), in the order written, as raw bytes:
 * nothing is parsed, so numbers keep every digit and keys keep their order (which JSON.parse changes for keys
 * like "10"). Views into `obj`.
 */
export function* objectMembers(obj: Buffer): Generator<RawMember> {
  let depth = 0;
  let inStr = false;
  let esc = false;
  let expectKey = false;
  let keyStart = -1;
  let key: Buffer | null = null;
  let valueStart = -1;
  for (let i = 0; i < obj.length; i++) {
    const c = obj[i];
    if (inStr) {
      if (esc) esc = false;
      else if (c === 0x5c) esc = true;
      else if (c === 0x22) {
        inStr = false;
        if (keyStart >= 0) {
          key = obj.subarray(keyStart, i + 1);
          keyStart = -1;
        }
      }
      continue;
    }
    if (depth === 1 && key && valueStart < 0 && c !== 0x3a && !isWs(c)) valueStart = i;
    if (c === 0x22) {
      inStr = true;
      if (depth === 1 && expectKey) {
        keyStart = i;
        expectKey = false;
      }
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth === 1) expectKey = c === 0x7b;
    } else if ((c === 0x7d || c === 0x5d || (c === 0x2c && depth === 1)) && (c === 0x2c || --depth === 0)) {
      if (key && valueStart >= 0) yield { key, value: trimWs(obj.subarray(valueStart, i)) as Buffer };
      key = null;
      valueStart = -1;
      if (c !== 0x2c) return;
      expectKey = true;
    }
  }
}

function trimWs(b: Uint8Array): Uint8Array {
  let s = 0;
  let e = b.length;
  while (s < e && isWs(b[s])) s++;
  while (e > s && isWs(b[e - 1])) e--;
  return b.subarray(s, e);
}

/** Whether bytes are one JSON value in UTF-8 (as JSON.parse accepts it; the check runs at native speed). */
export function isJsonText(bytes: Buffer): boolean {
  if (!isUtf8(bytes)) return false;
  try {
    // for valid UTF-8, the latin1 view is JSON exactly when the text is, and is cheaper to make
    JSON.parse(bytes.toString('latin1'));
    return true;
  } catch (e) {
    if (e instanceof SyntaxError) return false;
    // not a syntax error (e.g. a value too deep for JSON.parse): ask the scanner, which has no depth limit
    try {
      analyzeJson(bytes);
      return true;
    } catch {
      return false;
    }
  }
}

/** JSON text with the whitespace outside strings removed (numbers and strings untouched); input must be valid. */
export function compactJsonText(text: Buffer): Buffer {
  if (text.indexOf(0x20) < 0 && text.indexOf(0x09) < 0 && text.indexOf(0x0a) < 0 && text.indexOf(0x0d) < 0) return text;
  const out = Buffer.allocUnsafe(text.length);
  let p = 0;
  let inStr = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inStr) {
      out[p++] = c;
      if (c === 0x5c) out[p++] = text[++i];
      else if (c === 0x22) inStr = false;
    } else if (c === 0x22) {
      inStr = true;
      out[p++] = c;
    } else if (!isWs(c)) out[p++] = c;
  }
  return out.subarray(0, p);
}
