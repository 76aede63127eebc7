// Editing a harness's JSON settings like a careful person: jsonc-parser finds where things are and makes the
// edit, and only the text lro inserts is laid out (in the file's own indentation and line ending); everything
// else keeps its bytes. The file is never re-serialised.
import { applyEdits, parse, parseTree, findNodeAtLocation, printParseErrorCode, type Edit, type JSONPath, type Node, type ParseError } from 'jsonc-parser';

/** How a file lays itself out: its indentation unit and line ending. */
export interface Layout {
  indent: string;
  eol: string;
}

/** The layout of `text`: the first indented line's indentation (else 2 spaces), CRLF if it has any. */
export function layoutOf(text: string): Layout {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const m = /\n([ \t]+)\S/.exec(text);
  return { indent: m ? m[1] : '  ', eol };
}

/** Why `text` is not strict JSON (a comment, a trailing comma, a syntax error), or null when it is. */
export function strictJsonProblem(text: string): string | null {
  const errors: ParseError[] = [];
  parse(text, errors, { allowTrailingComma: false, disallowComments: true, allowEmptyContent: false });
  if (!errors.length) return null;
  const e = errors[0];
  const line = text.slice(0, e.offset).split('\n').length;
  const what = printParseErrorCode(e.error);
  return what === 'InvalidCommentToken' ? `a comment at line ${line}` : `${what} at line ${line}`;
}

/** The root of a JSON text (null for empty text). */
export function treeOf(text: string): Node | undefined {
  return parseTree(text, [], { allowTrailingComma: false, disallowComments: true });
}

/** The value at `path`, or undefined. */
export function valueAt(text: string, path: JSONPath): unknown {
  const root = treeOf(text);
  const node = root && findNodeAtLocation(root, path);
  return node ? nodeValue(node) : undefined;
}

function nodeValue(node: Node): unknown {
  switch (node.type) {
    case 'object':
      return Object.fromEntries((node.children ?? []).map((p) => [p.children![0].value as string, nodeValue(p.children![1])]));
    case 'array':
      return (node.children ?? []).map(nodeValue);
    default:
      return node.value;
  }
}

/** The indentation of the line `offset` is on. */
function indentAt(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))![0];
}

/** `value` as JSON laid out in `layout`, its first line at the cursor and the others indented by `base`. */
function pretty(value: unknown, layout: Layout, base: string): string {
  return JSON.stringify(value, null, layout.indent).replace(/\n/g, `${layout.eol}${base}`);
}

/**
 * Sets `path` to `value` (creating the objects on the way) or, for an array path ending in -1, appends to it.
 * The new text is laid out in the file's layout, on lines of its own when its neighbours are on lines of theirs,
 * and on the same line when the container is written on one line.
 */
export function setAt(text: string, path: JSONPath, value: unknown): string {
  const layout = layoutOf(text);
  const root = treeOf(text);
  // the deepest container that exists, and what has to be made inside it
  let depth = path.length - 1;
  let container: Node | undefined;
  for (; depth >= 0; depth--) {
    container = root && findNodeAtLocation(root, path.slice(0, depth));
    if (container) break;
  }
  if (!root || !container) {
    // an empty file: the whole document is lro's
    let doc: unknown = value;
    for (let i = path.length - 1; i >= 0; i--) doc = typeof path[i] === 'number' ? [doc] : { [path[i]]: doc };
    return `${pretty(doc, layout, '')}${layout.eol}`;
  }
  // what goes into `container`: the rest of the path as nested objects/arrays around value
  let inner: unknown = value;
  for (let i = path.length - 1; i > depth; i--) inner = typeof path[i] === 'number' ? [inner] : { [path[i]]: inner };
  const key = path[depth];
  const existing = container.type === 'object' && typeof key === 'string' ? findNodeAtLocation(container, [key]) : undefined;
  if (existing && depth === path.length - 1) {
    // replace a value in place
    return applyEdits(text, [{ offset: existing.offset, length: existing.length, content: pretty(value, layout, indentAt(text, existing.offset)) }]);
  }
  const children = container.children ?? [];
  const open = container.offset;
  const close = container.offset + container.length - 1; // the } or ]
  const entry = (base: string) =>
    container!.type === 'object' ? `${JSON.stringify(key)}: ${pretty(inner, layout, base)}` : pretty(inner, layout, base);
  if (children.length) {
    const last = children[children.length - 1];
    const after = last.offset + last.length;
    const oneLine = !text.slice(open, close).includes('\n');
    if (oneLine) {
      // a container written on one line gets lro's entry on that line too
      const flat = (v: unknown) => JSON.stringify(v, null, 1).replace(/\n\s*/g, ' ');
      const item = container.type === 'object' ? `${JSON.stringify(key)}: ${flat(inner)}` : flat(inner);
      return applyEdits(text, [{ offset: after, length: 0, content: `, ${item}` }]);
    }
    const base = indentAt(text, last.offset);
    return applyEdits(text, [{ offset: after, length: 0, content: `,${layout.eol}${base}${entry(base)}` }]);
  }
  // an empty container: lro's entry on its own line(s) inside it
  const outer = indentAt(text, open);
  const base = outer + layout.indent;
  return applyEdits(text, [{ offset: open + 1, length: close - open - 1, content: `${layout.eol}${base}${entry(base)}${layout.eol}${outer}` }]);
}

/**
 * Removes what `path` names (a property or an array element), the inverse of setAt: from the end of the entry
 * before it (its comma and line break go with it), else up to the entry after it, else the container's whole
 * inside. The text around keeps its bytes.
 */
export function removeAt(text: string, path: JSONPath): string {
  const root = treeOf(text);
  const value = root && findNodeAtLocation(root, path);
  if (!value) return text;
  const entry = value.parent?.type === 'property' ? value.parent : value;
  const container = entry.parent!;
  const siblings = container.children ?? [];
  const i = siblings.indexOf(entry);
  let edit: Edit;
  if (i > 0) {
    const prev = siblings[i - 1];
    edit = { offset: prev.offset + prev.length, length: entry.offset + entry.length - (prev.offset + prev.length), content: '' };
  } else if (i + 1 < siblings.length) {
    edit = { offset: entry.offset, length: siblings[i + 1].offset - entry.offset, content: '' };
  } else {
    edit = { offset: container.offset + 1, length: container.length - 2, content: '' };
  }
  return applyEdits(text, [edit]);
}
