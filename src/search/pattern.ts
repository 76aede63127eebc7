// A grep pattern compiled for lro: the JavaScript regular expression that decides, and the literals any match
// must contain, so large files are scanned with a fast substring search and only candidate records are decoded
// and tested (ripgrep's "required literal" idea, on a small scale).
import { UsageError } from '../errors.js';

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
}

const META = /[\\^$.*+?()[\]{}|]/;

/** Escapes a string for use inside a RegExp. */
export function escapeRegex(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

/** Compiles a grep pattern; an invalid regular expression is a usage error (exit 2). */
export function compilePattern(pattern: string, o: PatternOptions): Matcher {
  const literalOnly = o.fixed || !META.test(pattern);

  let source = o.fixed ? escapeRegex(pattern) : pattern;
  if (o.word) source = `(?<![\\p{L}\\p{N}_])(?:${source})(?![\\p{L}\\p{N}_])`;
  const flags = `g${o.ignoreCase ? 'i' : ''}`;
  let regex: RegExp;
  try {
    regex = new RegExp(source, `${flags}u`);
  } catch (unicodeError) {
    try {
      // not valid with the u flag (e.g. an identity escape like \- or \:); JavaScript's legacy syntax accepts it
      regex = new RegExp(o.word ? source.replace(/\\p\{L\}\\p\{N\}/g, 'A-Za-z0-9') : source, flags);
    } catch {
      const why = (unicodeError as Error).message.replace(/^Invalid regular expression: /, '');
      throw new UsageError(`invalid regular expression '${pattern}': ${why} (use -F for a fixed string)`);
    }
  }
  const literals = o.fixed ? [pattern] : requiredLiterals(pattern);
  return { regex, literals: literals.filter((l) => l.length > 0), ignoreCase: o.ignoreCase, linearTime: literalOnly || linearTime(pattern) };
}

/**
 * Whether a backtracking engine matches the pattern in time linear in the text: each attempt is bounded by the
 * pattern when nothing repeats without bound (*, +, {n,}) and nothing refers back (\1, \k<..>) or looks around.
 * (The -w wrapper adds one-character lookarounds, which keep that bound.)
 */
export function linearTime(pattern: string): boolean {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const d = pattern[i + 1];
      if ((d >= '1' && d <= '9') || d === 'k') return false;
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '*' || c === '+') return false;
    else if (c === '{' && /^\{\d+,\}/.test(pattern.slice(i))) return false;
    else if (c === '(' && pattern[i + 1] === '?' && /^\(\?(=|!|<=|<!)/.test(pattern.slice(i))) return false;
  }
  return true;
}

/**
 * For each top-level alternative of a regex, its longest run of literal characters that every match of that
 * alternative contains; [] when some alternative has no literal of 2+ characters (then nothing can be ruled out).
 */
export function requiredLiterals(pattern: string): string[] {
  const branches = splitTopLevel(pattern);
  const out: string[] = [];
  for (const b of branches) {
    const lit = longestLiteral(b);
    if (lit === null || lit.length < 2) return [];
    out.push(lit);
  }
  return out;
}

/** The alternatives of the top-level `|`, or [pattern] when there is none. */
function splitTopLevel(p: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let inClass = false;
  let start = 0;
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) {
      parts.push(p.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(p.slice(start));
  return parts;
}

const SIMPLE_ESCAPES = new Set([...'.*+?^$()[]{}|\\/-:=!,"\'#&%<>@~`;_ ']);

/** The longest run of characters this branch must match literally (null if the branch cannot be analyzed). */
function longestLiteral(b: string): string | null {
  let best = '';
  let run = '';
  const flush = () => {
    if (run.length > best.length) best = run;
    run = '';
  };
  for (let i = 0; i < b.length; i++) {
    const c = b[i];
    let lit: string | null = null;
    let zeroWidth = false;
    if (c === '\\') {
      const d = b[i + 1];
      i++;
      if (d === undefined) return null;
      if (d === 'b' || d === 'B') zeroWidth = true;
      else if (SIMPLE_ESCAPES.has(d)) lit = d;
      else if (d === 't') lit = '\t';
      else lit = null; // \d, \w, \s, \p{..}, \x.., \u...., backrefs: not literal
      if (d === 'p' || d === 'P' || d === 'u' || d === 'x' || d === 'c' || d === 'k') {
        // skip the escape's argument
        if (b[i + 1] === '{') i = b.indexOf('}', i);
        else if (d === 'x') i += 2;
        else if (d === 'u') i += 4;
        else if (d === 'c') i += 1;
        if (i < 0) return null;
      }
    } else if (c === '^' || c === '$') zeroWidth = true;
    else if (c === '(' || c === '[' || c === '.' || c === '|' || c === ')') {
      // a group, a class or any character: the run stops (groups are not descended into)
      if (c === '(') {
        const end = closingParen(b, i);
        if (end < 0) return null;
        i = end;
      } else if (c === '[') {
        const end = b.indexOf(']', i + 2);
        if (end < 0) return null;
        i = end;
      }
      flush();
      // a quantifier after the group or class applies to it, not to the run
      i = skipQuantifier(b, i);
      continue;
    } else if (c === '*' || c === '+' || c === '?' || c === '{') {
      return null; // a quantifier with nothing before it
    } else lit = c;
    if (zeroWidth) continue;
    if (lit === null) {
      flush();
      i = skipQuantifier(b, i);
      continue;
    }
    const q = b[i + 1];
    if (q === '*' || q === '?' || (q === '{' && /^\{0[,}]/.test(b.slice(i + 1)))) {
      // this character is optional: the run ends before it
      flush();
      i = skipQuantifier(b, i);
    } else if (q === '+' || q === '{') {
      run += lit;
      flush();
      i = skipQuantifier(b, i);
    } else run += lit;
  }
  flush();
  return best;
}

function closingParen(b: string, open: number): number {
  let depth = 0;
  let inClass = false;
  for (let i = open; i < b.length; i++) {
    const c = b[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
    } else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return -1;
}

/** Index of the last character of a quantifier following position i (i itself if there is none). */
function skipQuantifier(b: string, i: number): number {
  const q = b[i + 1];
  if (q === '*' || q === '+' || q === '?') i++;
  else if (q === '{') {
    const end = b.indexOf('}', i + 1);
    if (end > 0 && /^\{\d*(,\d*)?\}$/.test(b.slice(i + 1, end + 1))) i = end;
  }
  if (b[i + 1] === '?') i++; // lazy
  return i;
}
