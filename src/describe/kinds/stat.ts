// stat FILE…: a stanza per file (`  File: NAME`, `  Size: N  Blocks: …  TYPE`, Device/Inode/Links, Access with
// mode and owners, then its Access, Modify, Change and Birth times). Counted over the whole output: how many files,
// by type, the largest by size and the newest and oldest by modification time, each with its line. A file named
// error.log is a name, not an error line.
import { fed, type KindCounter, type KindFacts, type TextSample } from './types.js';
import { estimateNote, Largest, TopCounts } from './util.js';
import type { Words } from '../commands.js';

const FILE = /^ {2}File: (.*)$/;
const SIZE = /^ {2}Size: (\d+)\s+Blocks: \d+\s+IO Block: \d+\s+(.+?)\s*$/;
const MODIFY = /^Modify: (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\S*(?: [+-]\d{4})?)/;
/** Largest files listed. */
const SHOWN = 5;

interface Entry {
  file: string;
  line: number;
}

class StatCounter implements KindCounter {
  private files = 0;
  private readonly types = new TopCounts();
  private readonly largest = new Largest<Entry & { size: number }>(SHOWN);
  private newest: (Entry & { modified: string }) | null = null;
  private oldest: (Entry & { modified: string }) | null = null;
  private current: Entry | null = null;

  line(l: string, n: number): void {
    const file = FILE.exec(l);
    if (file) {
      this.files++;
      // stat prints a symbolic link as 'a' -> 'b' and quotes names with spaces: shown as written
      this.current = { file: file[1], line: n };
      return;
    }
    const cur = this.current;
    if (!cur) return;
    const size = SIZE.exec(l);
    if (size) {
      this.types.add(size[2]);
      this.largest.push(Number(size[1]), { ...cur, size: Number(size[1]) });
      return;
    }
    const m = MODIFY.exec(l);
    if (m) {
      // the times sort as text (ISO dates, one zone per machine)
      if (!this.newest || m[1] > this.newest.modified) this.newest = { ...cur, modified: m[1] };
      if (!this.oldest || m[1] < this.oldest.modified) this.oldest = { ...cur, modified: m[1] };
    }
  }

  end(): KindFacts | null {
    if (this.files === 0) return null;
    const largest = this.largest.list();
    const next: Words[] = [];
    if (largest[0]) next.push(['read', 'ID', '--records', `${largest[0].line}:${largest[0].line + 7}`]);
    next.push(['grep', 'ID', '^  File: ', '-c']);
    return {
      kind: 'stat',
      facts: {
        files: this.files,
        by_type: this.types.top(6),
        ...estimateNote('by_type', this.types),
        largest: largest.map((f) => ({ file: f.file, size: f.size, line: f.line })),
        ...(this.newest ? { newest: this.newest } : {}),
        ...(this.oldest ? { oldest: this.oldest } : {}),
      },
      errors: 'none',
      levels: false,
      nextCommands: next,
    };
  }
}

/** stat's output: its first line names a file and its second its size and type. */
export function countStat(s: TextSample): KindCounter | null {
  const at = s.lines.findIndex((l) => l.trim() !== '');
  if (at < 0 || !FILE.test(s.lines[at]) || !SIZE.test(s.lines[at + 1] ?? '')) return null;
  return fed(new StatCounter(), s);
}
