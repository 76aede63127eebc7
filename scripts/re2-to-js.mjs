// Translates a Go (RE2) regular expression into a JavaScript one that matches the same text, for the secret rules
// (data/secrets/*.toml). The JavaScript side always runs on a latin1 string of the input bytes (one character per
// byte, so byte offsets are string offsets and every byte survives), which makes every character class a set of
// 256 characters: classes, `.`, `\s` and friends are emitted as explicit ranges over 0..255 with Go's meaning:
//   - `\s` is [\t\n\f\r ] (JavaScript's also matches \v and \xa0), `.` is anything but \n (JavaScript's also
//     excludes \r), `\S`, `\W`, `\D` and negated classes are complements within 0..255;
//   - case folding (`(?i)`, `(?i:…)`, `(?-i:…)`, scoped to the enclosing group as RE2 scopes it) is applied to the
//     sets and literals themselves (`a` → [aA], `[a-f]` → [a-fA-F]); the `i` flag is used instead when the whole
//     pattern folds, which is then equivalent (no latin1 character folds to an ASCII letter in JavaScript);
//   - `\z` → `$` and `^`, `$` keep RE2's non-multiline meaning, which is JavaScript's without the `m` flag;
//   - `(?P<name>…)` → `(?<name>…)`, `(?s:…)` → `.` as [\x00-\xff]; `{` that does not start a repeat is literal.
// Known, documented differences: RE2 matches runes and folds a few non-ASCII letters onto ASCII ones (the Kelvin
// sign K, the long s ſ); here a multi-byte UTF-8 character counts as several characters for a bounded repeat of a
// negated class, and those two foldings do not happen. Anything else this does not understand (another flag, \p
// classes, \Q…\E, back references) throws Untranslatable, and the rule is dropped and listed.

/** A pattern that cannot be translated exactly. */
export class Untranslatable extends Error {}

const MAX_REPEAT = 1000; // RE2's limit

/** Parses an RE2 pattern into a small tree; flags are resolved into each node (fold for letters, dotAll). */
function parse(pattern) {
  let pos = 0;
  const peek = (o = 0) => pattern[pos + o];
  const fail = (what) => {
    throw new Untranslatable(`${what} at offset ${pos}`);
  };

  function parseAlt(flags) {
    const branches = [];
    let items = [];
    const state = { ...flags };
    for (;;) {
      if (pos >= pattern.length) break;
      const c = peek();
      if (c === ')') break;
      if (c === '|') {
        pos++;
        branches.push(items);
        items = [];
        continue; // flags set by (?i) carry over into the next branch, as in RE2
      }
      const atom = parseAtom(state);
      if (atom === null) continue; // a flag setting
      items.push(parseRepeat(atom));
    }
    branches.push(items);
    return { type: 'alt', branches };
  }

  function parseRepeat(atom) {
    for (;;) {
      const c = peek();
      let min;
      let max;
      if (c === '*') [min, max] = [0, Infinity];
      else if (c === '+') [min, max] = [1, Infinity];
      else if (c === '?') [min, max] = [0, 1];
      else if (c === '{') {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(pos));
        if (!m) return atom; // a literal {, read by the caller next
        min = Number(m[1]);
        max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
        if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT) || max < min) fail('bad repeat');
        pos += m[0].length - 1;
      } else return atom;
      pos++;
      if (atom.type === 'repeat') fail('repeat of a repeat');
      if (atom.type === 'assert') fail('repeat of an assertion');
      let lazy = false;
      if (peek() === '?') {
        lazy = true;
        pos++;
      }
      atom = { type: 'repeat', min, max, lazy, body: atom };
    }
  }

  function parseAtom(state) {
    const c = peek();
    if (c === '(') return parseGroup(state);
    if (c === '[') return parseClass(state);
    if (c === '.') {
      pos++;
      return { type: 'set', set: state.s ? all() : without(all(), [10]) };
    }
    if (c === '^') {
      pos++;
      return { type: 'assert', kind: 'start' };
    }
    if (c === '$') {
      pos++;
      return { type: 'assert', kind: 'end' };
    }
    if (c === '*' || c === '+' || c === '?' || (c === '{' && /^\{\d+(,\d*)?\}/.test(pattern.slice(pos)))) fail('missing repeat argument');
    if (c === '\\') {
      pos++;
      const e = peek();
      pos++;
      if (e === 'b') return { type: 'assert', kind: 'word' };
      if (e === 'B') return { type: 'assert', kind: 'nonword' };
      if (e === 'A') return { type: 'assert', kind: 'start' };
      if (e === 'z') return { type: 'assert', kind: 'end' };
      const set = perlClass(e);
      if (set) return { type: 'set', set };
      pos -= 2;
      return literal(readEscapedChar(), state);
    }
    pos++;
    return literal(c.charCodeAt(0), state);
  }

  function literal(code, state) {
    if (code > 0x7f) fail('non-ASCII literal');
    return { type: 'set', set: fold(new Set([code]), state.i), single: true };
  }

  function parseGroup(state) {
    pos++; // (
    let capture = true;
    let name;
    const inner = { ...state };
    if (peek() === '?') {
      const rest = pattern.slice(pos);
      let m;
      if ((m = /^\?P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest))) {
        name = m[1];
        pos += m[0].length;
      } else if ((m = /^\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])/.exec(rest))) {
        const on = m[1];
        const off = m[2] ?? '';
        for (const f of on + off) if (f !== 'i' && f !== 's') fail(`flag ${f}`);
        if (m[2] !== undefined && off === '') fail('empty negated flags');
        for (const f of on) inner[f] = true;
        for (const f of off) inner[f] = false;
        pos += m[0].length;
        if (m[3] === ')') {
          Object.assign(state, inner); // (?i): for the rest of the enclosing group
          return null;
        }
        capture = false;
      } else fail('unknown group syntax');
    }
    const body = parseAlt(inner);
    if (peek() !== ')') fail('missing )');
    pos++;
    return { type: 'group', capture, name, body };
  }

  function parseClass(state) {
    pos++; // [
    let negate = false;
    if (peek() === '^') {
      negate = true;
      pos++;
    }
    const set = new Set();
    let first = true;
    for (;;) {
      if (pos >= pattern.length) fail('missing ]');
      let c = peek();
      if (c === ']' && !first) {
        pos++;
        break;
      }
      first = false;
      if (c === '[' && peek(1) === ':') {
        const m = /^\[:(\^?)([a-z]+):\]/.exec(pattern.slice(pos));
        if (!m) fail('bad POSIX class');
        const posix = POSIX[m[2]];
        if (!posix) fail(`POSIX class ${m[2]}`);
        const s = setOf(posix);
        for (const x of m[1] ? complement(s) : s) set.add(x);
        pos += m[0].length;
        continue;
      }
      let lo;
      if (c === '\\') {
        const e = pattern[pos + 1];
        const perl = perlClass(e);
        if (perl) {
          pos += 2;
          for (const x of perl) set.add(x);
          continue;
        }
        lo = readEscapedChar();
      } else {
        pos++;
        lo = c.charCodeAt(0);
      }
      let hi = lo;
      if (peek() === '-' && peek(1) !== ']' && peek(1) !== undefined) {
        pos++;
        c = peek();
        if (c === '\\') {
          if (perlClass(pattern[pos + 1])) fail('range to a class');
          hi = readEscapedChar();
        } else {
          pos++;
          hi = c.charCodeAt(0);
        }
        if (hi < lo) fail('bad range');
      }
      if (hi > 0x7f) fail('non-ASCII class member');
      for (let x = lo; x <= hi; x++) set.add(x);
    }
    const folded = fold(set, state.i);
    return { type: 'set', set: negate ? complement(folded) : folded };
  }

  /** Reads \x.., \n, \t, … or an escaped punctuation character at pos (which is at the backslash). */
  function readEscapedChar() {
    pos++; // backslash
    const e = peek();
    if (e === undefined) fail('trailing backslash');
    pos++;
    const simple = { n: 10, r: 13, t: 9, f: 12, v: 11, a: 7 };
    if (e in simple) return simple[e];
    if (e === 'x') {
      const m = /^(?:([0-9a-fA-F]{2})|\{([0-9a-fA-F]{1,6})\})/.exec(pattern.slice(pos));
      if (!m) fail('bad \\x');
      pos += m[0].length;
      return parseInt(m[1] ?? m[2], 16);
    }
    if (/[!-/:-@[-`{-~]/.test(e)) return e.charCodeAt(0); // escaped punctuation is itself
    fail(`escape \\${e}`);
  }

  const tree = parseAlt({ i: false, s: false });
  if (pos < pattern.length) fail('unbalanced )');
  return tree;
}

const POSIX = {
  alnum: [[48, 57], [65, 90], [97, 122]],
  alpha: [[65, 90], [97, 122]],
  ascii: [[0, 127]],
  blank: [[9, 9], [32, 32]],
  cntrl: [[0, 31], [127, 127]],
  digit: [[48, 57]],
  graph: [[33, 126]],
  lower: [[97, 122]],
  print: [[32, 126]],
  punct: [[33, 47], [58, 64], [91, 96], [123, 126]],
  space: [[9, 13], [32, 32]],
  upper: [[65, 90]],
  word: [[48, 57], [65, 90], [97, 122], [95, 95]],
  xdigit: [[48, 57], [65, 70], [97, 102]],
};

function setOf(ranges) {
  const s = new Set();
  for (const [lo, hi] of ranges) for (let x = lo; x <= hi; x++) s.add(x);
  return s;
}
const all = () => setOf([[0, 255]]);
const complement = (s) => new Set([...all()].filter((x) => !s.has(x)));
const without = (s, xs) => new Set([...s].filter((x) => !xs.includes(x)));
const WORD = setOf(POSIX.word);
const DIGIT = setOf(POSIX.digit);
const SPACE = setOf([[9, 10], [12, 13], [32, 32]]); // RE2's \s: \t \n \f \r space (not \v)

/** The set of a Perl class escape letter (\d \D \s \S \w \W), or null. */
function perlClass(e) {
  switch (e) {
    case 'd':
      return DIGIT;
    case 'D':
      return complement(DIGIT);
    case 's':
      return SPACE;
    case 'S':
      return complement(SPACE);
    case 'w':
      return WORD;
    case 'W':
      return complement(WORD);
    default:
      if (e === 'p' || e === 'P' || e === 'Q' || e === 'C' || /[0-9]/.test(e ?? '')) throw new Untranslatable(`escape \\${e}`);
      return null;
  }
}

/** Adds the other case of every ASCII letter when folding. */
function fold(set, on) {
  if (!on) return set;
  const out = new Set(set);
  for (const x of set) {
    if (x >= 65 && x <= 90) out.add(x + 32);
    else if (x >= 97 && x <= 122) out.add(x - 32);
  }
  return out;
}

/** Whether every set built from a letter in the tree was folded (then the `i` flag is equivalent). */
function foldsEverywhere(pattern) {
  // A pattern folds everywhere when it starts with (?i) and never turns folding off.
  return /^\(\?i\)/.test(pattern) && !/\(\?-i/.test(pattern) && !/\(\?[a-z]*-[a-z]*i/.test(pattern);
}

const hex = (x) => `\\x${x.toString(16).padStart(2, '0')}`;

/** One character inside a JavaScript class (or alone, when `alone`). */
function emitChar(x, alone) {
  if ((x >= 48 && x <= 57) || (x >= 65 && x <= 90) || (x >= 97 && x <= 122) || x === 95) return String.fromCharCode(x);
  if (x < 32 || x >= 127) return hex(x);
  const ch = String.fromCharCode(x);
  if (alone) return /[\\^$.|?*+()[\]{}/-]/.test(ch) ? `\\${ch}` : ch;
  return /[\\\]^[-]/.test(ch) ? `\\${ch}` : ch === ' ' ? ' ' : ch;
}

function ranges(set) {
  const xs = [...set].sort((a, b) => a - b);
  const out = [];
  for (const x of xs) {
    const last = out[out.length - 1];
    if (last && last[1] === x - 1) last[1] = x;
    else out.push([x, x]);
  }
  return out;
}

function emitRanges(rs) {
  return rs.map(([lo, hi]) => (lo === hi ? emitChar(lo, false) : hi === lo + 1 ? emitChar(lo, false) + emitChar(hi, false) : `${emitChar(lo, false)}-${emitChar(hi, false)}`)).join('');
}

/** A set as JavaScript: a single character, a class, or a negated class (whichever is shorter). */
function emitSet(set, useI) {
  if (set.size === 256) return '[\\s\\S]';
  if (set.size === 0) return '[^\\s\\S]';
  let s = set;
  if (useI) {
    // with the i flag, one case of each letter is enough (shorter, and what V8 folds anyway)
    s = new Set([...set].filter((x) => !(x >= 65 && x <= 90 && set.has(x + 32))));
  }
  if (s.size === 1) return emitChar([...s][0], true);
  const pos = ranges(s);
  const neg = ranges(complement(set));
  if (neg.length < pos.length && !useI) return `[^${emitRanges(neg)}]`;
  return `[${emitRanges(pos)}]`;
}

function emit(node, useI) {
  switch (node.type) {
    case 'alt':
      return node.branches.map((items) => items.map((n) => emit(n, useI)).join('')).join('|');
    case 'group':
      if (!node.capture) return `(?:${emit(node.body, useI)})`;
      return node.name ? `(?<${node.name}>${emit(node.body, useI)})` : `(${emit(node.body, useI)})`;
    case 'repeat': {
      const body = node.body.type === 'set' || node.body.type === 'group' ? emit(node.body, useI) : `(?:${emit(node.body, useI)})`;
      const q =
        node.min === 0 && node.max === Infinity
          ? '*'
          : node.min === 1 && node.max === Infinity
            ? '+'
            : node.min === 0 && node.max === 1
              ? '?'
              : node.max === Infinity
                ? `{${node.min},}`
                : node.min === node.max
                  ? `{${node.min}}`
                  : `{${node.min},${node.max}}`;
      return `${body}${q}${node.lazy ? '?' : ''}`;
    }
    case 'set':
      return emitSet(node.set, useI);
    case 'assert':
      return { start: '^', end: '$', word: '\\b', nonword: '\\B' }[node.kind];
  }
  throw new Error(`unknown node ${node.type}`);
}

/** Capture groups of the tree in order: whether each is named, or inside a repeat or an alternation. */
function captures(node, inRepeat = false, out = []) {
  if (node.type === 'alt') {
    for (const items of node.branches) for (const n of items) captures(n, inRepeat, out);
  } else if (node.type === 'group') {
    if (node.capture) out.push({ named: !!node.name, repeated: inRepeat });
    captures(node.body, inRepeat, out);
  } else if (node.type === 'repeat') captures(node.body, inRepeat || node.max > 1, out);
  return out;
}

/** Whether a repeat holds an unbounded repeat (`(?:x.*){1,5}`): backtracking on it can take exponential time. */
function nestedUnbounded(node, inRepeat = false) {
  switch (node.type) {
    case 'alt':
      return node.branches.some((items) => items.some((n) => nestedUnbounded(n, inRepeat)));
    case 'group':
      return nestedUnbounded(node.body, inRepeat);
    case 'repeat':
      if (inRepeat && node.max === Infinity) return true;
      return nestedUnbounded(node.body, inRepeat || node.max > 1);
    default:
      return false;
  }
}

/**
 * Translates an RE2 pattern: `{source, flags, groups}` for `new RegExp(source, flags)`; `groups` is how many
 * capture groups it has and `labels` whether they only label alternatives or repeat (then the whole match is the
 * secret to hide; see secrets/scan.ts). Throws Untranslatable.
 */
export function translateRe2(pattern) {
  const tree = parse(pattern);
  const useI = foldsEverywhere(pattern);
  const source = emit(tree, useI);
  const caps = captures(tree);
  // JavaScript must accept it (and V8 11 has no inline modifiers, which this never emits)
  new RegExp(source, useI ? 'i' : '');
  return { source, flags: useI ? 'i' : '', groups: caps.length, labels: caps.some((c) => c.named || c.repeated), risky: nestedUnbounded(tree) };
}

const MAX_EXACT = 64;

/** The lower-case string a set stands for when it is one character or one letter in both cases; else null. */
function setChar(set) {
  const xs = [...set];
  if (xs.length === 1) return String.fromCharCode(xs[0]).toLowerCase();
  if (xs.length === 2 && String.fromCharCode(xs[0]).toLowerCase() === String.fromCharCode(xs[1]).toLowerCase()) return String.fromCharCode(xs[0]).toLowerCase();
  return null;
}

/** Higher for sets whose shortest string is longer (rarer in text); then for fewer strings. */
const score = (set) => Math.min(...set.map((s) => s.length)) * 100 - set.length;

/** Marks an assertion in a prefix: safe only when nothing else can come before the literal. */
const ASSERTED = -1;

/**
 * The characters an optional repeat of a set (`[\w.-]{0,50}?`) can consume (an assertion: ASSERTED), or null
 * for any other node.
 */
function optionalRun(node) {
  if (node.type === 'assert') return new Set([ASSERTED]);
  if (node.type === 'repeat' && node.min === 0 && node.body.type === 'set') return node.body.set;
  if (node.type === 'group' && node.body.branches.length === 1) {
    const sets = node.body.branches[0].map(optionalRun);
    return sets.every(Boolean) ? new Set(sets.flatMap((x) => [...x])) : null;
  }
  return null;
}

/** Two prefixes together; null when either is, or when an assertion would sit among consumed characters. */
function union(a, b) {
  if (!a || !b) return null;
  const u = new Set([...a, ...b]);
  return u.has(ASSERTED) && u.size > 1 ? null : u;
}

/**
 * Facts about what a node matches: its greatest `width`; `exact`, every string it can match (lower case), when
 * there are few; `anchor`, strings one of which every match contains, starting at most `offset` characters after
 * the start of the match, and `prefix`, the characters that can come before it in the match when all that comes
 * before is optional repeats of sets (null otherwise).
 */
function facts(node) {
  switch (node.type) {
    case 'set': {
      const c = setChar(node.set);
      return { width: 1, exact: c === null ? null : [c], anchor: null };
    }
    case 'assert':
      return { width: 0, exact: [''], anchor: null };
    case 'group':
      return facts(node.body);
    case 'repeat': {
      const inner = facts(node.body);
      const width = node.max === Infinity || inner.width === Infinity ? Infinity : inner.width * node.max;
      if (node.min === 1 && node.max === 1) return { ...inner, width };
      if (node.min === 0) return { width, exact: null, anchor: null };
      // the first repetition holds what the body holds
      return { width, exact: null, anchor: inner.exact && !inner.exact.includes('') ? { set: inner.exact, offset: 0, prefix: new Set() } : inner.anchor };
    }
    case 'alt': {
      const branches = node.branches.map((items) => facts({ type: 'seq', items }));
      const width = Math.max(...branches.map((b) => b.width));
      if (branches.every((b) => b.exact)) {
        const exact = [...new Set(branches.flatMap((b) => b.exact))];
        if (exact.length <= MAX_EXACT) return { width, exact, anchor: null };
      }
      const each = branches.map((b) => (b.exact && !b.exact.includes('') ? { set: b.exact, offset: 0, prefix: new Set() } : b.anchor));
      if (!each.every(Boolean)) return { width, exact: null, anchor: null };
      return {
        width,
        exact: null,
        anchor: {
          set: [...new Set(each.flatMap((a) => a.set))],
          offset: Math.max(...each.map((a) => a.offset)),
          prefix: each.reduce((p, a) => union(p, a.prefix), new Set()),
        },
      };
    }
    case 'seq': {
      let width = 0; // of the items so far
      let clean = new Set(); // what the items so far can consume, while they are all optional runs
      let run = ['']; // every string the current run of exact items can match
      let runStart = 0; // where that run starts (greatest offset)
      let runPrefix = clean;
      let broken = false;
      let best = null;
      const consider = (set, offset, prefix) => {
        if (!set || set.includes('') || offset === Infinity) return;
        // prefer a literal that only optional runs precede (one try per occurrence), then a rarer one, then nearer
        const rank = (c) => [c.prefix ? 1 : 0, score(c.set), -c.offset];
        const mine = rank({ set, offset, prefix });
        const theirs = best && rank(best);
        if (!theirs || mine[0] > theirs[0] || (mine[0] === theirs[0] && (mine[1] > theirs[1] || (mine[1] === theirs[1] && mine[2] > theirs[2])))) {
          best = { set, offset, prefix };
        }
      };
      for (const item of node.items) {
        const f = facts(item);
        if (f.exact && run.length * f.exact.length <= MAX_EXACT) {
          if (run.length === 1 && run[0] === '') runPrefix = clean;
          run = run.flatMap((a) => f.exact.map((b) => a + b));
        } else {
          broken = true;
          consider(run, runStart, runPrefix);
          if (f.exact) consider(f.exact, width, clean);
          else if (f.anchor) consider(f.anchor.set, width + f.anchor.offset, f.anchor.prefix && union(clean, f.anchor.prefix));
          run = f.exact ?? [''];
          runStart = f.exact ? width : width + f.width;
          runPrefix = f.exact ? clean : null;
        }
        width += f.width;
        const opt = optionalRun(item);
        clean = clean && opt ? union(clean, opt) : null;
      }
      if (!broken) return { width, exact: run, anchor: null };
      consider(run, runStart, runPrefix);
      return { width, exact: null, anchor: best };
    }
  }
  return { width: Infinity, exact: null, anchor: null };
}

/**
 * Where every match of the pattern must hold one of a few literals: `{literals, maxOffset, prefix}` (lower case;
 * the literal starts at most maxOffset characters into the match; `prefix`, when not null, the ranges of the only
 * characters that can come before it in a match), or null. The engine looks for the literals first and tries the
 * regex only where a match could start (see secrets/scan.ts).
 */
export function anchorOf(pattern) {
  const f = facts(parse(pattern));
  const a = f.exact && !f.exact.includes('') ? { set: f.exact, offset: 0, prefix: new Set() } : f.anchor;
  if (!a || a.set.some((s) => s.length < 2) || a.offset === Infinity) return null;
  // a string starting with another one of the set adds nothing (it is found through the shorter one)
  const literals = [...new Set(a.set)].filter((s, _, all) => !all.some((o) => o !== s && s.startsWith(o))).sort();
  return { literals, maxOffset: a.offset, prefix: a.prefix ? ranges(new Set([...a.prefix].filter((x) => x !== ASSERTED))) : null };
}

/**
 * Lower-case strings one of which every match of the pattern contains (a prefilter for rules without keywords,
 * as RE2's own prefilter does), or null when there is no such set worth using (strings of 3 characters or more).
 */
export function requiredLiterals(pattern) {
  const a = anchorOf(pattern);
  if (!a || a.literals.some((s) => s.length < 3)) return null;
  return a.literals;
}
