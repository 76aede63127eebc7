// A pattern with no literal to look for (`\d{4}-\d{2}`, `[A-Z]{5,}\d`, an IP) is not tested record by record:
// one regex runs over a window of many stored records at once (a string of up to 64 KB: V8's irregexp scans
// those at memory speed, several times slower on strings of a few hundred KB), and only the records where it
// matches are decoded and tested (search/grep.ts). The regex is the pattern rewritten for the stored bytes, so
// that every record whose text matches has a match in its stored bytes (no record is missed); a match in the
// stored bytes is only a candidate, which the pattern then decides on the record's text.
//
// Why it is sound. A text record is stored as its line in JSON quotes ("..."), escaping only `"`, `\` and
// control characters; a record without a backslash and without a byte beyond ASCII therefore stores its text
// byte for byte between two quotes, one character a byte. The window string is latin1 (a character a byte, so
// offsets are byte offsets), and records holding a backslash or a non-ASCII byte are always candidates: a match
// in the rest is on their exact text. With the m flag, `^` and `$` match at the records' edges: they become `^"`
// and `"$` (the quotes are consumed); `\b` and the -w lookarounds see a quote or a newline past the text, neither
// a word character, as they see nothing past a line. Nothing of the rewritten pattern may match a newline (a
// negated class gets `\n` added), so a match never spans records and no attempt runs past its record's end.
// Refused (null, the record-by-record way): lookarounds and backreferences (they could see past a record's text),
// `^`/`$` together with `\b`/`\B`, anything else that matches a newline, and patterns that match an empty string.
// A json record's stored bytes are its text (compact JSON): nothing is rewritten, only non-ASCII records are kept.
import { isAscii } from 'node:buffer';
import type { Alternative, Element, Node, Pattern } from '@eslint-community/regexpp/ast';
import { regexpParser } from './literals.js';
import type { Matcher } from './pattern.js';
import { wordWrap } from './pattern.js';
import { byteRarity } from '../kernel/scan.js';
import { lastTried } from './slow-pattern.js';

/** The most stored bytes one regex runs over at once (whole records; a longer record is a window by itself). */
export const WINDOW = 64 << 10;

/**
 * Where a record's stored bytes may differ from its text one character a byte: a backslash (text records), a
 * non-ASCII byte. (A window that is all ASCII, the usual case, is only searched for backslashes, at memchr speed.)
 */
const SPECIAL_QUOTED = /[\\\x80-\xff]/g;
const SPECIAL_BARE = /[\x80-\xff]/g;

/** Thrown inside the walk for a construct that makes the pattern unfit for a window. */
class Unfit extends Error {}

interface Edit {
  at: number;
  end: number;
  text: string;
}

interface Walk {
  edits: Edit[];
  anchors: boolean;
  words: boolean;
  /** Some character the pattern consumes may be a quote. */
  quotes: boolean;
  quoted: boolean;
  flags: string;
}

/** The regex for a window of stored records (flags gm, and i, u as the pattern's). */
export interface ChunkRegex {
  /** Finds the candidates: the whole pattern, or its part from its rarest literal character (see rareStart). */
  find: RegExp;
  /** Text records (the text is inside quotes); else json records. */
  quoted: boolean;
  /**
   * The whole pattern rewritten, when a match of it strictly inside a plain record's quotes proves the record's
   * text matches (see RegexFinder.settles): text records, no ^ or $ (they consume the quotes); else null.
   */
  whole: RegExp | null;
  /**
   * No part of the pattern matches a quote and there is no ^ or $: any match inside a plain record lies inside
   * its quotes, so it settles the record without finding where the match starts (no match object is made).
   */
  quoteFree: boolean;
}

/**
 * The regex that finds candidate records in a window of stored records (`quoted`: text records; else json
 * records), or null when the pattern is unfit for one.
 */
export function chunkRegex(m: Matcher, quoted: boolean): ChunkRegex | null {
  const flags = `${m.ignoreCase ? 'i' : ''}${m.unicode ? 'u' : ''}`;
  let tree: Pattern;
  try {
    const parser = new (regexpParser())({ ecmaVersion: 2025 });
    tree = parser.parsePattern(m.source, 0, m.source.length, { unicode: m.unicode });
  } catch {
    return null;
  }
  const w: Walk = { edits: [], anchors: false, words: false, quotes: false, quoted, flags };
  try {
    for (const a of tree.alternatives) visit(a, w);
  } catch (e) {
    if (e instanceof Unfit) return null;
    throw e;
  }
  if (w.anchors && w.words && quoted) return null;
  // (the whole pattern must be fit too: a part of it that is fit says nothing about the rest)
  if (!windowRegex(m, applyEdits(m.source, w.edits, 0, m.source.length), flags)) return null;
  const at = m.word ? null : rareStart(tree, m.ignoreCase);
  const edited = (from: number, to: number) => applyEdits(m.source, w.edits, from, to);
  const end = m.source.length;
  const source = at ? `${edited(at.start, at.end)}(?<=${edited(0, at.end)})${edited(at.end, end)}` : edited(0, end);
  const find = windowRegex(m, source, flags);
  if (!find) return null;
  const whole = quoted && !w.anchors ? (at ? windowRegex(m, edited(0, end), flags) : find) : null;
  return { find, quoted, whole, quoteFree: whole !== null && !w.quotes };
}

/** The rewritten source as a global multiline regex; null if it does not compile or matches "" or a newline. */
function windowRegex(m: Matcher, source: string, flags: string): RegExp | null {
  if (m.word) source = wordWrap(source, m.unicode);
  try {
    const probe = new RegExp(source, `m${flags}`);
    return probe.test('') || probe.test('\n') ? null : new RegExp(source, `gm${flags}`);
  } catch {
    return null;
  }
}

/**
 * The literal character to start the search at, when the pattern is one sequence that starts with a class or a
 * repetition: its rarest one. irregexp skips quickly to a literal first character, and tries the pattern at
 * every position otherwise; so `\d{4}-\d{2}` is searched as `-(?<=\d{4}-)\d{2}` (the same matches, found at
 * their `-`: the part before it is checked backwards from there, and the rest of the record is the same).
 */
function rareStart(tree: Pattern, ignoreCase: boolean): Element | null {
  if (tree.alternatives.length !== 1) return null;
  const els = tree.alternatives[0].elements;
  if (els.length < 2 || els[0].type === 'Character' || els[0].type === 'Assertion') return null;
  let best = -1;
  let bestRarity = -1;
  for (let i = 1; i < els.length; i++) {
    const e = els[i];
    if (e.type !== 'Character' || e.value > 0x7f) continue;
    const c = e.value;
    const letter = (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a;
    const r = ignoreCase && letter ? Math.min(byteRarity(c | 0x20), byteRarity(c & ~0x20)) : byteRarity(c);
    if (r > bestRarity) [best, bestRarity] = [i, r];
  }
  return best < 0 ? null : els[best];
}

/** The source from..to with the edits inside it applied. */
function applyEdits(source: string, edits: Edit[], from: number, to: number): string {
  let out = '';
  let at = from;
  for (const e of [...edits].sort((a, b) => a.at - b.at)) {
    if (e.at < from || e.end > to) continue;
    out += source.slice(at, e.at) + e.text;
    at = e.end;
  }
  return out + source.slice(at, to);
}

/** Whether a one-character construct (its source) matches a newline. */
function matchesNewline(raw: string, flags: string): boolean {
  return matchesChar(raw, flags, '\n');
}

/** Whether a one-character construct (its source) matches `c` (true when that cannot be told). */
function matchesChar(raw: string, flags: string, c: string): boolean {
  try {
    return new RegExp(raw, flags).test(c);
  } catch {
    return true;
  }
}

function visit(node: Node, w: Walk): void {
  switch (node.type) {
    case 'Alternative':
      for (const e of (node as Alternative).elements) visit(e, w);
      return;
    case 'Group':
    case 'CapturingGroup':
      if ('modifiers' in node && node.modifiers) throw new Unfit(); // (?s:.) and the like
      for (const a of node.alternatives) visit(a, w);
      return;
    case 'Quantifier':
      if (node.element.type === 'Assertion') throw new Unfit();
      visit(node.element, w);
      return;
    default:
      visitAtom(node as Element, w);
  }
}

function visitAtom(node: Element, w: Walk): void {
  switch (node.type) {
    case 'Assertion':
      if (node.kind === 'word') w.words = true;
      else if (node.kind === 'start' || node.kind === 'end') {
        w.anchors = true;
        if (w.quoted) w.edits.push({ at: node.start, end: node.end, text: node.kind === 'start' ? '^"' : '"$' });
      } else throw new Unfit(); // lookarounds
      return;
    case 'Character':
      if (node.value === 0x0a) throw new Unfit();
      if (node.value === 0x22) w.quotes = true;
      return;
    case 'CharacterSet':
      if (matchesNewline(node.raw, w.flags)) throw new Unfit();
      if (matchesChar(node.raw, w.flags, '"')) w.quotes = true;
      return;
    case 'CharacterClass': {
      if (node.unicodeSets) throw new Unfit();
      // a negated class would match the newline between records: it no longer does (no text holds one)
      const raw = node.negate ? `${node.raw.slice(0, -1)}\\n]` : node.raw;
      if (matchesNewline(raw, w.flags)) throw new Unfit();
      if (matchesChar(raw, w.flags, '"')) w.quotes = true;
      if (node.negate) w.edits.push({ at: node.end - 1, end: node.end - 1, text: '\\n' });
      return;
    }
    default:
      throw new Unfit(); // backreferences, the v flag's class expressions
  }
}

/** Finds candidate records for grep.ts: the first position at or after `start` worth testing, or -1. */
export interface LineFinder {
  /** A new chunk of records is in memory. */
  reset(): void;
  /**
   * A position in [start, end) of view inside the first candidate record there, or -1 when there is none. (A
   * finder may also stop early at the start of a record, which is then tested as a candidate.)
   */
  find(view: Buffer, start: number, end: number): number;
  /** Grows as the finder goes through the data: the search reports progress when it does (see grep.ts). */
  readonly windows?: number;
  /** Called with the start of each window before a regex runs over it (the search names its first record). */
  onWindow?: (start: number) => void;
  /**
   * Whether the record stored at [ls, le) of view, where the last find() stopped, is proved to match without
   * testing its text (a count then needs no text at all).
   */
  settles?(view: Buffer, ls: number, le: number): boolean;
  /**
   * The text of the record stored at [ls, le) of view (le at its newline) when its stored bytes are that text
   * (in quotes for a text record), from what the last find() searched, with no copy; else undefined.
   */
  plainText?(view: Buffer, ls: number, le: number): string | undefined;
}

/**
 * Runs a chunkRegex over windows of a chunk's stored records; also yields every record holding a backslash or
 * a non-ASCII byte. The next match and the next such record are kept until passed (the search goes forward).
 * One find() searches one window at most, so the search can report progress between windows (a pattern slow on
 * a long record is stopped by the watchdog only when a window makes no progress, as a record did before).
 */
export class RegexFinder implements LineFinder {
  private text = '';
  private ascii = false;
  private ws = 0;
  private we = 0;
  private loaded = false;
  private hit = -1;
  /** The end of the match at `hit` (relative to the window, as hit is). */
  private hitEnd = -1;
  private lastEnd = -1;
  private odd = -1;
  private readonly special: RegExp;
  windows = 0;
  onWindow?: (start: number) => void;

  constructor(private readonly cr: ChunkRegex) {
    this.special = new RegExp(cr.quoted ? SPECIAL_QUOTED : SPECIAL_BARE);
  }

  reset(): void {
    this.loaded = false;
  }

  find(view: Buffer, start: number, end: number): number {
    if (start >= end) return -1;
    if (!this.loaded || start < this.ws || start >= this.we) this.load(view, start, end);
    const rel = start - this.ws;
    if (this.hit < rel) {
      this.hit = this.next(this.cr.find, rel);
      this.hitEnd = this.lastEnd;
    }
    if (this.odd < rel) this.odd = this.nextSpecial(rel);
    const h = Math.min(this.hit, this.odd);
    if (h < this.text.length) return this.ws + h;
    return this.we < end ? this.we : -1;
  }

  /**
   * Counts the records of the window from `start` (whole records up to `end`) that match: those a match settles,
   * and the other candidates that `test` (given a record's stored bytes [ls, le)) says match. Returns the count;
   * the next window starts at `windowEnd`.
   */
  countWindow(view: Buffer, start: number, end: number, test: (ls: number, le: number) => boolean): number {
    this.load(view, start, end);
    let count = 0;
    for (let at = start; at < this.we; ) {
      const hit = this.find(view, at, this.we);
      if (hit < 0) break;
      const ls = this.ws + this.text.lastIndexOf('\n', hit - this.ws - 1) + 1;
      const le = this.ws + this.text.indexOf('\n', hit - this.ws);
      if (this.settles(view, ls, le) || test(ls, le)) count++;
      at = le + 1;
    }
    return count;
  }

  /** Where the window loaded last ends. */
  get windowEnd(): number {
    return this.we;
  }

  /** The window from `start`: up to WINDOW bytes of whole records (a longer record whole). */
  private load(view: Buffer, start: number, end: number): void {
    let we = Math.min(end, start + WINDOW);
    if (we < end) {
      const nl = view.lastIndexOf(0x0a, we - 1);
      we = nl >= start ? nl + 1 : view.indexOf(0x0a, we) + 1;
    }
    this.ws = start;
    this.we = we;
    this.text = view.toString('latin1', start, we);
    this.ascii = isAscii(view.subarray(start, we));
    this.hit = this.odd = -1;
    this.loaded = true;
    this.windows++;
    // a search stopped inside this regex is diagnosed on the window's first record (slow-pattern.ts), or none
    lastTried.n = 0;
    lastTried.text = '';
    this.onWindow?.(start);
  }

  /**
   * A record without a backslash or a non-ASCII byte, in the window loaded, is its text one character a byte:
   * the text is a part of the window's string (no decoding; V8 makes a slice of it).
   */
  plainText(view: Buffer, ls: number, le: number): string | undefined {
    if (!this.loaded || ls < this.ws || le >= this.we) return undefined;
    if (this.odd < ls - this.ws) this.odd = this.nextSpecial(ls - this.ws);
    if (this.odd < le - this.ws) return undefined;
    const q = this.cr.quoted ? 1 : 0;
    if (q && (le - ls < 2 || view[ls] !== 0x22 || view[le - 1] !== 0x22)) return undefined;
    return this.text.slice(ls + q - this.ws, le - q - this.ws);
  }

  private nextSpecial(from: number): number {
    if (!this.ascii) return this.next(this.special, from);
    if (!this.cr.quoted) return Infinity;
    const at = this.text.indexOf('\\', from);
    return at < 0 ? Infinity : at;
  }

  private next(re: RegExp, from: number): number {
    re.lastIndex = from;
    if (re === this.cr.find && this.cr.quoteFree) {
      // the match's last character: inside the same record as its first, which is all find() needs
      if (!re.test(this.text)) return Infinity;
      this.lastEnd = re.lastIndex;
      return re.lastIndex - 1;
    }
    const m = re.exec(this.text);
    if (!m) return Infinity;
    this.lastEnd = re.lastIndex;
    return m.index;
  }

  /**
   * A plain record (no backslash, no byte beyond ASCII) where the whole rewritten pattern matches strictly inside
   * its quotes matches: the match consumed only its text, and \b or -w's one-character lookarounds see a quote
   * at the text's edges, no word character, as they see nothing past a line. A match that takes a quote (as
   * [^a]x may) proves nothing: the pattern decides that record.
   */
  settles(view: Buffer, ls: number, le: number): boolean {
    const whole = this.cr.whole;
    if (!whole || !this.loaded || ls < this.ws || le >= this.we) return false;
    const rs = ls - this.ws;
    const re = le - this.ws;
    if (this.odd < re || this.hit < rs || this.hit >= re) return false;
    if (re - rs < 2 || view[ls] !== 0x22 || view[le - 1] !== 0x22) return false;
    if (this.cr.quoteFree) return true;
    let start = this.hit;
    let end = this.hitEnd;
    if (whole !== this.cr.find) {
      // the match was found at its rarest character: find where the whole pattern matches in this record
      whole.lastIndex = rs;
      const m = whole.exec(this.text);
      if (!m) return false;
      start = m.index;
      end = whole.lastIndex;
    }
    return start > rs && end < re;
  }
}
