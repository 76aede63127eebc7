// A JSON document whose bulk is a map (a lock file's `packages`, `npm ls --json`'s dependency tree, an
// {"id": {...}} cache): described as entries — how many, the shape of their keys, the fields of their values with
// types and how often present, the values of low-cardinality fields, and for a tree its nodes and depth — with
// recipes that use to_entries.
import type { KindFacts, KindRecipe } from './types.js';
import type { Words } from '../commands.js';

const MIN_ENTRIES = 8;
const MAX_FIELDS = 12;

interface Candidate {
  path: string[];
  map: Record<string, unknown>;
  size: number;
}

/** The document's map, when one holds most of it (the document itself, or an object up to two levels down). */
export function detectMap(doc: unknown, docChars: number): KindFacts | null {
  if (!isObject(doc)) return null;
  const found: Candidate[] = [];
  const visit = (v: Record<string, unknown>, path: string[], depth: number) => {
    if (isMapLike(v)) found.push({ path, map: v, size: 0 });
    if (depth >= 2) return;
    for (const k in v) if (isObject(v[k])) visit(v[k] as Record<string, unknown>, [...path, k], depth + 1);
  };
  visit(doc, [], 0);
  for (const c of found) c.size = c.path.length === 0 ? docChars : JSON.stringify(c.map).length;
  const best = found
    .filter((c) => c.size >= docChars * 0.5)
    .sort((a, b) => b.size - a.size || a.path.length - b.path.length)[0];
  if (!best) return null;
  return describeMap(best);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Many entries whose values are alike: all objects sharing most keys, or all scalars of one type. */
function isMapLike(v: Record<string, unknown>): boolean {
  const values = Object.values(v);
  if (values.length < MIN_ENTRIES) return false;
  const types = new Set(values.map(kindOf));
  if (types.size !== 1) return false;
  const [t] = types;
  if (t === 'array') return false;
  if (t !== 'object') return true;
  // objects alike: the most common key is in at least half of them
  const keys = new Map<string, number>();
  for (const x of values) for (const k in x as object) keys.set(k, (keys.get(k) ?? 0) + 1);
  return Math.max(0, ...keys.values()) >= values.length * 0.5;
}

function kindOf(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

function jq(path: string[]): string {
  return path.map((k) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `.${k}` : `.${JSON.stringify(k)}`)).join('') || '.';
}

function describeMap(c: Candidate): KindFacts {
  const keys = Object.keys(c.map);
  const values = Object.values(c.map);
  const facts: Record<string, unknown> = { map: jq(c.path), entries: keys.length, keys: keyShape(keys) };
  const objects = kindOf(values[0]) === 'object';
  const fields = objects ? valueFields(values as Record<string, unknown>[]) : [];
  if (objects) facts.value_fields = Object.fromEntries(fields.map((f) => [f.field, f.text]));
  else facts.value_type = kindOf(values[0]);
  const counted = objects ? fields.filter((f) => f.top) : [];
  if (counted.length) facts.top_values = Object.fromEntries(counted.slice(0, 4).map((f) => [f.field, f.top]));
  if (!objects) {
    const top = topOf(values);
    if (top) facts.top_values = { '.value': top };
  }
  const tree = objects ? treeOf(c) : null;
  if (tree) facts.tree = tree;
  const kind = tree ? 'json-tree' : 'json-map';
  return { kind, facts, errors: 'none', levels: false, ...mapRecipes(c, fields, tree) };
}

/** The keys: a prefix they share, and the first few. */
function keyShape(keys: string[]): Record<string, unknown> {
  let prefix = keys[0] ?? '';
  for (const k of keys) while (!k.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return { ...(prefix ? { prefix } : {}), first: keys.slice(0, 3) };
}

interface ValueField {
  field: string;
  text: string;
  top?: Record<string, number>;
}

/** The fields of the map's values: type and share present, and counts of the values of low-cardinality ones. */
function valueFields(values: Record<string, unknown>[]): ValueField[] {
  const seen = new Map<string, unknown[]>();
  for (const v of values) for (const k in v) (seen.get(k) ?? seen.set(k, []).get(k)!).push(v[k]);
  return [...seen]
    .sort((a, b) => b[1].length - a[1].length)
    .slice(0, MAX_FIELDS)
    .map(([k, vs]) => {
      const field = jq([k]);
      const types = [...new Set(vs.map(kindOf))].join('/');
      const share = Math.round((vs.length / values.length) * 100);
      const top = topOf(vs);
      const nums = vs.filter((x): x is number => typeof x === 'number');
      const all = nums.length === vs.length && nums.length > 0;
      const range = all ? `, ${Math.min(...nums)} to ${Math.max(...nums)}` : '';
      return { field, text: `${types}, in ${share}% (${vs.length})${range}`, ...(top ? { top } : {}) };
    });
}

/** Counts of scalar values when there are few of them (at most 10), each on more than one entry on average. */
function topOf(vs: unknown[]): Record<string, number> | null {
  const counts = new Map<string, number>();
  for (const v of vs) {
    if (v !== null && typeof v === 'object') return null;
    const k = typeof v === 'string' ? v : JSON.stringify(v);
    counts.set(k, (counts.get(k) ?? 0) + 1);
    if (counts.size > 10) return null;
  }
  if (counts.size * 2 > vs.length) return null;
  return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]));
}

/** A tree: the values hold a map of the same kind under the key the map itself has (npm ls: `dependencies`). */
function treeOf(c: Candidate): { children: string; nodes: number; depth: number } | null {
  const child = c.path.at(-1);
  if (!child || !Object.values(c.map).some((v) => isObject((v as Record<string, unknown>)[child]))) return null;
  let nodes = 0;
  let depth = 0;
  const walk = (m: Record<string, unknown>, d: number) => {
    depth = Math.max(depth, d);
    for (const v of Object.values(m)) {
      nodes++;
      const sub = isObject(v) ? v[child] : null;
      if (isObject(sub) && d < 100) walk(sub, d + 1);
    }
  };
  walk(c.map, 1);
  return { children: child, nodes, depth };
}

type Tree = { children: string } | null;

/** The least frequent of a counted field's values, as a JSON literal (top_values keys are strings). */
function rarestValue(f: ValueField): string {
  const [v] = Object.entries(f.top!).at(-1)!;
  return /^(true|false|null|-?\d+(\.\d+)?)$/.test(v) ? v : JSON.stringify(v);
}

/** lro where selecting the entries with the counted field's rarest value, showing the key and the shown fields. */
function whereEntries(counted: ValueField, show: ValueField[]): Words {
  const lit = rarestValue(counted);
  const fields = ['key', ...show.map((f) => `value${f.field}`)].join(',');
  return ['where', 'ID', `value${counted.field}=${lit}`, '--fields', fields];
}

function mapRecipes(c: Candidate, fields: ValueField[], tree: Tree): Pick<KindFacts, 'recipes' | 'nextCommands'> {
  const at = jq(c.path);
  const show = fields.filter((f) => !f.field.includes('"') && f.field !== jq([tree?.children ?? ''])).slice(0, 2);
  const members = show.map((f) => `${f.field.slice(1)}: .value${f.field}`).join(', ');
  const pick = show.length ? `{key, ${members}}` : '{key, value}';
  const recipes: KindRecipe[] = [
    { description: `Entries of ${at} as ${pick}`, flags: ['-c'], filter: `${at} | to_entries[] | ${pick}` },
  ];
  // a field worth selecting on: two values or more, or one that only some entries have (`dev: true`)
  const counted = fields.find((f) => f.top && (Object.keys(f.top).length > 1 || !f.text.includes('in 100%')));
  if (tree) {
    const ch = JSON.stringify(tree.children);
    recipes.push({
      description: 'Every node of the tree as key@version, once each',
      flags: ['-r'],
      filter: `[.. | objects | .[${ch}]? // empty | objects | to_entries[] | "\\(.key)@\\(.value.version)"] | unique | .[]`,
    });
  }
  if (counted) {
    const lit = rarestValue(counted);
    recipes.push({
      description: `Keys of the entries whose ${counted.field} is ${lit}`,
      flags: ['-c'],
      filter: `[${at} | to_entries[] | select(.value${counted.field} == ${lit}) | .key]`,
    });
  }
  recipes.push({ description: `The keys of ${at}`, flags: ['-c'], filter: `${at} | keys` });
  const jqs = recipes.map((r): Words => ['jq', 'ID', ...r.flags, r.filter]);
  // lro where and lro count take the entries as records, {key, value} each (query/map.ts): no jq to write
  const where = counted && !counted.field.includes('"') ? whereEntries(counted, show) : null;
  return { recipes, nextCommands: where ? [where, jqs[0]] : jqs.slice(0, 2) };
}
