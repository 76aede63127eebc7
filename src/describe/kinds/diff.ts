// A unified diff (git diff, diff -u, git show): files changed, lines added and removed per file, hunks. A removed
// line that says "error" is a change, not an error.
import type { KindFacts, TextSample } from './types.js';
import { shellQuote } from '../shell.js';

export function detectDiff(s: TextSample): KindFacts | null {
  const first = s.lines.find((l) => l.trim() !== '') ?? '';
  if (!/^(diff |--- |Index: |commit [0-9a-f]{7,})/.test(first)) return null;
  const files: { file: string; added: number; removed: number; line: number }[] = [];
  let hunks = 0;
  let inHunk = false;
  s.lines.forEach((l, i) => {
    if (l.startsWith('+++ ')) {
      const name = l.slice(4).replace(/^b\//, '').replace(/\t.*$/, '');
      const before = s.lines[i - 1] ?? '';
      const prev = before.startsWith('--- ') ? before.slice(4).replace(/^a\//, '').replace(/\t.*$/, '') : name;
      files.push({ file: name === "/dev/null" ? prev : name, added: 0, removed: 0, line: i + 1 });
      inHunk = false;
    } else if (l.startsWith('@@ ')) {
      hunks++;
      inHunk = true;
    } else if (l.startsWith('diff ')) inHunk = false;
    else if (inHunk && files.length) {
      if (l.startsWith('+')) files[files.length - 1].added++;
      else if (l.startsWith('-')) files[files.length - 1].removed++;
    }
  });
  if (files.length === 0 || hunks === 0) return null;
  const added = files.reduce((a, f) => a + f.added, 0);
  const removed = files.reduce((a, f) => a + f.removed, 0);
  const shown = [...files].sort((a, b) => b.added + b.removed - (a.added + a.removed)).slice(0, 12);
  return {
    kind: 'diff',
    facts: {
      files_changed: files.length,
      lines_added: added,
      lines_removed: removed,
      hunks,
      ...(s.complete ? {} : { from_first_lines: s.lines.length }),
      files: shown.map((f) => ({ file: f.file, '+': f.added, '-': f.removed, line: f.line })),
    },
    errors: 'none',
    levels: false,
    next: ['lro grep ID \'^\\+\\+\\+ \'', `lro grep ID ${shellQuote(`^\\+\\+\\+ b/${shown[0].file}`)} -A 40`],
    recipes: [
      { description: 'The files changed', flags: ['-r'], filter: 'select(startswith("+++ ")) | ltrimstr("+++ b/")' },
    ],
  };
}
