// The jq filters agents write most — paths (.a.b, .[0], .[]), select with comparisons, and/or/not, object and
// array construction, length, keys, map — run here, without starting the jq engine: its start alone (compiling
// jq's WebAssembly and jq compiling its builtins, on every run) was half of `lro jq` on a small result. Exactly
// jq 1.8.2's output or nothing: whatever this cannot be sure to print as jq would — another filter or flag, a
// number whose literal JavaScript would print otherwise (1.0, 1E+2, -0, 20 digits), an object key JavaScript would
// reorder ("1"), a string jq would repair (invalid UTF-8, a lone surrogate), any error, more than one value where
// one is expected — declines, and the call goes to jq, which gives its own answer and messages.
import { isUtf8 } from 'node:buffer';
import type { StdoutWatch } from './jq-output.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

type Node =
  | { t: 'identity' }
  | { t: 'field'; name: string; opt: boolean }
  | { t: 'index'; i: number; opt: boolean }
  | { t: 'iterate'; opt: boolean }
  | { t: 'pipe' | 'comma' | 'and' | 'or'; a: Node; b: Node }
  | { t: 'compare'; op: string; a: Node; b: Node }
  | { t: 'literal'; v: Json }
  | { t: 'select' | 'map'; f: Node }
  | { t: 'array'; f: Node | null }
  | { t: 'object'; entries: [string, Node][] }
  | { t: 'length' | 'keys' | 'not' };

/** Thrown wherever jq's answer is not certain here: the call goes to jq. */
class Decline extends Error {}
const decline = (): never => {
  throw new Decline();
};

/** The flags this runs with (lro jq passes each output flag by itself); any other declines. */
const KNOWN_FLAGS = new Set(['-c', '-r', '-j', '-s', '--']);

/**
 * Input bytes this takes at most in one call (a batch is about 1 MB): all of a call's outputs are made before the
 * first is written, so a larger input (a slurp, one huge record) goes to jq, whose output is stopped at the budget.
 */
const MAX_INPUT_BYTES = 4 << 20;

/** jq's result of one call, as the engine gives it with a watch (stdout went to the watch). */
export type FastResult = { stdout: string; stderr: string; exitCode: number };

/**
 * Runs `program` on `input` (records, one JSON value a line) as jq would with `flags`, its output to `watch`;
 * null when it declines (nothing was written to the watch then). The watch may throw to stop the call, as it
 * stops jq (StopJq, with how far the input was read).
 */
export function runFast(input: Buffer | string, program: string, flags: string[], watch: StdoutWatch): FastResult | null {
  if (!flags.every((f) => KNOWN_FLAGS.has(f))) return null;
  const filter = parsed(program);
  if (!filter || typeof input === 'string' || input.length > MAX_INPUT_BYTES) return null;
  const raw = flags.includes('-r') || flags.includes('-j');
  const end = flags.includes('-j') ? '' : '\n';
  const compact = flags.includes('-c');
  if (!isUtf8(input)) return null; // jq repairs invalid UTF-8 its own way
  const text = input.toString('utf8');
  const outputs: { text: string; end: number }[] = []; // each output, and where its record's line ends in text
  try {
    const show = (v: Json) => (raw && typeof v === 'string' ? v : serialize(v, compact)) + end;
    if (flags.includes('-s')) {
      const all: Json[] = [];
      forEachRecord(text, (v) => void all.push(v));
      for (const v of evaluate(filter, all)) outputs.push({ text: show(v), end: text.length });
    } else {
      forEachRecord(text, (v, at) => {
        for (const out of evaluate(filter, v)) outputs.push({ text: show(out), end: at });
      });
    }
  } catch (e) {
    // (RangeError: a value nested deeper than JSON.parse, JSON.stringify or this recursion go; jq has its own limit)
    if (e instanceof Decline || e instanceof RangeError) return null;
    throw e;
  }
  // every output known: only now does the watch see them (a decline half way would have left it fed); how far
  // the input was read is in bytes, counted only if the watch asks (it stops the call then)
  for (const o of outputs) watch(Buffer.from(o.text), () => Buffer.byteLength(text.slice(0, o.end)));
  return { stdout: '', stderr: '', exitCode: 0 };
}

/**
 * Parses each line of input (the text of it, decoded once) that jq would read exactly as JSON.parse does, with
 * the character offset of the line's end; declines before the first if any may not be.
 */
function forEachRecord(text: string, each: (v: Json, end: number) => void): void {
  checkTokens(text);
  for (let s = 0; s < text.length; ) {
    let nl = text.indexOf('\n', s);
    if (nl < 0) nl = text.length;
    const line = text.slice(s, nl);
    s = nl + 1;
    if (line.trim() === '') decline();
    let v: Json;
    try {
      v = JSON.parse(line) as Json;
    } catch {
      return decline();
    }
    each(v, Math.min(s, text.length));
  }
}

/**
 * Declines a JSON text holding a number whose literal jq keeps and JavaScript would print otherwise, a key
 * JavaScript orders before the others (an array index: "0", "12"), or a \uD800-\uDFFF escape (jq makes a lone one
 * U+FFFD; a pair is declined too, rare in records). The last two are looked for in the raw text: a match inside a
 * string only declines needlessly. One pass over a whole batch (a pass per record cost twice the time).
 */
function checkTokens(json: string): void {
  if (INDEX_KEY.test(json) || SURROGATE_ESCAPE.test(json)) decline();
  STRING_OR_NUMBER.lastIndex = 0;
  for (let m = STRING_OR_NUMBER.exec(json); m; m = STRING_OR_NUMBER.exec(json)) {
    const n = m[1];
    if (n !== undefined && !(n.length < 16 && SHORT_INTEGER.test(n)) && !sameNumber(n)) decline();
  }
}

/** A string (skipped whole), or a number (captured), of a JSON text. */
const STRING_OR_NUMBER = /"[^"\\]*(?:\\.[^"\\]*)*"|(-?\d[\d.eE+-]*)/g;
/** An integer JavaScript prints as written (fewer than 16 characters; not -0). */
const SHORT_INTEGER = /^(?:-?[1-9]\d*|0)$/;
const INDEX_KEY = /"(?:0|[1-9]\d*)"\s*:/;
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** Whether jq prints this number literal as JavaScript prints its value (jq 1.8 keeps a literal as written). */
function sameNumber(literal: string): boolean {
  // (no exponent: jq writes 1E-7 where JavaScript writes 1e-7). Two such literals compare as their doubles do:
  // each is the shortest that reads back as its double, so different ones are different doubles, in their order.
  return PLAIN_NUMBER.test(literal) && String(Number(literal)) === literal;
}

const PLAIN_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

/** JSON as jq prints it: JSON.stringify's, DEL escaped as jq escapes it. */
function serialize(v: Json, compact: boolean): string {
  const s = compact ? JSON.stringify(v) : JSON.stringify(v, null, 2);
  return s.includes('\x7f') ? s.replace(/\x7f/g, '\\u007f') : s;
}

// ---- evaluation: every output of a filter on one input, in jq's order

function evaluate(f: Node, v: Json): Json[] {
  switch (f.t) {
    case 'identity':
      return [v];
    case 'field':
      if (v === null) return [null];
      if (isObject(v)) return [Object.prototype.hasOwnProperty.call(v, f.name) ? v[f.name] : null];
      return f.opt ? [] : decline();
    case 'index':
      if (v === null) return [null];
      if (Array.isArray(v)) return [f.i < v.length ? v[f.i] : null];
      return f.opt ? [] : decline();
    case 'iterate':
      if (Array.isArray(v)) return v;
      if (isObject(v)) return Object.values(v);
      return f.opt ? [] : decline();
    case 'pipe':
      return evaluate(f.a, v).flatMap((x) => evaluate(f.b, x));
    case 'comma':
      return [...evaluate(f.a, v), ...evaluate(f.b, v)];
    case 'and':
      return evaluate(f.a, v).flatMap((a) => (truthy(a) ? evaluate(f.b, v).map(truthy) : [false]));
    case 'or':
      return evaluate(f.a, v).flatMap((a) => (truthy(a) ? [true] : evaluate(f.b, v).map(truthy)));
    case 'compare': {
      const a = evaluate(f.a, v);
      const b = evaluate(f.b, v);
      return a.length === 0 || b.length === 0 ? [] : [compare(f.op, one(a), one(b))]; // (jq: every pair)
    }
    case 'literal':
      return [f.v];
    case 'select':
      return evaluate(f.f, v).flatMap((c) => (truthy(c) ? [v] : []));
    case 'map':
      if (!Array.isArray(v) && !isObject(v)) decline();
      return [Object.values(v as object).flatMap((x: Json) => evaluate(f.f, x))];
    case 'array':
      return [f.f ? evaluate(f.f, v) : []];
    case 'object': {
      const o: { [key: string]: Json } = {};
      for (const [k, e] of f.entries) {
        const outs = evaluate(e, v);
        if (outs.length === 0) return []; // (jq: an object for every combination of the values)
        o[k] = one(outs);
      }
      return [o];
    }
    case 'length':
      return [lengthOf(v)];
    case 'keys':
      return [keysOf(v)];
    case 'not':
      return [!truthy(v)];
  }
}

/** The one output of a filter where this takes no more (jq combines several, in an order not repeated here). */
function one(outs: Json[]): Json {
  return outs.length === 1 ? outs[0] : decline();
}

const isObject = (v: Json): v is { [key: string]: Json } => typeof v === 'object' && v !== null && !Array.isArray(v);
const truthy = (v: Json) => v !== null && v !== false;

function lengthOf(v: Json): Json {
  if (v === null) return 0;
  if (typeof v === 'string') {
    let n = 0;
    for (const _ of v) n++; // code points, as jq counts
    return n;
  }
  if (Array.isArray(v)) return v.length;
  if (isObject(v)) return Object.keys(v).length;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return Math.abs(v);
  return decline(); // a boolean is an error; a fraction jq may print otherwise
}

function keysOf(v: Json): Json {
  if (Array.isArray(v)) return v.map((_, i) => i);
  if (!isObject(v)) return decline();
  const keys = Object.keys(v);
  if (keys.some(hasSurrogate)) decline(); // jq sorts by code point; JavaScript by UTF-16 unit
  return keys.sort();
}

const hasSurrogate = (s: string) => /[\ud800-\udfff]/.test(s);

/** jq's order of kinds: null < false < true < numbers < strings < arrays < objects. */
function rank(v: Json): number {
  if (v === null) return 0;
  if (v === false) return 1;
  if (v === true) return 2;
  if (typeof v === 'number') return 3;
  if (typeof v === 'string') return 4;
  return Array.isArray(v) ? 5 : 6;
}

function compare(op: string, a: Json, b: Json): boolean {
  if (op === '==') return equal(a, b);
  if (op === '!=') return !equal(a, b);
  const ra = rank(a);
  const rb = rank(b);
  let c: number;
  if (ra !== rb) c = ra - rb;
  else if (ra === 3) c = (a as number) - (b as number);
  else if (ra === 4) {
    if (hasSurrogate(a as string) || hasSurrogate(b as string)) decline();
    c = a === b ? 0 : (a as string) < (b as string) ? -1 : 1;
  } else if (ra <= 2) c = 0;
  else return decline(); // arrays and objects: jq's order of them is not repeated here
  return op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
}

function equal(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => equal(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && equal(a[k], b[k]));
  }
  return false;
}

// ---- parsing: the filter's text into Nodes; anything else declines

const cache = new Map<string, Node | null>();

function parsed(program: string): Node | null {
  let f = cache.get(program);
  if (f === undefined) {
    try {
      f = new Parser(program).filter();
    } catch (e) {
      if (!(e instanceof Decline)) throw e;
      f = null;
    }
    if (cache.size >= 64) cache.clear(); // (an MCP server runs many filters)
    cache.set(program, f);
  }
  return f;
}

/** Tokens: punctuation, comparison operators, identifiers (and keywords), "strings", numbers; nothing else. */
const TOKEN = /\s*(?:(==|!=|<=|>=|[<>|,:?()[\]{}])|(\.)|([A-Za-z_][A-Za-z0-9_]*)|("(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*")|(\d+(?:\.\d+)?))/y;

class Parser {
  private readonly tokens: string[] = [];
  /** Whether each token follows the one before it with no space between (`.a` is a field, `. a` is not). */
  private readonly joined: boolean[] = [];
  private at = 0;

  constructor(text: string) {
    let pos = 0;
    while (pos < text.length) {
      TOKEN.lastIndex = pos;
      const m = TOKEN.exec(text);
      if (!m) {
        if (/^\s*$/.test(text.slice(pos))) break; // trailing space
        decline();
      }
      this.joined.push(m![0][0] !== undefined && !/\s/.test(m![0][0]));
      this.tokens.push(m![0].trim());
      pos = TOKEN.lastIndex;
    }
  }

  filter(): Node {
    const f = this.pipe();
    if (this.at !== this.tokens.length) decline();
    return f;
  }

  private peek(): string | undefined {
    return this.tokens[this.at];
  }

  private eat(t: string): boolean {
    if (this.tokens[this.at] !== t) return false;
    this.at++;
    return true;
  }

  private expect(t: string): void {
    if (!this.eat(t)) decline();
  }

  private pipe(): Node {
    const a = this.comma();
    return this.eat('|') ? { t: 'pipe', a, b: this.pipe() } : a;
  }

  // jq's precedence, loosest first: | (from the right), then `,`, `or`, `and` (from the left), then comparisons
  private comma = (): Node => this.fromLeft(',', 'comma', this.or);
  private or = (): Node => this.fromLeft('or', 'or', this.and);
  private and = (): Node => this.fromLeft('and', 'and', this.comparison);

  /** `next (token next)*`, grouped from the left: a, b, c is (a, b), c. */
  private fromLeft(token: string, t: 'comma' | 'or' | 'and', next: () => Node): Node {
    let a = next();
    while (this.eat(token)) a = { t, a, b: next() };
    return a;
  }

  private comparison = (): Node => {
    const a = this.postfix();
    const op = this.peek();
    if (op !== undefined && COMPARISONS.has(op)) {
      this.at++;
      const b = this.postfix();
      if (COMPARISONS.has(this.peek() ?? '')) decline(); // jq refuses a chain (non-associative)
      return { t: 'compare', op, a, b };
    }
    return a;
  };

  /** A term and its path steps: .a, ."a", .[0], .["a"], .[], each perhaps with ?. */
  private postfix(): Node {
    let f = this.term();
    for (;;) {
      const t = this.peek();
      if (t === '.' && this.joined[this.at + 1] && (isIdent(this.tokens[this.at + 1]) || isString(this.tokens[this.at + 1]))) {
        this.at++;
        f = { t: 'pipe', a: f, b: this.step(this.name()) };
      } else if (t === '[' && this.joined[this.at]) {
        f = { t: 'pipe', a: f, b: this.bracket() };
      } else if (t === '.' && this.tokens[this.at + 1] === '[' && this.joined[this.at + 1]) {
        this.at++; // jq 1.7's .a.[0]
        f = { t: 'pipe', a: f, b: this.bracket() };
      } else return f;
    }
  }

  private term(): Node {
    const t = this.tokens[this.at++];
    if (t === undefined) return decline();
    if (t === '.') {
      const next = this.peek();
      if (next !== undefined && this.joined[this.at] && (isIdent(next) || isString(next))) return this.step(this.name());
      if (next === '[' && this.joined[this.at]) return this.bracket();
      return { t: 'identity' };
    }
    if (t === '(') {
      const f = this.pipe();
      this.expect(')');
      return f;
    }
    if (t === '[') {
      if (this.eat(']')) return { t: 'array', f: null };
      const f = this.pipe();
      this.expect(']');
      return { t: 'array', f };
    }
    if (t === '{') return this.object();
    if (isString(t)) return SURROGATE_ESCAPE.test(t) ? decline() : { t: 'literal', v: JSON.parse(t) as string };
    if (/^\d/.test(t)) return sameNumber(t) ? { t: 'literal', v: Number(t) } : decline();
    if (t === 'true' || t === 'false') return { t: 'literal', v: t === 'true' };
    if (t === 'null') return { t: 'literal', v: null };
    if (t === 'length' || t === 'keys' || t === 'not') return this.peek() === '(' ? decline() : { t };
    if (t === 'select' || t === 'map') {
      this.expect('(');
      const f = this.pipe();
      this.expect(')');
      return { t, f };
    }
    return decline();
  }

  /** A field name after a dot: an identifier or a string. */
  private name(): string {
    const t = this.tokens[this.at++];
    return isString(t) ? (JSON.parse(t) as string) : t;
  }

  /** A path step for a field, with its ? if any. */
  private step(name: string): Node {
    return { t: 'field', name, opt: this.eat('?') };
  }

  /** [] [N] ["name"] after a term or a dot, with its ? if any. */
  private bracket(): Node {
    this.expect('[');
    if (this.eat(']')) return { t: 'iterate', opt: this.eat('?') };
    const t = this.tokens[this.at++];
    this.expect(']');
    if (t !== undefined && isString(t)) return { t: 'field', name: JSON.parse(t) as string, opt: this.eat('?') };
    if (t !== undefined && /^\d+$/.test(t) && sameNumber(t)) return { t: 'index', i: Number(t), opt: this.eat('?') };
    return decline();
  }

  /** {a, "b": f, c: f}: a value is a term with its path steps (jq's own grammar allows little more unbracketed). */
  private object(): Node {
    const entries: [string, Node][] = [];
    if (this.eat('}')) return { t: 'object', entries };
    do {
      const k = this.tokens[this.at++];
      if (k === undefined || !(isIdent(k) || isString(k))) return decline();
      const key = isString(k) ? (JSON.parse(k) as string) : k;
      if (key === '__proto__' || /^(?:0|[1-9]\d*)$/.test(key) || KEYWORDS.has(key)) decline();
      entries.push([key, this.eat(':') ? this.postfix() : { t: 'field', name: key, opt: false }]);
    } while (this.eat(','));
    this.expect('}');
    return { t: 'object', entries };
  }
}

const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>=']);
/** Words jq reads as keywords, not as a field shorthand in {…} (declined rather than told apart). */
const KEYWORDS = new Set(['and', 'or', 'not', 'if', 'then', 'else', 'elif', 'end', 'as', 'def', 'reduce', 'foreach', 'try', 'catch', 'label', 'import', 'include', '__loc__']);
const isIdent = (t: string | undefined) => t !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(t) && !KEYWORDS.has(t);
const isString = (t: string | undefined) => t !== undefined && t.startsWith('"');
