// git log (with or without --stat): commits, authors, the dates of the first and last commit shown, and with
// --stat the files changed and lines inserted and deleted. A commit message saying "fix error" is no error line.
import type { KindFacts, TextSample } from './types.js';
import { bump, scope, topCounts } from './util.js';
import { shellQuote } from '../shell.js';

const COMMIT = /^commit ([0-9a-f]{7,64})\b/;

export function detectGitLog(s: TextSample): KindFacts | null {
  const first = s.lines.find((l) => l.trim() !== '') ?? '';
  if (!COMMIT.test(first)) return null;
  let commits = 0;
  const authors = new Map<string, number>();
  const dates: string[] = [];
  let files = 0;
  let insertions = 0;
  let deletions = 0;
  for (const l of s.lines) {
    if (COMMIT.test(l)) commits++;
    else if (l.startsWith('Author: ')) bump(authors, l.slice(8).replace(/\s*<[^>]*>$/, ''));
    else if (l.startsWith('Date: ')) dates.push(l.slice(6).trim());
    const st = /^ (\d+) files? changed(?:, (\d+) insertions?\(\+\))?(?:, (\d+) deletions?\(-\))?/.exec(l);
    if (st) {
      files += Number(st[1]);
      insertions += Number(st[2] ?? 0);
      deletions += Number(st[3] ?? 0);
    }
  }
  if (commits === 0 || authors.size === 0) return null;
  const top = [...authors.keys()][0];
  return {
    kind: 'git-log',
    facts: {
      commits,
      ...scope(s.complete, s.lines.length),
      authors: topCounts(authors, 6),
      newest: dates[0],
      oldest: dates.at(-1),
      ...(files ? { files_changed: files, insertions, deletions } : {}),
    },
    errors: 'none',
    levels: false,
    next: [`lro grep ID ${shellQuote(`^Author: ${top}`)} -c`, "lro grep ID '^commit ' -A 5 -m 10"],
    recipes: [{ description: 'Commit ids', flags: ['-r'], filter: 'select(startswith("commit ")) | .[7:]' }],
  };
}
