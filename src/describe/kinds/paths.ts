// A list of paths, one a line (find, fd, git ls-files, rg --files): how many, under which root, by extension and by
// top directory. A path holding "error" is not an error: no error lines, no log levels.
import type { KindFacts, TextSample } from './types.js';
import { bump, escapeRegex, most, numbered, scope, topCounts } from './util.js';
import { shellQuote } from '../shell.js';

const PATH = /^(\/|\.{1,2}\/|~\/|[\w@.+-]+\/)[^\t\n]*$/;

export function detectPaths(s: TextSample): KindFacts | null {
  const lines = numbered(s.lines);
  // a path has no run of spaces (a table) and no ": " (grep -n output, a log line)
  const isPath = (t: string) => PATH.test(t) && !/ {2}|: |\t/.test(t) && t.length < 4096;
  if (!most(lines.map((l) => l.text), isPath, 0.97, 5)) return null;
  const paths = lines.map((l) => l.text).filter(isPath);
  const root = commonDir(paths);
  const ext = new Map<string, number>();
  const top = new Map<string, number>();
  let maxDepth = 0;
  for (const p of paths) {
    const base = p.slice(p.lastIndexOf('/') + 1);
    const dot = base.lastIndexOf('.');
    bump(ext, dot > 0 ? base.slice(dot) : '(none)');
    const rest = p.slice(root.length).replace(/^\//, '');
    const first = rest.split('/')[0];
    if (first) bump(top, rest.includes('/') ? `${first}/` : first);
    maxDepth = Math.max(maxDepth, rest.split('/').length);
  }
  const commonExt = [...ext].filter(([e]) => e !== '(none)').sort((a, b) => b[1] - a[1])[0]?.[0] ?? '.txt';
  return {
    kind: 'paths',
    facts: {
      paths: s.total,
      root: root || '.',
      ...scope(s.complete, s.lines.length),
      by_extension: topCounts(ext, 8),
      by_top_dir: topCounts(top, 8),
      max_depth: maxDepth,
    },
    errors: 'none',
    levels: false,
    next: [
      `lro grep ID ${shellQuote(`${escapeRegex(commonExt)}$`)} -c`,
      `lro grep ID ${shellQuote(`/${Object.keys(topCounts(top, 1))[0] ?? ''}`)} -m 20`,
    ],
    recipes: [
      { description: `Paths ending in ${commonExt}`, flags: ['-r'], filter: `select(endswith(${JSON.stringify(commonExt)}))` },
    ],
  };
}


/** The longest directory every path is under ("" when none). */
function commonDir(paths: string[]): string {
  if (paths.length === 0) return '';
  let prefix = paths[0];
  for (const p of paths) {
    while (!p.startsWith(prefix)) prefix = prefix.slice(0, -1);
    if (!prefix) return '';
  }
  // a whole path is its own directory only when it is one of the directories listed (find lists the root first)
  if (paths.some((p) => p !== prefix && p.startsWith(`${prefix}/`))) return prefix;
  const cut = prefix.lastIndexOf('/');
  return cut > 0 ? prefix.slice(0, cut) : prefix.startsWith('/') ? '/' : '';
}
