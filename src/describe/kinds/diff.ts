// A unified diff (git diff, diff -u, git show): files changed, lines added and removed per file, hunks, over the
// whole diff. A removed line that says "error" is a change, not an error. A git log -p (or git show of several
// commits) is the log and its diffs: kind git-log, with its commits, authors and dates beside the diffs' figures.
import { COMMIT, GitLogCounter } from './git-log.js';
import { fed, type KindCounter, type KindFacts, type TextSample } from './types.js';
import { Largest } from './util.js';

interface FileChange {
  file: string;
  added: number;
  removed: number;
  line: number;
}

/** Files shown, the most changed first. */
const SHOWN = 12;

class DiffCounter implements KindCounter {
  private files = 0;
  private added = 0;
  private removed = 0;
  private hunks = 0;
  private inHunk = false;
  private before = '';
  private current: FileChange | null = null;
  private readonly shown = new Largest<FileChange>(SHOWN);

  /** A git log -p: its commits counted as git log's are (null: a plain diff). */
  constructor(private readonly log: GitLogCounter | null = null) {}

  line(l: string, n: number): void {
    // (a diff's own lines start with +, -, space, @, diff, index: only the log's reach it)
    if (this.log && (l.startsWith('commit ') || l.startsWith('Author: ') || l.startsWith('Date: '))) this.log.line(l);
    if (l.startsWith('+++ ')) {
      const name = l.slice(4).replace(/^b\//, '').replace(/\t.*$/, '');
      const prev = this.before.startsWith('--- ') ? this.before.slice(4).replace(/^a\//, '').replace(/\t.*$/, '') : name;
      const file = name === '/dev/null' ? prev : name;
      // (git's `diff --git` header began this file's change; a plain diff -u begins with its --- line)
      if (this.headed && this.current) this.current.file = file;
      else this.change(file, n);
      this.headed = false;
      this.inHunk = false;
    } else if (l.startsWith('@@ ')) {
      this.hunks++;
      this.inHunk = true;
    } else if (l.startsWith('diff --git ')) {
      // a change of its own even with no hunks: a rename, a mode change, a binary file
      const m = / b\/(.+)$/.exec(l);
      this.change(m ? m[1] : l.slice(11), n);
      this.headed = true;
      this.inHunk = false;
    } else if (l.startsWith('diff ')) this.inHunk = false;
    else if (this.inHunk && this.current) {
      if (l.startsWith('+')) {
        this.current.added++;
        this.added++;
      } else if (l.startsWith('-')) {
        this.current.removed++;
        this.removed++;
      }
    }
    this.before = l;
  }

  /** Whether the file change open was begun by its `diff --git` header (its `+++` line names it, not a new one). */
  private headed = false;

  /** A file's change begins on line n. */
  private change(file: string, n: number): void {
    this.close();
    this.current = { file, added: 0, removed: 0, line: n };
    this.files++;
  }

  private close(): void {
    const f = this.current;
    if (f) this.shown.push(f.added + f.removed, f);
    this.current = null;
  }

  sure(): boolean {
    return this.files > 0 && this.hunks > 0;
  }

  end(): KindFacts | null {
    this.close();
    if (!this.sure()) return null;
    const shown = this.shown.list();
    const log = this.log?.end();
    const listed = shown.map((f) => ({ file: f.file, '+': f.added, '-': f.removed, line: f.line }));
    const diff = {
      lines_added: this.added,
      lines_removed: this.removed,
      hunks: this.hunks,
      // the SHOWN most changed, named for what they are: in a git log -p, one commit's change of a file each
      ...(log ? { most_changed_file_diffs: listed } : { most_changed_files: listed }),
    };
    const next = [['grep', 'ID', '^\\+\\+\\+ '], ['grep', 'ID', `^\\+\\+\\+ b/${shown[0].file}`, '-A', '40']];
    if (log) {
      // a file changed by several commits is counted once per commit: file_changes, not files
      return { ...log, facts: { ...log.facts, file_changes: this.files, ...diff }, nextCommands: [...(log.nextCommands ?? []).slice(1), ...next] };
    }
    return {
      kind: 'diff',
      facts: { files_changed: this.files, ...diff },
      errors: 'none',
      levels: false,
      nextCommands: next,
      recipes: [
        { description: 'The files changed', flags: ['-r'], filter: 'select(startswith("+++ ")) | ltrimstr("+++ b/")' },
      ],
    };
  }
}

export function countDiff(s: TextSample): KindCounter | null {
  const first = s.lines.find((l) => l.trim() !== '') ?? '';
  if (!/^(diff |--- |Index: |commit [0-9a-f]{7,})/.test(first)) return null;
  const c = fed(new DiffCounter(COMMIT.test(first) ? new GitLogCounter() : null), s);
  // (the file being read when the sample ends is not closed: counting goes on)
  return c.sure() ? c : null;
}
