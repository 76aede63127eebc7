// The literals a grep pattern requires, read from its syntax tree (@eslint-community/regexpp): a small set of
// strings such that every match contains one of them, as ripgrep extracts them, so the scan kernel can rule out
// the records holding none and the regex runs only on the others. Soundness is all that matters here: a set is
// returned only when it is proved (every construct below either yields exact strings, a proved set, or nothing),
// and patterns with lookarounds or backreferences yield nothing at all.
import { createRequire } from 'node:module';
import type { RegExpParser as Parser } from '@eslint-community/regexpp';
import type { Alternative, CharacterClass, Element, Node, Quantifier } from '@eslint-community/regexpp/ast';

/** Above this many strings a set built by expanding alternations and classes is given up. */
const MAX_SET = 64;
/** A class of more characters than this is not expanded (`\d` is, `\w` is not). */
const MAX_CLASS = 10;

/** What a part of a pattern tells: the exact strings it matches (null: unknown or too many), a required set. */
interface Info {
  exact: Set<string> | null;
  /** Every match of the part contains one of these (null: nothing proved). */
  required: Set<string> | null;
}

const DIGITS = new Set('0123456789');
const NONE: Info = { exact: null, required: null };
const EMPTY: Info = { exact: new Set(['']), required: null };

/** Thrown inside the walk when the pattern has something that forbids any extraction. */
class Unprovable extends Error {}

/**
 * The literal set a pattern requires (at most `max` strings, each at least 2 characters), or [] when none is
 * proved. `unicode` parses as the u flag does (grep tries it first, then the legacy syntax).
 */

/**
 * The parser, loaded on first use from node_modules rather than bundled: a plain literal never needs it, and every
 * lro command would otherwise pay for compiling it at start-up (about 14 ms of `lro --version` measured).
 */
let parser: typeof Parser | undefined;
export function regexpParser(): typeof Parser {
  parser ??= (createRequire(import.meta.url)('@eslint-community/regexpp') as { RegExpParser: typeof Parser }).RegExpParser;
  return parser;
}

export function extractLiterals(pattern: string, unicode: boolean, max: number): string[] {
  return analyzeLiterals(pattern, unicode, max).literals;
}

export interface PatternLiterals {
  literals: string[];
  exact: string[] | null;
}

/**
 * The literals a pattern requires (as extractLiterals), and `exact`: the strings it matches when it is nothing but
 * a set of at most `max` literal strings, without an assertion (`(Failed|Accepted) password`, `uid=10(01|00)`),
 * else null. A text then matches exactly when it holds one of them, so a hit settles a record without the regex.
 */
export function analyzeLiterals(pattern: string, unicode: boolean, max: number): PatternLiterals {
  let tree: Node;
  try {
    tree = new (regexpParser())({ ecmaVersion: 2025 }).parsePattern(pattern, 0, pattern.length, { unicode });
  } catch {
    return { literals: [], exact: null };
  }
  try {
    const info = disjunction((tree as { alternatives: Alternative[] }).alternatives, max);
    const best = pick([info.exact, info.required], max);
    // (^, $ and \b count as empty strings in the walk: with one, the strings are required, not the whole match)
    const exact = usable(info.exact, max) && !hasAssertion(tree) ? [...info.exact] : null;
    return { literals: best ? [...best] : [], exact };
  } catch (e) {
    if (e instanceof Unprovable) return { literals: [], exact: null };
    throw e;
  }
}

function hasAssertion(n: Node): boolean {
  switch (n.type) {
    case 'Assertion':
      return true;
    case 'Pattern':
    case 'Group':
    case 'CapturingGroup':
      return n.alternatives.some((a) => a.elements.some(hasAssertion));
    case 'Quantifier':
      return hasAssertion(n.element);
    default:
      return false;
  }
}

/** A usable set: not too many strings, none shorter than 2 characters nor with a lone surrogate. */
function usable(s: Set<string> | null, max: number): s is Set<string> {
  if (!s || s.size === 0 || s.size > max) return false;
  for (const x of s) if (x.length < 2 || Buffer.from(x, 'utf8').toString('utf8') !== x) return false;
  return true;
}

/** How selective a set looks: its weakest string's length, longer and rarer bytes better, fewer strings better. */
function score(s: Set<string>): number {
  let weakest = Infinity;
  for (const x of s) {
    let v = 0;
    for (const c of x) v += /[A-Z0-9_"=<>{}[\]()#@$%&|~^*+;/\\-]/.test(c) ? 1.5 : c === ' ' || /[etaoinsr]/.test(c) ? 0.7 : 1;
    weakest = Math.min(weakest, v);
  }
  return weakest - Math.log2(s.size) * 0.5;
}

/** The best usable set among candidates, or null. */
function pick(candidates: (Set<string> | null)[], max: number): Set<string> | null {
  let best: Set<string> | null = null;
  for (const c of candidates) if (usable(c, max) && (!best || score(c) > score(best))) best = c;
  return best;
}

/** Each string of a followed by each of b; null if more than MAX_SET. */
function cross(a: Set<string>, b: Set<string>): Set<string> | null {
  if (a.size * b.size > MAX_SET) return null;
  const out = new Set<string>();
  for (const x of a) for (const y of b) out.add(x + y);
  return out;
}

function union(sets: (Set<string> | null)[]): Set<string> | null {
  const out = new Set<string>();
  for (const s of sets) {
    if (!s) return null;
    for (const x of s) out.add(x);
    if (out.size > MAX_SET) return null;
  }
  return out;
}

/** Alternatives: exact if all are; required when every alternative has a required (or exact) set. */
function disjunction(alternatives: Alternative[], max: number): Info {
  const infos = alternatives.map((a) => sequence(a.elements, max));
  const exact = union(infos.map((i) => i.exact));
  const required = union(infos.map((i) => pick([i.exact, i.required], max)));
  return { exact, required: usable(required, max) ? required : null };
}

/**
 * A sequence: runs of adjacent exact parts are joined (their cross product) into candidates; a part that is not
 * exact ends the run and offers its own required set. The best candidate is the sequence's required set.
 */
function sequence(elements: Element[], max: number): Info {
  const candidates: (Set<string> | null)[] = [];
  let run: Set<string> | null = new Set(['']);
  let whole: Set<string> | null = new Set(['']);
  for (const el of elements) {
    const info = element(el, max);
    whole = whole && info.exact ? cross(whole, info.exact) : null;
    if (info.exact) {
      const joined: Set<string> | null = run ? cross(run, info.exact) : null;
      if (joined) run = joined;
      else {
        candidates.push(run);
        run = info.exact;
      }
      continue;
    }
    if (run) candidates.push(run);
    candidates.push(info.required);
    // x+ (x{n,}): the run goes on into the first n repetitions and starts again with the last n
    const rep = repeatedExact(el, max);
    if (rep) {
      if (run) candidates.push(cross(run, rep));
      run = rep;
    } else run = new Set(['']);
  }
  if (run) candidates.push(run);
  return { exact: whole, required: pick(candidates, max) };
}

/** For a quantifier with min >= 1 over an exact part: that part repeated min times, else null. */
function repeatedExact(el: Element, max: number): Set<string> | null {
  if (el.type !== 'Quantifier' || el.min < 1) return null;
  const inner = element(el.element, max).exact;
  return inner ? power(inner, el.min) : null;
}

function power(s: Set<string>, n: number): Set<string> | null {
  let out: Set<string> | null = new Set(['']);
  for (let k = 0; k < n && out; k++) out = cross(out, s);
  return out;
}

function element(el: Element, max: number): Info {
  switch (el.type) {
    case 'Character':
      return { exact: new Set([String.fromCodePoint(el.value)]), required: null };
    case 'CharacterClass':
      return { exact: classSet(el), required: null };
    case 'CharacterSet':
      return el.kind === 'digit' && !el.negate ? { exact: DIGITS, required: null } : NONE;
    case 'Assertion':
      if (el.kind === 'lookahead' || el.kind === 'lookbehind') throw new Unprovable();
      return EMPTY; // ^ $ \b \B take no characters: the strings around them stay adjacent
    case 'Backreference':
      throw new Unprovable();
    case 'Group':
    case 'CapturingGroup':
      return disjunction(el.alternatives, max);
    case 'Quantifier':
      return quantifier(el, max);
    default:
      return NONE; // . \w \s \p{..}, character sets of the v flag
  }
}

function quantifier(q: Quantifier, max: number): Info {
  const inner = element(q.element, max);
  if (q.max !== Infinity && q.max <= 8 && inner.exact) {
    const options: (Set<string> | null)[] = [];
    for (let k = q.min; k <= q.max; k++) options.push(power(inner.exact, k));
    const exact = union(options);
    if (exact) return { exact, required: null };
  }
  return q.min >= 1 ? { exact: null, required: pick([inner.exact, inner.required], max) } : NONE;
}

/** The characters of a small class that is not negated, or null. */
function classSet(c: CharacterClass): Set<string> | null {
  if (c.negate || c.unicodeSets) return null;
  const out = new Set<string>();
  for (const e of c.elements) {
    if (e.type === 'Character') out.add(String.fromCodePoint(e.value));
    else if (e.type === 'CharacterClassRange') {
      if (e.max.value - e.min.value >= MAX_CLASS) return null;
      for (let v = e.min.value; v <= e.max.value; v++) out.add(String.fromCodePoint(v));
    } else if (e.type === 'CharacterSet' && e.kind === 'digit' && !e.negate) {
      for (let v = 0x30; v <= 0x39; v++) out.add(String.fromCharCode(v));
    } else return null;
    if (out.size > MAX_CLASS) return null;
  }
  return out.size > 0 ? out : null;
}
