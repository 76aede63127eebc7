// Field paths as jq writes them, for `lro where` and `lro count --by`: `.a.b`, `a.b`, `.items[].status`,
// `.items[0]`, `."key with space"`, `.["key"]`. Parsed into steps, followed on a record, and written back as
// jq syntax for --explain.
import { UsageError } from '../errors.js';
import type { JsonValue } from '../values/json-value.js';
import { JsonNumber } from '../values/json-value.js';

/** One step of a path: a key, an index, or every element (`[]`). */
export type Step = { kind: 'key'; key: string } | { kind: 'index'; index: number } | { kind: 'each' };

/** A parsed path: its steps, and the text it was parsed from. */
export interface FieldPath {
  steps: Step[];
  text: string;
}

/** Characters that end a bare key: path syntax, whitespace, and the operators of a condition. */
const BARE_KEY = /^[^\s.[\]"=!<>~?,]+/;

/** Reads a path at the start of text; returns it and where it ended. Throws UsageError on bad syntax. */
export function readPath(text: string, what = 'field'): { path: FieldPath; end: number } {
  const steps: Step[] = [];
  let i = 0;
  const fail = (why: string): never => {
    throw new UsageError(`invalid ${what} '${text}': ${why}: write a jq path such as .status, .user.name, .items[].id or ."odd key"`);
  };
  const quoted = (): string => {
    const m = /^"(?:[^"\\]|\\.)*"/.exec(text.slice(i));
    if (!m) fail('unterminated quoted key');
    i += m![0].length;
    try {
      return JSON.parse(m![0]) as string;
    } catch {
      return fail(`bad quoted key ${m![0]}`);
    }
  };
  let first = true;
  while (i < text.length) {
    const c = text[i];
    if (c === '.') {
      i++;
      if (text[i] === '"') steps.push({ kind: 'key', key: quoted() });
      else if (text[i] === '[') continue;
      else {
        const m = BARE_KEY.exec(text.slice(i));
        if (!m) {
          if (first && steps.length === 0) {
            first = false;
            continue; // `.` alone: the record itself
          }
          fail('a key must follow "."');
        }
        steps.push({ kind: 'key', key: m![0] });
        i += m![0].length;
      }
    } else if (c === '[') {
      let j = i + 1;
      while (text[j] === ' ') j++;
      if (text[j] === '"') {
        i = j;
        const key = quoted();
        while (text[i] === ' ') i++;
        if (text[i] !== ']') fail('expected "]" after a quoted key');
        i++;
        steps.push({ kind: 'key', key });
      } else {
        const close = text.indexOf(']', i);
        if (close < 0) fail('missing "]"');
        const inner = text.slice(i + 1, close).trim();
        if (inner === '') steps.push({ kind: 'each' });
        else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
        else fail(`[${inner}] is not [], [N] or ["key"]`);
        i = close + 1;
      }
    } else if (first && steps.length === 0 && c === '"') {
      steps.push({ kind: 'key', key: quoted() });
    } else if (first && steps.length === 0) {
      const m = BARE_KEY.exec(text.slice(i));
      if (!m) break;
      steps.push({ kind: 'key', key: m[0] });
      i += m[0].length;
    } else break;
    first = false;
  }
  if (i === 0) fail('no field');
  return { path: { steps, text: text.slice(0, i) }, end: i };
}

/** Parses a whole argument as a path. */
export function parsePath(text: string, what = 'field'): FieldPath {
  const t = text.trim();
  const { path, end } = readPath(t, what);
  if (end !== t.length) throw new UsageError(`invalid ${what} '${text}': unexpected '${t.slice(end)}': write a jq path such as .status or .items[].id`);
  return path;
}

/**
 * A table's column named as its header writes it (`country name`, `Mounted on`, `SIZE/OFF`): the column's key,
 * when `text` is exactly one of `columns`; else the text parsed as a jq path.
 */
export function parseColumnOrPath(text: string, what: string, columns: readonly string[]): FieldPath {
  if (columns.includes(text)) return columnPath(text);
  const t = text.trim();
  if (columns.includes(t)) return columnPath(t);
  return parsePath(text, what);
}

/** The path of one key (a table's column). */
export function columnPath(name: string): FieldPath {
  return { steps: [{ kind: 'key', key: name }], text: name };
}

/** A key as jq writes it after a dot: bare when an identifier, else quoted. */
export function jqKeyStep(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `.${JSON.stringify(key)}`;
}

/**
 * The path in jq syntax, each step with `?` (`.items[]?.status?`): where a step does not apply (a key of an
 * array, iterating a number) jq then gives nothing instead of stopping, which is what follow() does.
 */
export function pathToJq(p: FieldPath): string {
  return pathText(p, '?');
}

/** The path as shown to people: jq syntax without the `?` marks. */
export function pathLabel(p: FieldPath): string {
  return pathText(p, '');
}

function pathText(p: FieldPath, mark: string): string {
  let out = '';
  for (const s of p.steps) {
    if (s.kind === 'key') out += jqKeyStep(s.key) + mark;
    else out += `${out === '' ? '.' : ''}${s.kind === 'index' ? `[${s.index}]` : '[]'}${mark}`;
  }
  return out === '' ? '.' : out;
}

/** Whether following the path can give several values (it has `[]`). */
export function isMulti(p: FieldPath): boolean {
  return p.steps.some((s) => s.kind === 'each');
}

/** What a path gave on one record: its values, and whether a key on the way was absent. */
export interface PathValues {
  values: JsonValue[];
  /** True when some step found its key absent (the path then gives null, as in jq). */
  absent: boolean;
}

const isObject = (v: JsonValue): v is Record<string, JsonValue> => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof JsonNumber);

/**
 * Follows a path on a value as jq does: a missing key gives null, as does anything under null; iterating
 * gives the elements of an array or the values of an object. Where jq would stop with an error (a key of a
 * string, iterating a number) the path gives nothing for that value.
 */
export function follow(v: JsonValue, p: FieldPath): PathValues {
  let cur: JsonValue[] = [v];
  let absent = false;
  for (const s of p.steps) {
    const next: JsonValue[] = [];
    for (const x of cur) {
      if (s.kind === 'key') {
        if (x === null) {
          next.push(null);
          absent = true;
        } else if (isObject(x)) {
          if (Object.prototype.hasOwnProperty.call(x, s.key)) next.push(x[s.key]);
          else {
            next.push(null);
            absent = true;
          }
        }
      } else if (s.kind === 'index') {
        if (x === null) {
          next.push(null);
          absent = true;
        } else if (Array.isArray(x)) {
          const i = s.index < 0 ? x.length + s.index : s.index;
          next.push(i >= 0 && i < x.length ? x[i] : null);
          if (!(i >= 0 && i < x.length)) absent = true;
        }
      } else if (Array.isArray(x)) next.push(...x);
      else if (isObject(x)) next.push(...Object.values(x));
    }
    cur = next;
  }
  return { values: cur, absent };
}
