// git log (with or without --stat): commits, authors, the dates of the first and last commit shown, and with
// --stat the files changed and lines inserted and deleted, over the whole log. A commit message saying "fix error"
// is no error line.
import { fed, type KindCounter, type KindFacts, type TextSample } from './types.js';
import { estimateNote, TopCounts } from './util.js';

export const COMMIT = /^commit ([0-9a-f]{7,64})\b/;
const STAT = /^ (\d+) files? changed(?:, (\d+) insertions?\(\+\))?(?:, (\d+) deletions?\(-\))?/;

export class GitLogCounter implements KindCounter {
  private commits = 0;
  private readonly authors = new TopCounts();
  private newest: string | undefined;
  private oldest: string | undefined;
  private files = 0;
  private insertions = 0;
  private deletions = 0;

  line(l: string): void {
    if (l.startsWith('commit ')) {
      if (COMMIT.test(l)) this.commits++;
    } else if (l.startsWith('Author: ')) this.authors.add(l.slice(8).replace(/\s*<[^>]*>$/, ''));
    else if (l.startsWith('Date: ')) {
      const d = l.slice(6).trim();
      this.newest ??= d;
      this.oldest = d;
    } else if (l.startsWith(' ') && l.includes(' changed')) {
      const st = STAT.exec(l);
      if (st) {
        this.files += Number(st[1]);
        this.insertions += Number(st[2] ?? 0);
        this.deletions += Number(st[3] ?? 0);
      }
    }
  }

  sure(): boolean {
    return this.commits > 0 && this.authors.size > 0;
  }

  end(): KindFacts | null {
    if (!this.sure()) return null;
    const top = this.authors.first()!;
    return {
      kind: 'git-log',
      facts: {
        commits: this.commits,
        ...(this.authors.exact ? { authors_distinct: this.authors.size } : {}),
        authors: this.authors.top(6),
        ...estimateNote('authors', this.authors),
        // git log shows the newest first (unless --reverse): the first and the last date shown
        newest: this.newest,
        oldest: this.oldest,
        ...(this.files ? { files_changed: this.files, insertions: this.insertions, deletions: this.deletions } : {}),
      },
      errors: 'none',
      levels: false,
      nextCommands: [['grep', 'ID', `^Author: ${top}`, '-c'], ['grep', 'ID', '^commit ', '-A', '5', '-m', '10']],
      recipes: [{ description: 'Commit ids', flags: ['-r'], filter: 'select(startswith("commit ")) | .[7:]' }],
    };
  }
}

/** git log --oneline (with --decorate, --graph): `1a2b3c4 (HEAD -> main) subject`, `* 1a2b3c4 subject`. */
const ONELINE = /^(?:[*|/\\ ]+ )?([0-9a-f]{7,40}) (?:\([^)]*\) )?\S/;

/** A --graph line that joins branches: `|\`, `| |/`, `|/  `. */
const GRAPH = /^[*|/\\ _.-]+$/;

/** git log --oneline: commits, the newest and the oldest; a subject saying "fix error" is no error line. */
class OnelineCounter implements KindCounter {
  private commits = 0;
  private newest: { hash: string; line: number } | undefined;
  private oldest: { hash: string; line: number } | undefined;
  /** Lines that are no commit (a --graph's joins, a message in a script's output). */
  private other = 0;

  line(l: string, n: number): void {
    const m = ONELINE.exec(l);
    if (!m) {
      if (l.trim() !== '' && !GRAPH.test(l)) this.other++;
      return;
    }
    this.commits++;
    this.newest ??= { hash: m[1], line: n };
    this.oldest = { hash: m[1], line: n };
  }

  end(): KindFacts {
    return {
      kind: 'git-log',
      facts: {
        format: 'oneline',
        commits: this.commits,
        ...(this.newest ? { newest: `${this.newest.hash} (line ${this.newest.line})`, oldest: `${this.oldest!.hash} (line ${this.oldest!.line})` } : {}),
        ...(this.other ? { other_lines: this.other } : {}),
      },
      errors: 'none',
      levels: false,
      nextCommands: [['read', 'ID', '--head', '40'], ['read', 'ID', '--tail', '20']],
    };
  }
}

export function countGitLog(s: TextSample): KindCounter | null {
  const first = s.lines.find((l) => l.trim() !== '') ?? '';
  if (!COMMIT.test(first)) {
    const lines = s.lines.filter((l) => l.trim() !== '');
    if (lines.length < 3 || !ONELINE.test(first)) return null;
    const oneline = lines.filter((l) => ONELINE.test(l) || GRAPH.test(l)).length;
    return oneline >= lines.length * 0.95 ? fed(new OnelineCounter(), s) : null;
  }
  const c = fed(new GitLogCounter(), s);
  return c.sure() ? c : null;
}
