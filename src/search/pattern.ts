// A grep pattern compiled for lro: the JavaScript regular expression that decides, and the literals any match
// must contain (search/literals.ts), so large files are scanned with a fast substring search and only candidate
// records are decoded and tested (ripgrep's "required literal" idea).
import { UsageError } from '../errors.js';
import { analyzeLiterals } from './literals.js';
import { MAX_NEEDLES } from '../kernel/scan.js';

export interface PatternOptions {
  fixed: boolean;
  ignoreCase: boolean;
  word: boolean;
}

export interface Matcher {
  /** Finds matches in a record's text; global (reset lastIndex before use). */
  readonly regex: RegExp;
  /** Every match contains one of these (as written; compare case-insensitively if ignoreCase). Empty: unknown. */
  readonly literals: string[];
  readonly ignoreCase: boolean;
  /** Whether matching takes time linear in the text: no unbounded repetition, backreference or lookaround
   * (then it needs no watchdog). */
  readonly linearTime: boolean;
  /**
   * When the pattern (before -w) is nothing but literal strings, as `-F TEXT` or `ERROR|FATAL`: those strings. A
   * text then matches exactly when it contains one of them (case aside with -i), so no regex needs to run.
   */
  readonly exact: string[] | null;
  /** The regex source before -w wraps it (escaped with -F), and whether it parses with the u flag. */
  readonly source: string;
  readonly unicode: boolean;
  readonly word: boolean;
}

const META = /[\\^$.*+?()[\]{}|]/;

/**
 * A set of literals without those that contain another one (`ac`, `aac`: a text holding `aac` holds `ac`), so
 * that the scan kernel looks for fewer needles, and for none whose every position is a candidate in a run of one
 * byte (`aac` in `aaaa…`, the first bytes of both matching everywhere).
 */
export function withoutSuperstrings(ls: string[]): string[] {
  const unique = [...new Set(ls)];
  return unique.filter((l) => !unique.some((o) => o.length < l.length && l.includes(o)));
}

/** Escapes a string for use inside a RegExp. */
export function escapeRegex(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

/** Compiles a grep pattern; an invalid regular expression is a usage error (exit 2). */
export function compilePattern(pattern: string, o: PatternOptions): Matcher {
  const literalOnly = o.fixed || !META.test(pattern);

  const bare = o.fixed ? escapeRegex(pattern) : pattern;
  const flags = `g${o.ignoreCase ? 'i' : ''}`;
  let regex: RegExp;
  let unicode = true;
  try {
    regex = new RegExp(o.word ? wordWrap(bare, true) : bare, `${flags}u`);
  } catch (unicodeError) {
    unicode = false;
    try {
      // not valid with the u flag (e.g. an identity escape like \- or \:); JavaScript's legacy syntax accepts it
      regex = new RegExp(o.word ? wordWrap(bare, false) : bare, flags);
    } catch {
      const why = (unicodeError as Error).message.replace(/^Invalid regular expression: /, '');
      throw new UsageError(`invalid regular expression '${pattern}': ${why} (use -F for a fixed string)`);
    }
  }
  // with -i the kernel may need two more needles for the non-ASCII letters that fold to ASCII (needles.ts)
  // (a pattern without a metacharacter is its own literal: no need to parse it)
  const found = o.fixed || literalOnly ? null : analyzeLiterals(pattern, unicode, MAX_NEEDLES - (o.ignoreCase ? 2 : 0));
  const literals = o.fixed ? [pattern] : found ? found.literals : [pattern].filter((l) => l.length >= 2);
  const exact = o.fixed ? (pattern ? [pattern] : null) : (literalAlternatives(pattern) ?? found?.exact ?? null);
  return {
    regex,
    literals: withoutSuperstrings(literals.filter((l) => l.length > 0)),
    ignoreCase: o.ignoreCase,
    linearTime: literalOnly || linearTime(pattern),
    // (with -w a hit of `ac` inside `aac` is no word, but `aac` may be: the longer strings stay)
    exact: exact && !o.word ? withoutSuperstrings(exact) : exact,
    source: bare,
    unicode,
    word: o.word,
  };
}

/** A regex source made to match whole words only (-w): no letter, digit or _ on either side (ASCII without u). */
export function wordWrap(source: string, unicode: boolean): string {
  const w = unicode ? '\\p{L}\\p{N}_' : 'A-Za-z0-9_';
  return `(?<![${w}])(?:${source})(?![${w}])`;
}

/** The branches of a pattern made only of literal text and top-level `|` (`ERROR|FATAL`), else null. */
export function literalAlternatives(pattern: string): string[] | null {
  const branches = pattern.split('|');
  return branches.every((b) => b.length > 0 && !META.test(b)) ? branches : null;
}

/** Above this many ways to try a pattern at one position, it is run where it can be stopped. */
const MAX_CHOICES = 128;

/** The quantifier at p[i] (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, maybe lazy): its bounds and length; null if none. */
function quantifierAt(p: string, i: number): { min: number; max: number; length: number } | null {
  const c = p[i];
  let q: { min: number; max: number; length: number } | null = null;
  if (c === '*') q = { min: 0, max: Infinity, length: 1 };
  else if (c === '+') q = { min: 1, max: Infinity, length: 1 };
  else if (c === '?') q = { min: 0, max: 1, length: 1 };
  else if (c === '{') {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i));
    if (m) q = { min: Number(m[1]), max: m[2] === undefined ? Number(m[1]) : m[3] === '' ? Infinity : Number(m[3]), length: m[0].length };
  }
  if (q && p[i + q.length] === '?') q.length++; // lazy
  return q;
}

/**
 * Whether a backtracking engine matches the pattern in time linear in the text with a small constant, so it
 * needs no watchdog. Not so when anything repeats without bound (*, +, {n,}), refers back (\1, \k<..>) or looks
 * around; when a group is quantified (`(a|a){1,30}` tries 2^30 ways); or when the optional parts and
 * alternatives multiply to more than MAX_CHOICES ways to try at one position (`a{1,2000}a{1,2000}b`).
 * (The -w wrapper adds one-character lookarounds, which keep that bound.)
 */
export function linearTime(pattern: string): boolean {
  let choices = 1;
  const alternatives: number[] = [1]; // per open group; [0] is the top level
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i];
    let atomIsGroup = false;
    if (c === '\\') {
      const d = pattern[i + 1];
      if ((d >= '1' && d <= '9') || d === 'k') return false;
      i += 2;
      if ((d === 'p' || d === 'P' || d === 'u') && pattern[i] === '{') i = pattern.indexOf('}', i) + 1 || pattern.length;
    } else if (c === '[') {
      // a class: up to its closing bracket (a "]" first in the class, or escaped, is literal)
      let j = i + 1;
      if (pattern[j] === '^') j++;
      if (pattern[j] === ']') j++;
      while (j < pattern.length && pattern[j] !== ']') j += pattern[j] === '\\' ? 2 : 1;
      i = j + 1;
    } else if (c === '(') {
      if (/^\(\?(=|!|<=|<!)/.test(pattern.slice(i, i + 4))) return false;
      alternatives.push(1);
      i++;
      if (pattern[i] === '?') {
        // (?:...) or (?<name>...): skip to the group's body
        i = pattern[i + 1] === '<' ? pattern.indexOf('>', i) + 1 || pattern.length : i + 2;
      }
      continue;
    } else if (c === ')') {
      choices *= alternatives.length > 1 ? alternatives.pop()! : 1;
      i++;
      atomIsGroup = true;
    } else if (c === '|') {
      alternatives[alternatives.length - 1]++;
      i++;
      continue;
    } else i++;
    const q = quantifierAt(pattern, i);
    if (q) {
      if (q.max === Infinity || atomIsGroup) return false;
      choices *= q.max - q.min + 1;
      i += q.length;
    }
    if (choices > MAX_CHOICES) return false;
  }
  choices *= alternatives[0];
  return choices <= MAX_CHOICES;
}
