// A directory listing (ls -l, ls -la, ls -laR): entries by type, the directories listed, sizes, the largest files,
// owners. Its columns are named; a file named "error.log" is not an error line, and there are no log levels.
import type { KindFacts, TextSample } from './types.js';
import { bump, most, numbered, scope, topCounts } from './util.js';

/** ls's dates: "Nov 26 06:17", "Jan  1  2025", "26 Nov 06:17", --time-style=iso and long-iso. */
const DATE = [
  String.raw`\w{3}\s+\d{1,2}\s+(?:\d{1,2}:\d\d|\d{4})`,
  String.raw`\d{1,2}\s+\w{3}\s+(?:\d{1,2}:\d\d|\d{4})`,
  String.raw`\d{4}-\d\d-\d\d(?:[ T][\d:.]+(?: [+-]\d{4})?)?`,
].join('|');
/** mode, links, owner, group, size (or a device's major, minor), date, name. */
const ENTRY = new RegExp(
  String.raw`^([-dlcbpsD])[-rwxsStT]{9}[.+@]?\s+(\d+)\s+(\S+)\s+(\S+)\s+(?:\d+,\s*)?(\d+)\s+(?:${DATE})\s(.*)$`,
);
const TOTAL = /^total \d+/;
const HEADING = /^(\S.*):$/;
const TYPE_NAME: Record<string, string> = {
  '-': 'file',
  d: 'dir',
  l: 'link',
  c: 'char-device',
  b: 'block-device',
  p: 'fifo',
  s: 'socket',
  D: 'door',
};

interface Entry {
  line: number;
  type: string;
  owner: string;
  size: number;
  name: string;
  dir: string;
}

export function detectListing(s: TextSample): KindFacts | null {
  const lines = numbered(s.lines);
  const known = (t: string) => ENTRY.test(t) || TOTAL.test(t) || HEADING.test(t);
  if (!most(lines.map((l) => l.text), known, 0.95, 3) || !lines.some((l) => ENTRY.test(l.text))) return null;
  const entries: Entry[] = [];
  let dir = '';
  let dirs = 0;
  for (const l of lines) {
    const h = HEADING.exec(l.text);
    if (h && !ENTRY.test(l.text)) {
      dir = h[1];
      dirs++;
      continue;
    }
    const m = ENTRY.exec(l.text);
    if (!m) continue;
    const name = m[6].replace(/ -> .*$/, '');
    if (name === '.' || name === '..') continue;
    entries.push({ line: l.n, type: TYPE_NAME[m[1]], owner: m[3], size: Number(m[5]), name, dir });
  }
  const types = new Map<string, number>();
  const owners = new Map<string, number>();
  let bytes = 0;
  for (const e of entries) {
    bump(types, e.type);
    bump(owners, e.owner);
    if (e.type === 'file') bytes += e.size;
  }
  const largest = entries
    .filter((e) => e.type === 'file')
    .sort((a, b) => b.size - a.size)
    .slice(0, 5)
    .map((e) => ({ name: e.dir ? `${e.dir.replace(/\/$/, '')}/${e.name}` : e.name, size: e.size, line: e.line }));
  const biggest = largest[0];
  return {
    kind: 'listing',
    facts: {
      entries: entries.length,
      ...(dirs ? { directories_listed: dirs } : {}),
      ...scope(s.complete, s.lines.length),
      columns: 'mode, links, owner, group, size (bytes), date, name',
      by_type: topCounts(types, 8),
      file_bytes: bytes,
      largest,
      owners: topCounts(owners, 4),
    },
    errors: 'none',
    levels: false,
    next: [
      `lro grep ID '^d' -c`,
      biggest ? `lro read ID --records ${biggest.line}` : 'lro read ID --head 20',
    ],
    recipes: [
      {
        description: 'Files (not . and ..) as {size, name}, largest first',
        flags: ['-s', '-c'],
        filter:
          'map(capture("^-\\\\S+\\\\s+\\\\d+\\\\s+\\\\S+\\\\s+\\\\S+\\\\s+(?<size>\\\\d+)\\\\s+\\\\S+\\\\s+\\\\S+\\\\s+\\\\S+ (?<name>.*)$")?' +
          ' | .size |= tonumber) | sort_by(-.size) | .[:10]',
      },
    ],
  };
}
