// Every edit `lro init` makes is checked before it is written: the new text is parsed with a real parser (JSON.parse
// for strict JSON, jsonc-parser for JSON with comments, smol-toml for TOML), and every value that is not lro's must
// be what it was, deep-equal, and lro's own entries there (install) or gone (uninstall). The text edits are careful
// (json-edit.ts, toml-lines.ts); this is what makes a mistake of theirs a refusal instead of a damaged file.
import { parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';

/** A refusal: a file lro will not edit (exit 2, the file untouched). */
export class EditRefused extends Error {}

export type Syntax = 'json' | 'jsonc' | 'toml';
export type Path = (string | number)[];

/** What a harness says about the values of one file: which are lro's, and what install and uninstall leave. */
export interface Verifier {
  syntax: Syntax;
  /** Containers lro adds to: a value there of another type is refused before any edit (it would be replaced). */
  needs: [Path, 'object' | 'array'][];
  /** The document without lro's entries (and without what their removal leaves empty); may change its argument. */
  strip(doc: unknown): unknown;
  /** Whether lro's entries are all there, as this install writes them. */
  installed(doc: unknown): boolean;
  /** Whether nothing of lro's is left. */
  absent(doc: unknown): boolean;
}

const SYNTAX_NAME: Record<Syntax, string> = { json: 'strict JSON', jsonc: 'JSON with comments', toml: 'TOML' };

/** Why `text` does not parse as `syntax` (on one short line), or its value (empty text is an empty document). */
export function parseAs(syntax: Syntax, text: string): { value: unknown } | { problem: string } {
  const r = parseText(syntax, text);
  if (!('problem' in r)) return r;
  const problem = r.problem.replace(/\s+/g, ' ').trim();
  return { problem: problem.length > 120 ? `${problem.slice(0, 119)}…` : problem };
}

function parseText(syntax: Syntax, text: string): { value: unknown } | { problem: string } {
  if (text.charCodeAt(0) === 0xfeff) return { problem: 'a byte order mark (U+FEFF) at its start' };
  if (text.trim() === '') return { value: {} };
  if (syntax === 'toml') {
    try {
      return { value: parseToml(text) };
    } catch (e) {
      const line = (e as { line?: number }).line;
      const what = String((e as Error).message).split('\n')[0].replace(/^Invalid TOML document: /, '');
      return { problem: `${what}${line ? ` at line ${line}` : ''}` };
    }
  }
  let value: unknown;
  if (syntax === 'json') {
    try {
      value = JSON.parse(text) as unknown;
    } catch (e) {
      return { problem: (e as Error).message };
    }
  }
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  if (errors.length || !root) {
    const e = errors[0];
    return { problem: e ? `${printParseErrorCode(e.error)} at line ${lineOf(text, e.offset)}` : 'no value' };
  }
  // a key given twice: the harness reads one, a text edit may find the other
  const twice = duplicateKey(root);
  if (twice) return { problem: `the key ${JSON.stringify(twice.value)} given twice in one object, at line ${lineOf(text, twice.offset)}` };
  return { value: syntax === 'json' ? value : nodeValue(root) };
}

const lineOf = (text: string, offset: number): number => text.slice(0, offset).split('\n').length;

/** The second of two equal keys in an object of the tree, or null. */
function duplicateKey(node: Node): Node | null {
  if (node.type === 'object') {
    const seen = new Set<string>();
    for (const p of node.children ?? []) {
      const k = p.children?.[0];
      if (!k) continue;
      if (seen.has(k.value as string)) return k;
      seen.add(k.value as string);
    }
  }
  for (const c of node.children ?? []) {
    const d = duplicateKey(c);
    if (d) return d;
  }
  return null;
}

/** A JSONC node as plain data; a key given twice keeps its last value (as JSON.parse does); `__proto__` is a key. */
function nodeValue(node: Node): unknown {
  if (node.type === 'array') return (node.children ?? []).map(nodeValue);
  if (node.type !== 'object') return node.value;
  const out: Record<string, unknown> = {};
  for (const p of node.children ?? []) {
    const [k, v] = p.children ?? [];
    if (!k || !v) continue;
    Object.defineProperty(out, k.value as string, { value: nodeValue(v), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);

/** The value at `path` (undefined when a step is missing or not a container). */
export function at(doc: unknown, path: Path): unknown {
  let v = doc;
  for (const k of path) {
    if (typeof k === 'number' ? !Array.isArray(v) : !isObject(v)) return undefined;
    if (!Object.prototype.hasOwnProperty.call(v, k)) return undefined;
    v = (v as Record<string | number, unknown>)[k];
  }
  return v;
}

/** The first path where a and b differ, or null when they are deep-equal (object keys in any order). */
export function difference(a: unknown, b: unknown, path: Path = []): Path | null {
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && dateText(a) === dateText(b) ? null : path;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b)) return path;
    if (a.length !== b.length) return path;
    for (let i = 0; i < a.length; i++) {
      const d = difference(a[i], b[i], [...path, i]);
      if (d) return d;
    }
    return null;
  }
  if (isObject(a) || isObject(b)) {
    if (!isObject(a) || !isObject(b)) return path;
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    for (const k of ka) if (!Object.prototype.hasOwnProperty.call(b, k)) return [...path, k];
    for (const k of kb) if (!Object.prototype.hasOwnProperty.call(a, k)) return [...path, k];
    for (const k of ka) {
      const d = difference(a[k], b[k], [...path, k]);
      if (d) return d;
    }
    return null;
  }
  return Object.is(a, b) ? null : path;
}

const dateText = (d: Date): string => {
  try {
    return d.toISOString();
  } catch {
    return String(d);
  }
};

/** A path as a reader writes it: env.CLAUDE_CODE_SHELL_PREFIX, hooks.PostToolUse[0]. */
export function pathText(path: Path): string {
  if (!path.length) return 'the whole document';
  return path
    .map((k, i) => (typeof k === 'number' ? `[${k}]` : /^[A-Za-z_$][\w$-]*$/.test(k) ? `${i ? '.' : ''}${k}` : `[${JSON.stringify(k)}]`))
    .join('');
}

/** A value named in a message: its type, and a short form of it. */
function described(v: unknown): string {
  const kind =
    v === null ? 'null' : Array.isArray(v) ? 'an array' : v instanceof Date ? 'a date' : isObject(v) ? 'an object' : `a ${typeof v}`;
  if (v === null || Array.isArray(v) || isObject(v)) return kind;
  const text = JSON.stringify(v) ?? String(v);
  return `${kind} (${text.length > 40 ? `${text.slice(0, 40)}…` : text})`;
}

/** The original's value: refused when it does not parse, or when lro would have to replace a value of the user's. */
export function checkOriginal(v: Verifier, text: string, shown: string, uninstall: boolean): unknown {
  const parsed = parseAs(v.syntax, text);
  if ('problem' in parsed) {
    throw new EditRefused(`${shown} is not ${SYNTAX_NAME[v.syntax]} (${parsed.problem}): fix it first, lro leaves it untouched`);
  }
  const doc = parsed.value;
  if (!isObject(doc)) {
    throw new EditRefused(`${shown} is not a ${v.syntax === 'toml' ? 'TOML table' : 'JSON object'}: fix it first, lro leaves it untouched`);
  }
  if (!uninstall) {
    for (const [path, shape] of v.needs) {
      const value = at(doc, path);
      if (value === undefined) continue;
      if (shape === 'array' ? Array.isArray(value) : isObject(value)) continue;
      throw new EditRefused(
        `${shown}: ${pathText(path)} is ${described(value)}, not an ${shape}, and lro adds its entry there: ` +
          `make it an ${shape} (or remove it), lro leaves the file untouched`,
      );
    }
  }
  return doc;
}

/** A deep copy of plain data (dates, which lro never edits, are shared). */
function clone(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(clone);
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    Object.defineProperty(out, k, { value: clone(v[k]), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Checks the edit of `before` into `after`; throws EditRefused saying what is wrong. */
export function verifyEdit(v: Verifier, before: unknown, after: string, shown: string, uninstall: boolean): void {
  const bug = 'a bug of lro, please report it; edit the file by hand, lro leaves it untouched';
  const parsed = parseAs(v.syntax, after);
  if ('problem' in parsed) {
    throw new EditRefused(`${shown}: lro's edit would not be ${SYNTAX_NAME[v.syntax]} (${parsed.problem}): ${bug}`);
  }
  const doc = parsed.value;
  if (uninstall ? !v.absent(doc) : !v.installed(doc)) {
    throw new EditRefused(
      uninstall
        ? `${shown}: lro's entries could not be taken out as written (they are not where lro puts them): remove them by hand, lro leaves the file untouched`
        : `${shown}: lro's entries would not be read back as written (a key given twice?): add them by hand or fix the file, lro leaves it untouched`,
    );
  }
  const want = v.strip(clone(before));
  const got = v.strip(clone(doc)); // after an uninstall, only what strip tidies (containers left empty)
  const d = difference(want, got);
  if (d) throw new EditRefused(`${shown}: lro's edit would change ${pathText(d)}, which is not lro's: ${bug}`);
}

// ---- helpers for the harnesses' verifiers ----

/** Deletes `key` from the object at `path` when it is there; then each container on the way left empty. */
export function prune(doc: unknown, path: Path): void {
  for (let i = path.length; i > 0; i--) {
    const parent = at(doc, path.slice(0, i - 1));
    const key = path[i - 1];
    const v = at(doc, path.slice(0, i));
    const empty = Array.isArray(v) ? v.length === 0 : isObject(v) && Object.keys(v).length === 0;
    if (!empty || !isObject(parent) || typeof key !== 'string') return;
    delete parent[key];
  }
}

/**
 * Takes lro's handlers out of a hooks list (hooks.<event>: groups of { matcher, hooks: [handler] }): a group left
 * with no handler goes; the list, and `hooks`, go when left empty.
 */
export function stripHandlers(doc: unknown, event: string, mine: (h: unknown) => boolean): void {
  const groups = at(doc, ['hooks', event]);
  if (!Array.isArray(groups)) return;
  for (let g = groups.length - 1; g >= 0; g--) {
    const group = groups[g];
    if (!isObject(group) || !Array.isArray(group.hooks) || !group.hooks.some(mine)) continue;
    const left = group.hooks.filter((h) => !mine(h));
    if (left.length === 0) groups.splice(g, 1);
    else group.hooks = left;
  }
  prune(doc, ['hooks', event]);
}

/** Whether a hooks list holds a handler that `mine` accepts. */
export function hasHandler(doc: unknown, event: string, mine: (h: unknown) => boolean): boolean {
  const groups = at(doc, ['hooks', event]);
  return Array.isArray(groups) && groups.some((g) => isObject(g) && Array.isArray(g.hooks) && g.hooks.some(mine));
}
