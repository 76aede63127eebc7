// What `lro grep` looks for in the stored bytes, before any record is decoded: the literals every match must
// contain (needles for the scan kernel), and whether a hit settles the record without a regex ("definite").
//
// Why it is sound: a text record stores its line as a JSON string, escaping only `"`, `\` and control
// characters (and bytes that are not UTF-8, as \udcXX); a literal without those characters appears in the line
// exactly when it appears in the stored bytes, unless the record has escapes (a hit may then lie inside one,
// e.g. `u001b`), which is why a definite hit needs a record without a backslash. A json record is stored as the
// compact text that is searched. A jsonl line is stored verbatim but searched compact, so only fragments of a
// literal without JSON punctuation or spaces can be looked for, and every hit is checked.
//
// Case: with -i, JavaScript's /iu also matches U+017F (ſ) for s and U+212A (K, Kelvin) for k, the only
// characters outside ASCII that fold to ASCII letters; records containing them are candidates too (checked by
// the regex), so nothing the regex would match is skipped.
import type { Header } from '../format/header.js';
import { MAX_NEEDLE_BYTES, MAX_NEEDLES, type Needle } from '../kernel/scan.js';
import type { Matcher } from './pattern.js';

/** Needles for the kernel, of which the first `definite` settle a record without escapes by a hit alone. */
export interface NeedlePlan {
  needles: Needle[];
  definite: number;
  /** Text records: the text is inside the stored quotes, and a backslash means escapes. */
  quoted: boolean;
  /** The stored bytes are the text searched and shown (text records without escapes, inside their quotes; json). */
  asStored: boolean;
}

const NOT_ASCII = /[^\x00-\x7f]/;
const LONG_S = Buffer.from('\u017f', 'utf8');
const KELVIN = Buffer.from('\u212a', 'utf8');

/** Whether a literal appears in a text record's stored bytes exactly where it appears in its line. */
const storedAsIs = (l: string) => !/["\\\x00-\x1f]/.test(l);

/**
 * A literal as the stored bytes of a text record holding it hold it: escaped character by character, as
 * format/escape.ts writes a line (as JSON.stringify does), so whenever a line holds l its stored bytes hold
 * storedBody(l) (`key="v` is looked for as `key=\"v`). Such needles are never definite: the regex checks a hit.
 */
const storedBody = (l: string) => JSON.stringify(l).slice(1, -1);

/**
 * The needles for a search of records of type h.content_type with matcher m (word: -w), or null when nothing
 * can be ruled out without decoding every record.
 */
export function planNeedles(h: Header, m: Matcher, word: boolean): NeedlePlan | null {
  const fold = m.ignoreCase;
  if (fold && m.literals.some((l) => NOT_ASCII.test(l))) return null; // case folding beyond ASCII
  const type = h.content_type;
  let literals: string[];
  let definite = 0;
  if (type === 'text' || type === 'json') {
    // (compact JSON has no raw control characters either: a literal with a newline must not match across records)
    const usable = (ls: string[]) => ls.length > 0 && ls.every(type === 'json' ? (l) => !/[\x00-\x1f]/.test(l) : storedAsIs);
    const exact = m.exact;
    if (exact && usable(exact) && (!fold || !exact.some((l) => NOT_ASCII.test(l))) && (!word || exact.length === 1)) {
      literals = exact;
      definite = exact.every((l) => Buffer.byteLength(l) <= MAX_NEEDLE_BYTES) ? exact.length : 0;
    } else if (type === 'json' && usable(m.literals)) literals = m.literals;
    else if (type === 'text' && m.literals.length > 0) literals = m.literals.map(storedBody);
    else return null;
  } else if (type === 'jsonl' && m.literals.length > 0) {
    // whitespace is only removed next to JSON punctuation, so a fragment without punctuation or whitespace
    // appears in the verbatim line whenever the literal appears in its compact form
    literals = m.literals.map((l) => l.split(/[\s{}[\]:,]+/).reduce((a, b) => (b.length > a.length ? b : a), ''));
    if (!literals.every((f) => f.length >= 2 && !/["\\]/.test(f))) return null;
  } else return null;

  const needles: Needle[] = literals.map((l) => {
    const bytes = Buffer.from(fold ? l.toLowerCase() : l, 'utf8');
    return { bytes: bytes.subarray(0, MAX_NEEDLE_BYTES), fold };
  });
  if (fold) {
    if (literals.some((l) => /s/i.test(l))) needles.push({ bytes: LONG_S, fold: false });
    if (literals.some((l) => /k/i.test(l))) needles.push({ bytes: KELVIN, fold: false });
  }
  if (needles.length > MAX_NEEDLES) return null;
  return { needles, definite, quoted: type === 'text', asStored: type === 'text' || type === 'json' };
}
