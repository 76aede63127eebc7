// The lines of a TOML file as TOML sees them, enough to edit a table by its lines: which line is a table header
// and which key, and which lines only continue a value begun above (a multi-line string or array, whose lines may
// look like `[note]` or `# x` without being one). The keys are read by smol-toml itself.
import { parse as parseToml } from 'smol-toml';

export type LineKind = 'blank' | 'comment' | 'header' | 'key' | 'more';

export interface TomlLine {
  kind: LineKind;
  /** header: the table's key path; key: the key's path (dotted keys give several names). */
  path?: string[];
  /** header: an array of tables ([[x]]). */
  array?: boolean;
}

/** The key path a TOML key text (`a."b c".d`) names, or null when it is not one. */
export function keyPath(key: string): string[] | null {
  let v: unknown;
  try {
    v = parseToml(`${key} = 0`);
  } catch {
    return null;
  }
  const path: string[] = [];
  while (v && typeof v === 'object') {
    const keys = Object.keys(v);
    if (keys.length !== 1) return null;
    path.push(keys[0]);
    v = (v as Record<string, unknown>)[keys[0]];
  }
  return path;
}

/**
 * Each line of `lines` (the text split at line breaks) classified. Only the start of a line not inside a value
 * decides its kind; the rest of each line is scanned for strings, comments and brackets so that the next line's
 * start is known.
 */
export function tomlLines(lines: string[]): TomlLine[] {
  const out: TomlLine[] = [];
  let open: '"""' | "'''" | null = null; // a multi-line string running on
  let depth = 0; // arrays and inline tables open across lines
  for (const line of lines) {
    let i = 0;
    if (open || depth > 0) {
      out.push({ kind: 'more' });
    } else {
      const start = /^[ \t]*/.exec(line)![0].length;
      const c = line[start];
      if (c === undefined || c === '\r') {
        out.push({ kind: 'blank' });
        continue;
      }
      if (c === '#') {
        out.push({ kind: 'comment' });
        continue;
      }
      if (c === '[') {
        const array = line[start + 1] === '[';
        const from = start + (array ? 2 : 1);
        const end = closingBracket(line, from);
        const path = end < 0 ? null : keyPath(line.slice(from, end));
        out.push({ kind: 'header', path: path ?? undefined, array });
        i = end < 0 ? line.length : end + (array ? 2 : 1);
      } else {
        const eq = keyEnd(line, start);
        const path = eq < 0 ? null : keyPath(line.slice(start, eq));
        out.push({ kind: 'key', path: path ?? undefined });
        i = eq < 0 ? line.length : eq + 1;
      }
    }
    // the rest of the line: where strings, comments and brackets open and close
    while (i < line.length) {
      if (open) {
        const close = findClose(line, i, open);
        if (close < 0) {
          i = line.length;
          break;
        }
        i = close;
        open = null;
        continue;
      }
      const c = line[i];
      if (c === '#') break;
      if (c === '"' || c === "'") {
        const triple = c.repeat(3);
        if (line.startsWith(triple, i)) {
          open = triple as '"""' | "'''";
          i += 3;
          continue;
        }
        i = stringEnd(line, i);
        continue;
      }
      if (c === '[' || c === '{') depth++;
      else if ((c === ']' || c === '}') && depth > 0) depth--;
      i++;
    }
  }
  return out;
}

/** The index just past a one-line string starting at `i` (its quote), or the line's end. */
function stringEnd(line: string, i: number): number {
  const q = line[i];
  for (let j = i + 1; j < line.length; j++) {
    if (q === '"' && line[j] === '\\') j++;
    else if (line[j] === q) return j + 1;
  }
  return line.length;
}

/** Where a multi-line string closes in `line` from `i` (the index past its closing quotes), or -1. */
function findClose(line: string, i: number, delim: string): number {
  const q = delim[0];
  for (let j = i; j < line.length; j++) {
    if (q === '"' && line[j] === '\\') {
      j++;
      continue;
    }
    if (line.startsWith(delim, j)) {
      let k = j + 3;
      while (k < line.length && line[k] === q && k - j < 5) k++; // up to two quotes of the content before it
      return k;
    }
  }
  return -1;
}

/** The index of the `]` that closes a header's key (quoted keys may hold one), or -1. */
function closingBracket(line: string, from: number): number {
  for (let j = from; j < line.length; j++) {
    if (line[j] === '"' || line[j] === "'") j = stringEnd(line, j) - 1;
    else if (line[j] === ']') return j;
  }
  return -1;
}

/** The index of the `=` after a key (quoted keys may hold one), or -1. */
function keyEnd(line: string, from: number): number {
  for (let j = from; j < line.length; j++) {
    if (line[j] === '"' || line[j] === "'") j = stringEnd(line, j) - 1;
    else if (line[j] === '=') return j;
  }
  return -1;
}

/** The statement (a key line and the lines continuing its value) starting at `i`: its end (exclusive). */
export function statementEnd(kinds: TomlLine[], i: number): number {
  let j = i + 1;
  while (j < kinds.length && kinds[j].kind === 'more') j++;
  return j;
}
