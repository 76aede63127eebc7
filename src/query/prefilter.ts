// Which stored records can match at all: like lro grep's required literals, a condition such as
// status="error" can only hold in a record whose stored bytes contain `"error"`, so most records are passed
// over with a substring search and never parsed. Conservative: when a value could be written another way in
// the stored bytes (a \u escape, \/), records holding an escape are parsed too, and a condition whose value
// cannot be searched for (a number, !=) rules nothing out.
import type { ContentType } from '../format/header.js';
import type { Condition } from './condition.js';
import type { JsonValue } from '../values/json-value.js';

/** Bytes any candidate record contains one of; null when every record is a candidate. */
export type Needles = Buffer[] | null;

/** Strings whose stored form is exactly their JSON text (no character that has another way to be written). */
const PLAIN = /^[^"\\/\x00-\x1f]*$/;

/** The byte strings one of which a record must contain for the condition to hold there (null: any record). */
function conditionNeedles(c: Condition, type: ContentType): string[] | null {
  const strings = (vs: JsonValue[]): string[] | null => {
    if (!vs.every((v) => typeof v === 'string' && v !== '' && PLAIN.test(v))) return null;
    // a text result stores each line as a JSON string: the value appears as itself, not quoted
    return vs.map((v) => (type === 'text' ? (v as string) : JSON.stringify(v)));
  };
  switch (c.op) {
    case '=':
    case 'in':
      return strings(c.values);
    case '~': {
      const m = c.matcher!;
      if (m.ignoreCase || m.literals.length === 0 || !m.literals.every((l) => l.length >= 2 && PLAIN.test(l))) return null;
      return m.literals;
    }
    case '?': {
      const last = c.path.steps.at(-1);
      if (type === 'text' || !last || last.kind !== 'key' || !PLAIN.test(last.key)) return null;
      return [JSON.stringify(last.key)];
    }
    default:
      return null;
  }
}

/**
 * The needles for a set of conditions: all must hold (pick the condition with the longest needles) or, with
 * `any`, one of them (every condition must then have needles). Records with escapes are always candidates.
 */
export function planNeedles(conds: Condition[], type: ContentType, any: boolean): Needles {
  const sets = conds.map((c) => conditionNeedles(c, type));
  let chosen: string[] | null = null;
  if (any) chosen = sets.every((s) => s !== null) ? sets.flatMap((s) => s!) : null;
  else {
    for (const s of sets) {
      if (s && (!chosen || Math.min(...s.map((x) => x.length)) > Math.min(...chosen.map((x) => x.length)))) chosen = s;
    }
  }
  if (!chosen) return null;
  // escapes: \uXXXX anywhere in JSON; in text, control characters (ANSI colours, carriage returns) that the
  // displayed text may drop, and the value may have been written around them
  const escapes = type === 'text' ? ['\\u00', '\\r', '\\b'] : ['\\u'];
  return [...new Set([...chosen, ...escapes])].map((s) => Buffer.from(s, 'utf8'));
}
