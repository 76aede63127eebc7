// Finding secrets in one piece of text (a line, or a PEM block of lines), as gitleaks' detectRule does: every
// match of a rule's regex; the secret is the rule's secretGroup, or the first non-empty capture group of the regex
// run again on the match (the whole match when there is none); a rule with an entropy threshold keeps a secret
// only above it; the global allowlist, then the rule's, may let it go; and a "generic" finding is dropped when
// another rule found a secret containing it (detect/utils.go filter).
//
// What lro hides is a span of the match: from the first to the last captured part (so `password=` stays and the
// value goes), or the whole match when the rule captures nothing or its groups only label alternatives (then a
// trailing delimiter the pattern consumed, such as a quote or a space, is kept).
import { shannonEntropy } from './entropy.js';
import type { Rule, Rules } from './rules.js';

/** A secret found: the rule that found it and the span to hide, as offsets into the text. */
export interface Finding {
  rule: string;
  start: number;
  end: number;
}

interface Candidate extends Finding {
  secret: string;
  generic: boolean;
  fallback: boolean;
}

/** Group offsets are read with the `d` flag only on matches up to this long (see Rule.re). */
const INDICES_MAX = 4096;
/** Characters kept out of a whole-match span at its end: delimiters a pattern consumes after the secret. */
const DELIMITER = /[^A-Za-z0-9+/=_.~-]$/;

/**
 * The findings of `rules` (indices into all.rules) in text (a latin1 string of the bytes), sorted by start. Only
 * matches that start before `maxStart` count (the text may go on into the next line, as context: a match
 * starting there belongs to that line).
 */
export function findSecrets(
  all: Rules,
  text: string,
  rules: Iterable<number>,
  maxStart = text.length,
  /** Where the rule's anchor literals start in text, ascending, when the caller knows (else they are searched). */
  literalsAt?: (rule: Rule) => number[],
): Finding[] {
  const found: Candidate[] = [];
  for (const i of rules) {
    const rule = all.rules[i];
    const keep = (index: number, match: string) => judge(all, rule, text, index, match, found);
    if (rule.anchor) anchoredMatches(rule, text, maxStart, literalsAt?.(rule), keep);
    else plainMatches(rule, text, maxStart, keep);
  }
  if (found.length === 0) return [];
  const firm = found.filter((f) => !f.fallback);
  const specific = firm.filter((f) => !f.generic);
  const covered = coverage(firm);
  const kept = found.filter((f) =>
    f.fallback
      ? !covered(f) // another rule's finding over the same value keeps its label and its count
      : !(f.generic && specific.some((o) => o.rule !== f.rule && o.secret.includes(f.secret))), // gitleaks' filter
  );
  kept.sort((a, b) => a.start - b.start || b.end - a.end);
  return kept.map(({ rule, start, end }) => ({ rule, start, end }));
}

/**
 * Whether one of the spans covers a given one, in O(log n) (a long line can hold tens of thousands of findings):
 * the spans sorted by start, with the greatest end so far.
 */
function coverage(spans: Finding[]): (f: Finding) => boolean {
  if (spans.length === 0) return () => false;
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  const maxEnd: number[] = [];
  for (const s of sorted) maxEnd.push(Math.max(s.end, maxEnd[maxEnd.length - 1] ?? 0));
  return (f) => {
    // the last span starting at or before f
    let lo = 0;
    let hi = sorted.length - 1;
    let at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid].start <= f.start) {
        at = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return at >= 0 && maxEnd[at] >= f.end;
  };
}

/** Receives a match: where it starts and its text. */
type MatchSink = (index: number, match: string) => void;

/** Every match of the rule starting before maxStart, left to right, not overlapping (as Go's FindAll). */
function plainMatches(rule: Rule, text: string, maxStart: number, sink: MatchSink): void {
  const re = rule.re;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null && m.index < maxStart; m = re.exec(text)) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    const next = re.lastIndex;
    sink(m.index, m[0]);
    re.lastIndex = next;
  }
}

/**
 * The same matches, found faster: a match must hold one of the rule's anchor literals at most maxOffset characters
 * after its start, so the regex is tried (sticky) only at the positions from each literal back to maxOffset
 * before it, in order: every position a match can start at, so the leftmost-first matches are the same. When only
 * optional runs of a set of characters can come before the literal (`[\w.-]{0,50}?(?:key|token)…`), one try at
 * the start of the run before the literal is enough: a match starting later in that run, through this literal or
 * a later one within reach, implies one starting there (and a later literal gets its own try). `at`: where the
 * literals start, when known.
 */
function anchoredMatches(rule: Rule, text: string, maxStart: number, at: number[] | undefined, sink: MatchSink): void {
  const { literals, maxOffset, sticky, prefix } = rule.anchor!;
  let from = 0; // no match starts before this
  literals.lastIndex = 0;
  for (let k = 0; ; k++) {
    let o: number;
    if (at) {
      if (k >= at.length) break;
      o = at[k];
    } else {
      const lit = literals.exec(text);
      if (lit === null) break;
      o = lit.index;
      literals.lastIndex = o + 1; // literals may overlap
    }
    if (o - maxOffset >= maxStart) break;
    const last = Math.min(o, maxStart - 1);
    let p = Math.max(from, o - maxOffset);
    while (p <= last) {
      if (prefix) {
        let q = o;
        while (q > p && prefix[text.charCodeAt(q - 1)] === 1) q--;
        p = q;
        if (p > last) break;
      }
      sticky.lastIndex = p;
      const m = sticky.exec(text);
      if (m !== null && m[0].length > 0) {
        sink(p, m[0]);
        p = from = p + m[0].length;
      } else if (prefix) break;
      else p++;
    }
    from = Math.max(from, last + 1);
  }
}

/** Keeps a match as a finding unless gitleaks would not report it (entropy, allowlists). */
function judge(all: Rules, rule: Rule, text: string, index: number, raw: string, out: Candidate[]): void {
  // gitleaks trims newlines off both ends of the match
  let lead = 0;
  let trail = raw.length;
  while (lead < trail && raw.charCodeAt(lead) === 10) lead++;
  while (trail > lead && raw.charCodeAt(trail - 1) === 10) trail--;
  const match = lead === 0 && trail === raw.length ? raw : raw.slice(lead, trail);
  const base = index + lead;
  const c = secretOf(rule, match);
  if (c === null) return;
  if (rule.entropy !== 0 && shannonEntropy(c.secret) <= rule.entropy) return;
  // the line only for an allowlist that reads it: looking for its ends is a pass over a long line per finding
  const check = {
    secret: c.secret,
    match,
    get line() {
      const nl = text.indexOf('\n', base + match.length);
      return text.slice(text.lastIndexOf('\n', base - 1) + 1, nl < 0 ? text.length : nl);
    },
  };
  if (all.global.allows(check) || rule.allowlists.some((a) => a.allows(check))) return;
  const span = { start: base + c.start, end: base + c.end };
  out.push({ rule: rule.id, ...span, secret: c.secret, generic: rule.generic, fallback: rule.fallback });
}

/** The secret of a match and the span to hide (offsets into the match); null when gitleaks skips it. */
function secretOf(rule: Rule, match: string): { secret: string; start: number; end: number } | null {
  const whole = () => ({ secret: match, start: 0, end: DELIMITER.test(match) ? match.length - 1 : match.length });
  if (rule.groups === 0) return whole();
  let groups: (string | undefined)[];
  let at: ([number, number] | undefined)[] | null = null;
  if (match.length <= INDICES_MAX) {
    const g = rule.withIndices.exec(match);
    if (!g) return whole();
    groups = g;
    at = g.indices as ([number, number] | undefined)[];
  } else {
    // too long to risk the backtracking-only `d` regex: the linear-capable one, offsets found by search
    rule.re.lastIndex = 0;
    const g = rule.re.exec(match);
    if (!g || g.index !== 0) return whole();
    groups = g;
  }
  let secret: string | undefined;
  if (rule.secretGroup > 0) {
    if (rule.secretGroup >= groups.length) return null;
    secret = groups[rule.secretGroup] ?? '';
  } else secret = groups.slice(1).find((s) => s !== undefined && s !== '');
  if (secret === undefined) return whole();
  if (rule.hideMatch) return { ...whole(), secret };
  let start = match.length;
  let end = 0;
  let cursor = 0;
  for (let k = 1; k < groups.length; k++) {
    const s = groups[k];
    if (s === undefined || s === '') continue;
    const span = at ? at[k]! : [match.indexOf(s, cursor), match.indexOf(s, cursor) + s.length];
    if (span[0] < 0) continue;
    cursor = span[0];
    start = Math.min(start, span[0]);
    end = Math.max(end, span[1]);
  }
  return start < end ? { secret, start, end } : { ...whole(), secret };
}
