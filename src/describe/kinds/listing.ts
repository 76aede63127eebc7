// A directory listing (ls -l, ls -la, ls -laR): entries by type, the directories listed, sizes, the largest files,
// owners, over the whole listing. Its columns are named; a file named "error.log" is not an error line, and there are no log levels.
import { fed, type KindCounter, type KindFacts, type TextSample } from './types.js';
import { estimateNote, Largest, most, numbered, TopCounts } from './util.js';

/** ls's dates: "Nov 26 06:17", "Jan  1  2025", "26 Nov 06:17", --time-style=iso and long-iso. */
const DATE = [
  String.raw`\w{3}\s+\d{1,2}\s+(?:\d{1,2}:\d\d|\d{4})`,
  String.raw`\d{1,2}\s+\w{3}\s+(?:\d{1,2}:\d\d|\d{4})`,
  String.raw`\d{4}-\d\d-\d\d(?:[ T][\d:.]+(?: [+-]\d{4})?)?`,
].join('|');
/** mode, links, owner, group, size (or a device's major, minor), date, name. */
const ENTRY = new RegExp(
  String.raw`^([-dlcbpsD])[-rwxsStT]{9}[.+@]?\s+(\d+)\s+(\S+)\s+(\S+)\s+(?:\d+,\s*)?(\d+(?:[.,]\d+)?[KMGTPEZY]?)\s+(?:${DATE})\s(.*)$`,
);
const TOTAL = /^total \d+(?:[.,]\d+)?[KMGTPEZY]?$/;
/** ls -h's units (powers of 1,024). */
const UNIT = 'KMGTPEZY';

/** A size as ls prints it, in bytes: `4096`, or -h's `95M`, `1.5K` (its figure rounded up to the unit: an estimate). */
function sizeBytes(s: string): number {
  const unit = UNIT.indexOf(s.at(-1)!);
  return unit < 0 ? Number(s) : Math.round(Number(s.slice(0, -1).replace(',', '.')) * 1024 ** (unit + 1));
}
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

class ListingCounter implements KindCounter {
  private entries = 0;
  private dir = '';
  private dirs = 0;
  private bytes = 0;
  /** Whether sizes were printed by ls -h (K, M, G): the bytes are then estimates. */
  private human = false;
  private readonly types = new TopCounts();
  private readonly owners = new TopCounts();
  private readonly largest = new Largest<Entry>(5);

  line(text: string, n: number): void {
    if (text.endsWith(':')) {
      const h = HEADING.exec(text);
      if (h && !ENTRY.test(text)) {
        this.dir = h[1];
        this.dirs++;
        return;
      }
    }
    const m = ENTRY.exec(text);
    if (!m) return;
    const type = TYPE_NAME[m[1]];
    // (a link's target is not its name; the test of the type spares a regex on every other line)
    const name = type === 'link' ? m[6].replace(/ -> .*$/, '') : m[6];
    if (name === '.' || name === '..') return;
    this.entries++;
    this.types.add(type);
    this.owners.add(m[3]);
    if (type === 'file') {
      const size = sizeBytes(m[5]);
      if (size !== Number(m[5])) this.human = true;
      this.bytes += size;
      this.largest.push(size, { line: n, type, owner: m[3], size, name, dir: this.dir });
    }
  }

  end(): KindFacts {
    const largest = this.largest
      .list()
      .map((e) => ({ name: e.dir ? `${e.dir.replace(/\/$/, '')}/${e.name}` : e.name, size: e.size, line: e.line }));
    const biggest = largest[0];
    return {
      kind: 'listing',
      facts: {
        entries: this.entries,
        ...(this.dirs ? { directories_listed: this.dirs } : {}),
        columns: `mode, links, owner, group, size (${this.human ? 'as ls -h prints it: K, M, G' : 'bytes'}), date, name`,
        by_type: this.types.top(8),
        file_bytes: this.bytes,
        ...(this.human ? { file_bytes_note: 'an estimate: the sum of ls -h sizes, each rounded to its unit' } : {}),
        largest,
        owners: this.owners.top(4),
        ...estimateNote('owners', this.owners),
      },
      errors: 'none',
      levels: false,
      nextCommands: [
        // (the directories' own lines, when there are some: by_type counts them, . and .. aside)
        ...(this.types.has('dir') ? [['grep', 'ID', '^d', '-m', '40']] : []),
        biggest ? ['read', 'ID', '--records', `${biggest.line}`] : ['read', 'ID', '--head', '20'],
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
}

export function countListing(s: TextSample): KindCounter | null {
  const lines = numbered(s.lines);
  const known = (t: string) => ENTRY.test(t) || TOTAL.test(t) || HEADING.test(t);
  if (!most(lines.map((l) => l.text), known, 0.95, 3) || !lines.some((l) => ENTRY.test(l.text))) return null;
  return fed(new ListingCounter(), s);
}
