// The conditions of `lro where`: FIELD=VALUE, FIELD!=VALUE, FIELD<VALUE (<=, >, >=), FIELD~REGEX, FIELD?,
// FIELD in A,B,C. A condition splits at the first operator after its field path, so a value may hold anything,
// `=` and spaces included. Spaces around the operator (and after a comma of an `in` list) are layout
// (`level = error`); every other character is the value's, spaces at its end too (`cmd~^node ` tests "^node ").
// A value is a JSON literal when it parses as one (200, true, null, "quoted"), otherwise the string as typed.
import { UsageError } from '../errors.js';
import { compilePattern, type Matcher } from '../search/pattern.js';
import { compareValues, kindOf, toJson, type JsonValue, type Kind } from '../values/json-value.js';
import { literalValue } from '../values/literal.js';
import { columnPath, follow, isMulti, pathToJq, readPath, type FieldPath } from './path.js';

/** The operators of a condition (`==` is read as `=`). */
export type Operator = '=' | '!=' | '<' | '<=' | '>' | '>=' | '~' | '?' | 'in';

/** One parsed condition. */
export interface Condition {
  /** The condition as typed. */
  text: string;
  path: FieldPath;
  op: Operator;
  /** The values compared with (one, or several for `in`); none for `~` and `?`. */
  values: JsonValue[];
  /** For `~`: the compiled pattern. */
  matcher?: Matcher;
  pattern?: string;
  /** For = and in: the kinds of value the field held in the records tested (for the no-match hint). */
  seen?: Set<Kind>;
}

const OPERATOR = /^(==|=|!=|<=|>=|<|>|~|\?|in(?=\s|$))/;

/**
 * Joins arguments a shell split apart (`status in a,b` as three words, `level = error`) back into conditions:
 * a word that is only an operator takes the words on either side.
 */
export function joinConditionArgs(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (/^(==|=|!=|<=|>=|<|>|~|in)$/.test(a.trim()) && out.length > 0 && i + 1 < args.length) {
      out[out.length - 1] = `${out[out.length - 1]} ${a.trim()} ${args[++i]}`;
    } else out.push(a);
  }
  return out;
}

/**
 * The column of a table that the condition starts with, as the header writes it (`country name=EU`,
 * `Mounted on~^/dev`) or in single quotes (`'country name'=EU`), followed by an operator: the longest, or null.
 */
function leadingColumn(text: string, columns: readonly string[]): { path: FieldPath; end: number } | null {
  let best: string | null = null;
  let end = 0;
  for (const c of columns) {
    // as written, or in single quotes ('country name'=EU, the way a shell would quote it)
    for (const written of [c, `'${c}'`]) {
      if (c === '' || !text.startsWith(written) || end >= written.length) continue;
      if (OPERATOR.test(text.slice(written.length).trimStart())) (best = c), (end = written.length);
    }
  }
  return best === null ? null : { path: columnPath(best), end };
}

/**
 * Parses one condition; throws UsageError saying how to write it. `columns`: a table's column names, which a
 * condition may name as the header writes them, spaces and all.
 */
export function parseCondition(text: string, ignoreCase = false, columns: readonly string[] = []): Condition {
  // spaces before the field are layout; those at the end belong to the value
  const trimmed = text.trimStart();
  const hint = `write FIELD=VALUE, FIELD!=VALUE, 'FIELD>N' (<, <=, >=), FIELD~REGEX, FIELD? or 'FIELD in A,B'`;
  if (trimmed.trim() === '') throw new UsageError(`empty condition: ${hint}`);
  const { path, end } = leadingColumn(trimmed, columns) ?? readPath(trimmed, 'condition');
  const rest = trimmed.slice(end).trimStart();
  const m = OPERATOR.exec(rest);
  if (!m) {
    // a column whose name has a space, typed without its quotes: say how to write it
    const spaced = columns.find((c) => c.includes(' ') && c.startsWith(path.text));
    const column = spaced ? ` (the column '${spaced}' is written as the header writes it: '${spaced}=VALUE')` : '';
    throw new UsageError(`invalid condition '${text}': no operator after ${path.text || 'the field'}${column}: ${hint}`);
  }
  const op = (m[1] === '==' ? '=' : m[1]) as Operator;
  const valueText = rest.slice(m[1].length).trimStart();
  const cond: Condition = { text, path, op, values: [] };
  switch (op) {
    case '?':
      if (valueText.trim() !== '') throw new UsageError(`invalid condition '${text}': nothing may follow '?' (FIELD? means present and not null)`);
      return cond;
    case '~':
      cond.pattern = valueText;
      cond.matcher = compilePattern(valueText, { fixed: false, ignoreCase, word: false });
      return cond;
    case 'in': {
      if (valueText.trim() === '') throw new UsageError(`invalid condition '${text}': list the values after 'in', separated by commas`);
      const list = literalValue(valueText);
      cond.values = Array.isArray(list) && valueText.startsWith('[') ? list : splitList(valueText).map(literalValue);
      cond.seen = new Set();
      return cond;
    }
    default: {
      const v = literalValue(valueText);
      if ((op === '<' || op === '<=' || op === '>' || op === '>=') && kindOf(v) !== 'number' && kindOf(v) !== 'string') {
        throw new UsageError(`invalid condition '${text}': ${op} compares numbers or strings, not ${kindOf(v)}`);
      }
      cond.values = [v];
      if (op === '=') cond.seen = new Set();
      return cond;
    }
  }
}

/** Splits `a,b,c` at commas outside double quotes; spaces after a comma are layout, those before one the value's. */
function splitList(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inStr = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inStr) {
      cur += c;
      if (c === '\\') cur += text[++i] ?? '';
      else if (c === '"') inStr = false;
    } else if (c === '"') {
      inStr = true;
      cur += c;
    } else if (c === ',') {
      out.push(cur);
      cur = '';
      while (text[i + 1] === ' ') i++;
    } else cur += c;
  }
  out.push(cur);
  return out;
}

/** Whether one value satisfies the condition's operator. */
function holds(c: Condition, v: JsonValue): boolean {
  switch (c.op) {
    case '=':
      return compareValues(v, c.values[0]) === 0;
    case '!=':
      return compareValues(v, c.values[0]) !== 0;
    case '?':
      return v !== null;
    case '~': {
      if (typeof v !== 'string') return false;
      const re = c.matcher!.regex;
      re.lastIndex = 0;
      return re.test(v);
    }
    case 'in':
      return c.values.some((x) => compareValues(v, x) === 0);
    default: {
      const lit = c.values[0];
      if (kindOf(v) !== kindOf(lit)) return false; // numbers with numbers, strings with strings
      const d = compareValues(v, lit);
      return c.op === '<' ? d < 0 : c.op === '<=' ? d <= 0 : c.op === '>' ? d > 0 : d >= 0;
    }
  }
}

/** Whether a record satisfies all the conditions (one of them with `any`); none at all: every record does. */
export function matchesAll(conds: Condition[], any: boolean, record: JsonValue): boolean {
  if (conds.length === 0) return true;
  return any ? conds.some((c) => test(c, record)) : conds.every((c) => test(c, record));
}

/** Whether a record satisfies the condition: some value the path gives satisfies it. */
export function test(c: Condition, record: JsonValue): boolean {
  for (const v of follow(record, c.path).values) {
    if (holds(c, v)) return true;
    if (c.seen && v !== null) c.seen.add(kindOf(v));
  }
  return false;
}

/** After nothing matched: a hint when a value was compared with a field of another type (200 and "200"). */
export function typeHint(conds: Condition[]): string {
  for (const c of conds) {
    if (!c.seen || c.seen.size === 0) continue;
    const kinds = new Set(c.values.map(kindOf));
    if ([...kinds].some((k) => c.seen!.has(k))) continue;
    const held = [...c.seen].join(' and ');
    const field = c.path.text || '.';
    const asString = c.values.every((v) => kindOf(v) !== 'string') && c.seen.has('string');
    const fix = asString ? `${field}${c.op === 'in' ? ' in ' : '='}${c.values.map((v) => JSON.stringify(toJson(v))).join(',')}` : null;
    return `${field} holds ${held} values, not ${[...kinds].join(' or ')}${fix ? `: for the string, quote it: '${fix}'` : ''}`;
  }
  return '';
}

/** The condition as a jq expression that is true exactly when lro's test is. */
export function conditionToJq(c: Condition): string {
  const p = pathToJq(c.path);
  const lit = (v: JsonValue) => toJson(v);
  const multi = isMulti(c.path);
  const simple = (expr: string) => (multi ? `any(${p}; . ${expr})` : `${p} ${expr}`);
  switch (c.op) {
    case '=':
      return simple(`== ${lit(c.values[0])}`);
    case '!=':
      return simple(`!= ${lit(c.values[0])}`);
    case '?':
      return simple('!= null');
    case '~': {
      const flags = c.matcher!.ignoreCase ? '; "i"' : '';
      return `any(${p}; type == "string" and test(${JSON.stringify(c.pattern)}${flags}))`;
    }
    case 'in':
      return `any(${p}; ${c.values.map((v) => `. == ${lit(v)}`).join(' or ')})`;
    default: {
      const v = c.values[0];
      return `any(${p}; type == "${kindOf(v)}" and . ${c.op} ${lit(v)})`;
    }
  }
}
