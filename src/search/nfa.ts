// A grep pattern (its regexpp syntax tree) compiled to a Thompson NFA over bytes, for lro's own regex engine
// (search/dfa.ts): each character set becomes the UTF-8 byte sequences of its code points, so the automaton
// walks the stored bytes of a record without decoding them. The sets are JavaScript's, with the u flag (what the
// regex of the pattern matches, so the engine and the regex that finds match positions agree): `.` is anything
// but a line terminator, \d \w \s as JavaScript defines them, and with -i each set is closed under simple case
// folding as /iu folds. A pattern this does not take (see Unsupported) is left to the JavaScript regex.
import type { Alternative, CharacterClass, Element, Node, Pattern } from '@eslint-community/regexpp/ast';
import { regexpParser } from './literals.js';

/** A pattern, or a part of one, that the engine does not take: the reason, for --explain. */
export class Unsupported extends Error {}

/** Kinds of NFA states. */
export const BYTE = 0; // a byte in [lo, hi], then `out`
export const SPLIT = 1; // every state of `outs`
export const LINE_START = 2; // ^ (at the start of the text), then `out`
export const LINE_END = 3; // $ (at the end of the text), then `out`
export const MATCH = 4;

export interface NfaState {
  kind: number;
  lo: number;
  hi: number;
  out: number;
  outs: number[];
}

export interface Nfa {
  states: NfaState[];
  start: number;
  /**
   * Whether it matches exactly the texts the pattern matches; false when word boundaries were left out (see
   * compileNfa): then it matches more, and a match is only a candidate.
   */
  exact: boolean;
}

/** Above this many states a pattern is left to the JavaScript regex (`\w{1000}` and the like). */
export const MAX_NFA_STATES = 20_000;

/** Code point sets: sorted, disjoint, non-adjacent [lo, hi] pairs, flat. */
export type Ranges = number[];
const MAX_CP = 0x10ffff;

export function normalize(pairs: [number, number][]): Ranges {
  pairs.sort((a, b) => a[0] - b[0]);
  const out: Ranges = [];
  for (const [lo, hi] of pairs) {
    if (lo > hi) continue;
    const n = out.length;
    if (n > 0 && lo <= out[n - 1] + 1) out[n - 1] = Math.max(out[n - 1], hi);
    else out.push(lo, hi);
  }
  return out;
}

const pairsOf = (r: Ranges): [number, number][] => {
  const out: [number, number][] = [];
  for (let i = 0; i < r.length; i += 2) out.push([r[i], r[i + 1]]);
  return out;
};

export function union(...sets: Ranges[]): Ranges {
  return normalize(sets.flatMap(pairsOf));
}

export function negate(r: Ranges): Ranges {
  const out: Ranges = [];
  let next = 0;
  for (let i = 0; i < r.length; i += 2) {
    if (r[i] > next) out.push(next, r[i] - 1);
    next = r[i + 1] + 1;
  }
  if (next <= MAX_CP) out.push(next, MAX_CP);
  return out;
}

export function contains(r: Ranges, c: number): boolean {
  let lo = 0;
  let hi = r.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (c < r[2 * mid]) hi = mid - 1;
    else if (c > r[2 * mid + 1]) lo = mid + 1;
    else return true;
  }
  return false;
}

const set = (...pairs: [number, number][]): Ranges => normalize(pairs);
const DIGIT = set([0x30, 0x39]);
const WORD = set([0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]);
/** JavaScript's \s: WhiteSpace and LineTerminator. */
const SPACE = set([0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff]);
/** `.` without the s flag: anything but a line terminator. */
const ANY = negate(set([0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]));

/**
 * The sets of code points that /iu takes as one letter (the same simple case folding), of two or more members.
 * A code point's key is the lower case of its upper case (each one code point), which is its simple case folding
 * but for the Turkic dotted and dotless i (whose folds /iu leaves alone). Made once, on the first -i pattern with
 * a set beyond ASCII (about 30 ms); test/search/dfa.test.ts checks every orbit against the JavaScript regex.
 */
let orbits: number[][] | null = null;
export function foldOrbits(): number[][] {
  if (orbits) return orbits;
  const single = (s: string) => {
    const c = s.codePointAt(0)!;
    return s.length === (c > 0xffff ? 2 : 1) ? c : -1;
  };
  const byKey = new Map<number, number[]>();
  for (let c = 0; c < 0x20000; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const s = String.fromCodePoint(c);
    let key = c;
    if (c !== 0x130 && c !== 0x131) {
      const u = single(s.toUpperCase());
      const l = u >= 0 ? single(String.fromCodePoint(u).toLowerCase()) : -1;
      if (l >= 0 && l !== 0x130 && l !== 0x131) key = l;
      else {
        const low = single(s.toLowerCase());
        if (low >= 0 && low !== 0x130 && low !== 0x131) key = low;
      }
    }
    if (key === c && s.toUpperCase() === s && s.toLowerCase() === s) continue; // caseless
    const members = byKey.get(key);
    if (members) members.push(c);
    else byKey.set(key, [c]);
  }
  orbits = [];
  for (const [key, members] of byKey) {
    const all = [...new Set([key, ...members])].sort((a, b) => a - b);
    if (all.length > 1) orbits.push(all);
  }
  return orbits;
}

/** Whether a set holds a code point outside ASCII. */
const beyondAscii = (r: Ranges) => r.length > 0 && r[r.length - 1] > 0x7f;

/** The set with every code point that folds with one of its members (as /iu compares characters). */
export function foldClose(r: Ranges): Ranges {
  const extra: [number, number][] = [];
  if (!beyondAscii(r)) {
    // ASCII: the other case, and the two characters beyond ASCII that fold to ASCII letters (ſ to s, K to k)
    for (let c = 0x41; c <= 0x5a; c++) {
      if (contains(r, c) || contains(r, c + 32)) extra.push([c, c], [c + 32, c + 32]);
    }
    if (contains(r, 0x73) || contains(r, 0x53)) extra.push([0x17f, 0x17f]);
    if (contains(r, 0x6b) || contains(r, 0x4b)) extra.push([0x212a, 0x212a]);
  } else {
    for (const orbit of foldOrbits()) {
      if (orbit.some((c) => contains(r, c))) for (const c of orbit) extra.push([c, c]);
    }
  }
  return extra.length === 0 ? r : union(r, normalize(extra));
}

/** The pattern parsed as grep's regex parses it with the u flag (null: it does not parse so). */
export function parseUnicode(source: string): Pattern | null {
  try {
    return new (regexpParser())({ ecmaVersion: 2025 }).parsePattern(source, 0, source.length, { unicode: true });
  } catch {
    return null;
  }
}

/**
 * Compiles a pattern's tree (parsed with the u flag) to an NFA; throws Unsupported for what it does not take.
 * `relaxWords`: a word boundary (\b, \B) matches anywhere (the NFA is then not exact: it matches a superset).
 */
export function compileNfa(tree: Pattern, ignoreCase: boolean, relaxWords = false): Nfa {
  const b = new Builder(ignoreCase, relaxWords);
  const match = b.add(MATCH, 0, 0, -1);
  const start = b.alternatives(tree.alternatives, match);
  return { states: b.states, start, exact: !b.relaxed };
}

class Builder {
  states: NfaState[] = [];
  relaxed = false;
  constructor(
    private readonly fold: boolean,
    private readonly relaxWords: boolean,
  ) {}

  add(kind: number, lo: number, hi: number, out: number, outs: number[] = []): number {
    if (this.states.length >= MAX_NFA_STATES) throw new Unsupported(`it needs more than ${MAX_NFA_STATES} automaton states`);
    this.states.push({ kind, lo, hi, out, outs });
    return this.states.length - 1;
  }

  split(outs: number[]): number {
    return outs.length === 1 ? outs[0] : this.add(SPLIT, 0, 0, -1, outs);
  }

  alternatives(alts: Alternative[], next: number): number {
    return this.split(alts.map((a) => this.sequence(a.elements, next)));
  }

  sequence(elements: Element[], next: number): number {
    let cur = next;
    for (let i = elements.length - 1; i >= 0; i--) cur = this.element(elements[i], cur);
    return cur;
  }

  element(el: Element, next: number): number {
    switch (el.type) {
      case 'Character':
      case 'CharacterClass':
      case 'CharacterSet':
        return this.codePoints(this.setOf(el), next);
      case 'Assertion':
        if (el.kind === 'start') return this.add(LINE_START, 0, 0, next);
        if (el.kind === 'end') return this.add(LINE_END, 0, 0, next);
        if (el.kind === 'word' && this.relaxWords) {
          this.relaxed = true;
          return next;
        }
        throw new Unsupported(el.kind === 'word' ? 'it has a word boundary (\\b, \\B)' : 'it has a lookaround');
      case 'Group':
      case 'CapturingGroup':
        if ('modifiers' in el && el.modifiers) throw new Unsupported('it has a group with modifiers');
        return this.alternatives(el.alternatives, next);
      case 'Quantifier':
        return this.quantifier(el.element, el.min, el.max, next);
      case 'Backreference':
        throw new Unsupported('it has a backreference');
      default:
        throw new Unsupported(`it has ${(el as Node).raw}`);
    }
  }

  quantifier(el: Element, min: number, max: number, next: number): number {
    let cur = next;
    if (max === Infinity) {
      const loop = this.add(SPLIT, 0, 0, -1, []);
      this.states[loop].outs = [this.element(el, loop), next];
      cur = loop;
    } else {
      for (let k = min; k < max; k++) cur = this.split([this.element(el, cur), next]);
    }
    for (let k = 0; k < min; k++) cur = this.element(el, cur);
    return cur;
  }

  setOf(el: Element): Ranges {
    const close = (r: Ranges) => (this.fold ? foldClose(r) : r);
    if (el.type === 'Character') return close(set([el.value, el.value]));
    if (el.type === 'CharacterSet') return this.charSet(el);
    if (el.type !== 'CharacterClass') throw new Unsupported(`it has ${el.raw}`);
    const c = el as CharacterClass;
    if (c.unicodeSets) throw new Unsupported('it has a class of the v flag');
    const parts: Ranges[] = c.elements.map((e) => {
      if (e.type === 'Character') return set([e.value, e.value]);
      if (e.type === 'CharacterClassRange') return set([e.min.value, e.max.value]);
      if (e.type === 'CharacterSet') return this.charSet(e);
      throw new Unsupported(`it has ${(e as Node).raw} in a class`);
    });
    const all = close(union(...parts));
    return c.negate ? negate(all) : all;
  }

  charSet(el: Element & { type: 'CharacterSet' }): Ranges {
    const close = (r: Ranges) => (this.fold ? foldClose(r) : r);
    let base: Ranges;
    if (el.kind === 'any') return ANY;
    if (el.kind === 'digit') base = DIGIT;
    else if (el.kind === 'space') base = SPACE;
    else if (el.kind === 'word') base = close(WORD); // /iu: \w also holds ſ and K, \W neither
    else throw new Unsupported(`it has a Unicode property (${el.raw})`);
    return el.negate ? negate(base) : close(base);
  }

  /** The UTF-8 sequences of a set's code points (surrogates have none), as alternatives of byte chains. */
  codePoints(r: Ranges, next: number): number {
    const seqs: [number, number][][] = [];
    for (let i = 0; i < r.length; i += 2) {
      const lo = r[i];
      const hi = r[i + 1];
      // (surrogates are no characters of UTF-8 text)
      if (lo < 0xd800 && hi > 0xdfff) {
        utf8Sequences(lo, 0xd7ff, seqs);
        utf8Sequences(0xe000, hi, seqs);
      } else if (hi < 0xd800 || lo > 0xdfff) utf8Sequences(lo, hi, seqs);
      else {
        if (lo < 0xd800) utf8Sequences(lo, 0xd7ff, seqs);
        if (hi > 0xdfff) utf8Sequences(0xe000, hi, seqs);
      }
    }
    if (seqs.length === 0) return this.add(SPLIT, 0, 0, -1, []); // matches nothing
    return this.split(
      seqs.map((seq) => {
        let cur = next;
        for (let k = seq.length - 1; k >= 0; k--) cur = this.add(BYTE, seq[k][0], seq[k][1], cur);
        return cur;
      }),
    );
  }
}

function encode(c: number): number[] {
  return [...Buffer.from(String.fromCodePoint(c), 'utf8')];
}

/** Splits [lo, hi] (no surrogates) into sequences of byte ranges, as ripgrep's utf8-ranges does. */
export function utf8Sequences(lo: number, hi: number, out: [number, number][][]): void {
  for (const max of [0x7f, 0x7ff, 0xffff]) {
    if (lo <= max && max < hi) {
      utf8Sequences(lo, max, out);
      utf8Sequences(max + 1, hi, out);
      return;
    }
  }
  if (hi <= 0x7f) {
    out.push([[lo, hi]]);
    return;
  }
  for (let i = 1; i < 4; i++) {
    const m = (1 << (6 * i)) - 1;
    if ((lo & ~m) !== (hi & ~m)) {
      if ((lo & m) !== 0) {
        utf8Sequences(lo, lo | m, out);
        utf8Sequences((lo | m) + 1, hi, out);
        return;
      }
      if ((hi & m) !== m) {
        utf8Sequences(lo, (hi & ~m) - 1, out);
        utf8Sequences(hi & ~m, hi, out);
        return;
      }
    }
  }
  const a = encode(lo);
  const z = encode(hi);
  out.push(a.map((x, k) => [x, z[k]]));
}
