// Records as values for `lro where` and `lro count`: parsed with JSON.parse (fast), except that a number whose
// literal a float cannot hold (more than 15 significant digits, or out of range) is kept as its literal text
// (a JsonNumber), so 505874924095815681 is never confused with 505874924095815700. Comparison follows jq's
// order (null < false < true < numbers < strings < arrays < objects); numbers compare exactly.
import { compareDecimal, decimalKey, isNumberLiteral } from './decimal.js';

/** A number kept as its literal, because a float would change it. */
export class JsonNumber {
  constructor(readonly raw: string) {}
}

/** A record's value: JSON.parse's, with JsonNumber for literals a float would change. */
export type JsonValue = null | boolean | number | string | JsonNumber | JsonValue[] | { [key: string]: JsonValue };

/**
 * Records that may hold a number a float cannot keep: a value (first, or after `:`, `,` or `[`) of 16+ digits
 * (dots allowed) or with an exponent. Long digit runs inside strings (an `id_str`) mostly do not qualify.
 */
const MAYBE_INEXACT = /(?:^|[:,[])\s*-?\d(?:[\d.]{15}|[\d.]*[eE])/;
/** Strings and numbers of JSON text (outside strings, digits only occur in numbers). */
const TOKENS = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** Whether a number literal survives a float unchanged (the float's shortest form is the same number). */
function floatKeeps(raw: string): boolean {
  const n = Number(raw);
  return Number.isFinite(n) && compareDecimal(String(n), raw) === 0;
}

/** Parses a record's JSON text; throws SyntaxError if it is not JSON. */
export function parseRecord(text: string): JsonValue {
  if (!MAYBE_INEXACT.test(text)) return JSON.parse(text) as JsonValue;
  let marked = false;
  // Numbers a float would change become marked strings ("\u0000N<literal>"); a real string that starts with
  // an escaped NUL gets "\u0000S" in front, so the two can never be confused.
  const rewritten = text.replace(TOKENS, (tok) => {
    if (tok.charCodeAt(0) === 0x22) {
      if (!tok.startsWith('"\\u0000')) return tok;
      marked = true;
      return `"\\u0000S${tok.slice(1)}`;
    }
    if (floatKeeps(tok)) return tok;
    marked = true;
    return `"\\u0000N${tok}"`;
  });
  if (!marked) return JSON.parse(text) as JsonValue;
  return JSON.parse(rewritten, (_key, v: unknown) => {
    if (typeof v === 'string' && v.charCodeAt(0) === 0) return v[1] === 'N' ? new JsonNumber(v.slice(2)) : v.slice(2);
    return v;
  }) as JsonValue;
}

/** A literal typed in a condition (`id=505874924095815681`), parsed as a record value is. */
export function parseLiteral(text: string): JsonValue {
  return parseRecord(text);
}

/** jq's type names. */
export type Kind = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object';
const RANK: Record<Kind, number> = { null: 0, boolean: 1, number: 2, string: 3, array: 4, object: 5 };

/** jq's type name of a value. */
export function kindOf(v: JsonValue): Kind {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return 'boolean';
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    default:
      return v instanceof JsonNumber ? 'number' : Array.isArray(v) ? 'array' : 'object';
  }
}

/** The literal text of a number value. */
export function numberText(v: number | JsonNumber): string {
  return typeof v === 'number' ? String(v) : v.raw;
}

/** Strings in code point order (as jq compares their UTF-8 bytes), not UTF-16 unit order. */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a.charCodeAt(i) !== b.charCodeAt(i)) return a.codePointAt(i)! < b.codePointAt(i)! ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Numbers compared exactly (floats natively; a kept literal digit by digit). */
export function compareNumbers(a: number | JsonNumber, b: number | JsonNumber): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  return compareDecimal(numberText(a), numberText(b));
}

/** jq's total order of values: -1, 0 or 1. */
export function compareValues(a: JsonValue, b: JsonValue): number {
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka !== kb) return RANK[ka] < RANK[kb] ? -1 : 1;
  switch (ka) {
    case 'null':
      return 0;
    case 'boolean':
      return a === b ? 0 : a === false ? -1 : 1;
    case 'number':
      return compareNumbers(a as number | JsonNumber, b as number | JsonNumber);
    case 'string':
      return compareStrings(a as string, b as string);
    case 'array': {
      const x = a as JsonValue[];
      const y = b as JsonValue[];
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const c = compareValues(x[i], y[i]);
        if (c !== 0) return c;
      }
      return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
    }
    default: {
      // jq: first the sorted key lists, then the values key by key
      const x = a as Record<string, JsonValue>;
      const y = b as Record<string, JsonValue>;
      const kx = Object.keys(x).sort(compareStrings);
      const ky = Object.keys(y).sort(compareStrings);
      const c = compareValues(kx, ky);
      if (c !== 0) return c;
      for (const k of kx) {
        const d = compareValues(x[k], y[k]);
        if (d !== 0) return d;
      }
      return 0;
    }
  }
}

/** A key equal for equal values (1 and 1.0, objects whatever their key order), for grouping. */
export function groupKey(v: JsonValue): string {
  switch (kindOf(v)) {
    case 'null':
      return 'z';
    case 'boolean':
      return v ? 't' : 'f';
    case 'number':
      return typeof v === 'number' && Number.isInteger(v) && Math.abs(v) < 1e15 ? `n${v}` : `d${decimalKey(numberText(v as number | JsonNumber))}`;
    case 'string':
      return `s${v as string}`;
    case 'array':
      return `a${JSON.stringify((v as JsonValue[]).map(groupKey))}`;
    default: {
      const o = v as Record<string, JsonValue>;
      return `o${JSON.stringify(Object.keys(o).sort(compareStrings).map((k) => [k, groupKey(o[k])]))}`;
    }
  }
}

/** Compact JSON text of a value, kept literals as written. */
export function toJson(v: JsonValue): string {
  if (v instanceof JsonNumber) return v.raw;
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(toJson).join(',')}]`;
  return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${toJson(x)}`).join(',')}}`;
}

/** Whether text is a JSON number literal. */
export { isNumberLiteral };
