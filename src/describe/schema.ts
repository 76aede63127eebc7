// Infers a JSON Schema from sample records: types per path, object properties in first-seen order, which
// properties every record has. Bounded while learning (depth, properties per object) and when printed.

const MAX_LEARN_DEPTH = 8;
const MAX_LEARN_PROPS = 200;

type JsonType = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object';

export class SchemaNode {
  seen = 0;
  objects = 0;
  readonly types = new Set<JsonType>();
  properties: Map<string, SchemaNode> | null = null;
  items: SchemaNode | null = null;
  truncated = false;

  add(value: unknown, depth = 0): void {
    this.seen++;
    const t = typeOf(value);
    this.types.add(t);
    if (depth >= MAX_LEARN_DEPTH) {
      if (t === 'object' || t === 'array') this.truncated = true;
      return;
    }
    if (t === 'object') {
      this.objects++;
      this.properties ??= new Map();
      const obj = value as Record<string, unknown>;
      // for-in over a parsed object: its own keys in Object.entries order, without an array per property
      for (const k in obj) {
        const v = obj[k];
        let child = this.properties.get(k);
        if (!child) {
          if (this.properties.size >= MAX_LEARN_PROPS) {
            this.truncated = true;
            continue;
          }
          child = new SchemaNode();
          this.properties.set(k, child);
        }
        child.add(v, depth + 1);
      }
    } else if (t === 'array') {
      this.items ??= new SchemaNode();
      for (const v of value as unknown[]) this.items.add(v, depth + 1);
    }
  }

  /**
   * As JSON, compact (kept in a result's header with the descriptor's statistics, see describe/stored.ts; the
   * schema of records of many shapes is most of them): [seen, objects, types as letters in the order seen, then, when there are any,
   * properties as [key, node, key, node, ...] or 0, items or 0, and 1 when truncated].
   */
  toJSON(): SavedSchema {
    const out: SavedSchema = [this.seen, this.objects, [...this.types].map((t) => TYPE_LETTER[t]).join('')];
    if (this.properties || this.items || this.truncated) out.push(this.properties ? [...this.properties].flat() : 0);
    if (this.items || this.truncated) out.push(this.items ?? 0);
    if (this.truncated) out.push(1);
    return out;
  }

  /** The node toJSON() saved (parsed); throws a TypeError on anything else. */
  static fromJSON(v: unknown): SchemaNode {
    if (!Array.isArray(v) || !Number.isSafeInteger(v[0]) || !Number.isSafeInteger(v[1]) || typeof v[2] !== 'string') throw new TypeError('not a saved schema');
    const [seen, objects, letters, props, items, truncated] = v as [number, number, string, unknown, unknown, unknown];
    const n = new SchemaNode();
    n.seen = seen;
    n.objects = objects;
    for (const c of letters) {
      const t = TYPE_OF_LETTER.get(c);
      if (!t) throw new TypeError('not a saved schema');
      n.types.add(t);
    }
    if (Array.isArray(props)) {
      n.properties = new Map();
      for (let i = 0; i + 1 < props.length; i += 2) n.properties.set(String(props[i]), SchemaNode.fromJSON(props[i + 1]));
    }
    if (items) n.items = SchemaNode.fromJSON(items);
    n.truncated = truncated === 1;
    return n;
  }
}

/** A SchemaNode as JSON (see toJSON). */
type SavedSchema = (number | string | (string | SchemaNode)[] | SchemaNode)[];

const TYPE_LETTER: Record<JsonType, string> = { null: 'n', boolean: 'b', integer: 'i', number: 'f', string: 's', array: 'a', object: 'o' };
const TYPE_OF_LETTER = new Map(Object.entries(TYPE_LETTER).map(([t, c]) => [c, t as JsonType]));

export function typeOf(v: unknown): JsonType {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'boolean':
      return 'boolean';
    case 'number':
      return Number.isInteger(v) ? 'integer' : 'number';
    case 'string':
      return 'string';
    default:
      return 'object';
  }
}

export interface SchemaLimits {
  /** Levels of nesting printed below the record itself. */
  depth: number;
  /** Properties printed per object. */
  properties: number;
}

/**
 * The node as a JSON Schema, cut to the limits: deeper objects become `{"type":"object"}`, and an object with
 * more properties than the limit lists the first ones and notes how many it left out in `description`.
 */
export function toJsonSchema(node: SchemaNode, limits: SchemaLimits, depth = 0): Record<string, unknown> {
  const types = [...node.types];
  if (types.includes('integer') && types.includes('number')) types.splice(types.indexOf('integer'), 1);
  const out: Record<string, unknown> = { type: types.length === 1 ? types[0] : types };
  if (node.properties && node.properties.size > 0 && depth < limits.depth) {
    const props: Record<string, unknown> = {};
    const required: string[] = [];
    let shown = 0;
    for (const [k, child] of node.properties) {
      if (shown >= limits.properties) break;
      props[k] = toJsonSchema(child, limits, depth + 1);
      if (child.seen === node.objects) required.push(k);
      shown++;
    }
    out.properties = props;
    if (required.length > 0) out.required = required;
    if (node.properties.size > shown || node.truncated) out.description = `${node.properties.size - shown}+ more properties not shown`;
  }
  if (node.items && node.items.seen > 0 && depth < limits.depth) out.items = toJsonSchema(node.items, limits, depth + 1);
  return out;
}

/** Dotted jq paths of the fields, e.g. `.status`, `.metadata.name`, down to `depth` levels. */
export function fieldPaths(node: SchemaNode, depth: number, prefix = ''): string[] {
  const out: string[] = [];
  if (!node.properties) return out;
  for (const [k, child] of node.properties) {
    const path = prefix + jqKey(k);
    out.push(path);
    if (depth > 1 && child.properties) out.push(...fieldPaths(child, depth - 1, path));
  }
  return out;
}

/** A jq path step for a key: `.name` when it is an identifier, else `."odd key"`. */
export function jqKey(k: string): string {
  let key = jqKeys.get(k);
  if (key === undefined) {
    key = /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `.${k}` : `.${JSON.stringify(k)}`;
    if (jqKeys.size >= 10_000) jqKeys.clear();
    jqKeys.set(k, key);
  }
  return key;
}

/** Keys repeat from record to record: their jq form, made once. */
const jqKeys = new Map<string, string>();
