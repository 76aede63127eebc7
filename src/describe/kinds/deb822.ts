// Debian control stanzas (apt-cache show and dumpavail, dpkg -s, /var/lib/dpkg/status, .dsc, Release files):
// `Field: value` lines, continued by lines that start with a space, stanzas apart by a blank line. Counted over the
// whole output: stanzas, their fields, and for packages their sections, architectures and priorities. A package
// named liberror-perl or a description of error handling is data, not an error line.
import { fed, type KindCounter, type KindFacts, type TextSample } from './types.js';
import { escapeRegex, estimateNote, most, TopCounts } from './util.js';

const FIELD = /^([A-Za-z][A-Za-z0-9-]*):(?: |$)/;

class Deb822Counter implements KindCounter {
  private stanzas = 0;
  private inStanza = false;
  private packages = 0;
  private firstPackage: string | undefined;
  private readonly fields = new TopCounts();
  private readonly sections = new TopCounts();
  private readonly archs = new TopCounts();
  private readonly priorities = new TopCounts();

  line(l: string): void {
    const c = l.charCodeAt(0);
    // (a test of the first character: most lines of a stanza continue a description)
    if (c === 0x20 || c === 0x09) return;
    if (l.length === 0) {
      this.inStanza = false;
      return;
    }
    const m = FIELD.exec(l);
    if (!m) return;
    if (!this.inStanza) {
      this.stanzas++;
      this.inStanza = true;
    }
    const name = m[1];
    this.fields.add(name);
    const value = l.slice(name.length + 1).trim();
    if (name === 'Package') {
      this.packages++;
      this.firstPackage ??= value;
    }
    else if (name === 'Section') this.sections.add(value);
    else if (name === 'Architecture') this.archs.add(value);
    else if (name === 'Priority') this.priorities.add(value);
  }

  end(): KindFacts {
    const packages = this.packages > 0;
    return {
      kind: 'deb822',
      facts: {
        stanzas: this.stanzas,
        ...(packages ? { packages: this.packages } : {}),
        fields: this.fields.top(10),
        ...estimateNote('fields', this.fields),
        ...(this.sections.size ? { by_section: this.sections.top(8), ...estimateNote('by_section', this.sections) } : {}),
        ...(this.archs.size ? { by_architecture: this.archs.top(6) } : {}),
        ...(this.priorities.size ? { by_priority: this.priorities.top(6) } : {}),
      },
      errors: 'none',
      levels: false,
      // (a real package's stanza: a placeholder would find nothing)
      nextCommands:
        packages && this.firstPackage
          ? [['grep', 'ID', '^Package: ', '-c'], ['grep', 'ID', `^Package: ${escapeRegex(this.firstPackage)}$`, '-A', '20']]
          : [['grep', 'ID', '^[A-Z][A-Za-z-]*: ', '-m', '40']],
    };
  }
}

export function countDeb822(s: TextSample): KindCounter | null {
  const lines = s.lines.filter((l) => l.trim() !== '');
  if (!FIELD.test(lines[0] ?? '')) return null;
  if (!most(lines, (l) => FIELD.test(l) || l[0] === ' ' || l[0] === '\t', 0.95, 5)) return null;
  // the fields of a stanza are capitalized (Package, Version, Description): YAML's keys are mostly not
  const fieldNames = lines.map((l) => FIELD.exec(l)?.[1]).filter((n): n is string => !!n);
  if (!most(fieldNames, (n) => /^[A-Z]/.test(n), 0.9, 3)) return null;
  // a second stanza in the sample, or one known field of a package
  const stanzas = s.lines.some((l, i) => l.trim() === '' && FIELD.test(s.lines[i + 1] ?? ''));
  if (!stanzas && !fieldNames.some((n) => /^(Package|Source|Origin|Format)$/.test(n))) return null;
  return fed(new Deb822Counter(), s);
}
