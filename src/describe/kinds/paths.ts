// A list of paths, one a line (find, fd, git ls-files, rg --files): how many, under which root, by extension and by
// top directory, over the whole list. A path holding "error" is not an error: no error lines, no log levels.
import { fed, type KindCounter, type KindFacts, type TextSample } from './types.js';
import { escapeRegex, estimateNote, most, numbered, TopCounts } from './util.js';

const PATH = /^(\/|\.{1,2}\/|~\/|[\w@.+-]+\/)[^\t\n]*$/;

/** A path has no run of spaces (a table) and no ": " (grep -n output, a log line). */
const isPath = (t: string) => PATH.test(t) && !/ {2}|: |\t/.test(t) && t.length < 4096;

/**
 * Counts over every path; the root (the longest directory all are under) can only get shorter as paths pass, and
 * when it does, every path counted so far was under the old root, so the top directories counted so far all become
 * the one top directory that holds the old root, and their depths grow by as much.
 */
class PathsCounter implements KindCounter {
  private paths = 0;
  /** The longest common prefix of the paths, and the characters that follow it in them ('' when one ends there). */
  private prefix: string | null = null;
  private next = new Set<string>();
  private root = '';
  private readonly ext = new TopCounts();
  private readonly top = new TopCounts();
  /** The deepest path under the root (0: none yet), and how many paths are the root itself. */
  private depth = 0;
  private atRoot = 0;

  line(text: string): void {
    if (!isPath(text)) return;
    this.paths++;
    this.widen(text);
    const p = text;
    const base = p.slice(p.lastIndexOf('/') + 1);
    const dot = base.lastIndexOf('.');
    this.ext.add(dot > 0 ? base.slice(dot) : '(none)');
    const rest = p.slice(this.root.length).replace(/^\//, '');
    const first = rest.split('/')[0];
    if (!first) this.atRoot++;
    else {
      this.top.add(rest.includes('/') ? `${first}/` : first);
      this.depth = Math.max(this.depth, rest.split('/').length);
    }
  }

  /** The prefix shortened to take p in, and the root moved up with it. */
  private widen(p: string): void {
    if (this.prefix === null) {
      this.prefix = p;
      this.next = new Set(['']);
    } else {
      let i = 0;
      const pre = this.prefix;
      while (i < pre.length && i < p.length && pre[i] === p[i]) i++;
      if (i < pre.length) {
        this.next = new Set([pre[i], p[i] ?? '']);
        this.prefix = pre.slice(0, i);
      } else this.next.add(p[i] ?? '');
    }
    const root = this.rootOf();
    if (root === this.root) return;
    if (this.paths > 1 && root.length > this.root.length) {
      // the paths so far were all this one (find lists its root first): the root itself, no top directory
      this.top.collapse('');
      this.atRoot = this.paths - 1;
      this.depth = 0;
    } else if (this.paths > 1) {
      // every path so far was the old root or under it: one top directory now, each as much deeper
      const parts = this.root.slice(root.length).split('/').filter(Boolean);
      if (parts.length) {
        this.top.collapse(`${parts[0]}/`);
        if (this.atRoot) this.top.add(parts.length === 1 ? parts[0] : `${parts[0]}/`, this.atRoot);
        this.depth = Math.max(this.depth ? this.depth + parts.length : 0, this.atRoot ? parts.length : 0);
        this.atRoot = 0;
      }
    }
    this.root = root;
  }

  /** The longest directory every path is under ("" when none). */
  private rootOf(): string {
    const prefix = this.prefix ?? '';
    if (!prefix) return '';
    // the prefix is a directory when every path is it or goes on with a "/" under it
    if (this.next.has('/') && [...this.next].every((c) => c === '/' || c === '')) return prefix;
    const cut = prefix.lastIndexOf('/');
    return cut > 0 ? prefix.slice(0, cut) : prefix.startsWith('/') ? '/' : '';
  }

  end(total: number): KindFacts {
    const commonExt = [...this.ext.map()].filter(([e]) => e !== '(none)').sort((a, b) => b[1] - a[1])[0]?.[0] ?? '.txt';
    return {
      kind: 'paths',
      facts: {
        paths: this.paths,
        ...(total > this.paths ? { other_lines: total - this.paths } : {}),
        root: this.root || '.',
        by_extension: this.ext.top(8),
        ...estimateNote('by_extension', this.ext),
        by_top_dir: this.top.top(8),
        ...estimateNote('by_top_dir', this.top),
        max_depth: Math.max(this.depth, this.atRoot ? 1 : 0),
      },
      errors: 'none',
      levels: false,
      nextCommands: [
        ['grep', 'ID', `${escapeRegex(commonExt)}$`, '-c'],
        ['grep', 'ID', `/${this.top.first() ?? ''}`, '-m', '20'],
      ],
      recipes: [
        { description: `Paths ending in ${commonExt}`, flags: ['-r'], filter: `select(endswith(${JSON.stringify(commonExt)}))` },
      ],
    };
  }
}

export function countPaths(s: TextSample): KindCounter | null {
  const lines = numbered(s.lines);
  if (!most(lines.map((l) => l.text), isPath, 0.97, 5)) return null;
  return fed(new PathsCounter(), s);
}
