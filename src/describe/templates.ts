// Log templates: lines grouped by their constant words, the variable parts (numbers, ids, addresses, hex,
// paths with digits) written <*>. The method is Drain (He, Zhu, Zheng, Lyu: "Drain: An Online Log Parsing
// Approach with Fixed Depth Tree", ICWS 2017), as the loghub parsers run it: lines are masked and split into
// words; a tree keyed by the word count and the first words leads to a few candidate groups; a line joins the
// most similar group if enough of its words agree, whose template then gets <*> where they differ. Same input,
// same templates in the same order; memory is bounded (groups, tree width, words per line).

/** One group of lines: its template, how many lines it has, and the first of them. */
export interface Template {
  template: string;
  count: number;
  /** The first line (record number) of the group. */
  line: number;
}

/** How far the miner goes before it stops making new groups. */
export interface MinerLimits {
  maxGroups: number;
}

const WILD = '<*>';
/** Words looked at per line (a longer line is grouped by its first words). */
const MAX_WORDS = 120;
/** Characters of a line looked at. */
const MAX_CHARS = 2000;
/** First fixed words that route a line in the tree (Drain's depth minus the root and length levels); 4 grouped the loghub logs best. */
const ROUTE_WORDS = 4;
/** Children per tree node; past it, new words share the <*> child (Drain's max_children). */
const MAX_CHILDREN = 100;
/**
 * Share of the words (those not variable in both) that must agree for a line to join a group: Drain's
 * similarity threshold. Lines are grouped whole, their headers (host, level, component) included, so it is
 * higher than the 0.4-0.5 used on bare messages: 0.8 grouped the eight loghub logs of the corpus best.
 */
const SIMILARITY = 0.8;

const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07/g;
// Variable parts: word parts that are numbers or hold one (counters, ids, times, sizes, addresses: they start
// with a digit, or hold 4 digits in a row, or are hex of 8+ characters), and uuids; `SOCKS5` or `ssh2` stay
// words. Delimiters inside a word (= : , ( ) [ ] / " ;) are kept, so `uid=0` becomes `uid=<*>`,
// `sshd[24200]:` becomes `sshd[<*>]:` and `10.1.2.3:50010` becomes `<*>`. Month and day names are variable too.
const UUID = /\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b/g;
/** <*> runs glued together (<*>:<*>, <*>.<*>) are one variable part. */
const GLUED = /<\*>(?:[.:\-_]?<\*>)+/g;
const NAMES = /\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec|Mon|Tue|Wed|Thu|Fri|Sat|Sun)\b/g;
/** A character of a word part: not whitespace, not a delimiter. */
const PART = String.raw`[^\s=:,()[\]{}<>"'|/;]`;
/**
 * A whole word part (from a delimiter to a delimiter) that is variable: it starts with a digit (after - + # .),
 * or holds 4 digits in a row, or a version (a digit, a dot, a digit: package_9-1.9-py3.whl), or is all hex, 8 characters or more, with a digit. One pattern, no callback per
 * part: half the time of testing each part that holds a digit.
 */
const VARIABLE_PART = new RegExp(String.raw`(?<!${PART})(?:(?=[-+#]?\.?\d)|(?=${PART}*?\d{4})|(?=${PART}*?\d\.\d)|(?=[0-9a-fA-F]{8,}(?!${PART}))(?=[0-9a-fA-F]*\d))${PART}+`, 'g');

// Whole-line regular expressions rather than a loop over characters: they run at native speed from the first
// line, and most offloads are small (a JIT-compiled loop pays off only after megabytes).
/** The words of a line with its variable parts masked. */
export function maskedWords(line: string): string[] {
  let s = line.length > MAX_CHARS ? line.slice(0, MAX_CHARS) : line;
  if (s.includes('\x1b')) s = s.replace(ANSI, '');
  if (s.length >= 36 && s.includes('-')) s = s.replace(UUID, WILD);
  s = s.replace(VARIABLE_PART, WILD);
  s = s.replace(NAMES, WILD);
  s = s.replace(GLUED, WILD);
  const words = s.split(/\s+/).filter(Boolean);
  return words.length > MAX_WORDS ? words.slice(0, MAX_WORDS) : words;
}

/** A template as text: its words, a run of variable words written as one <*> (a date and a time: <*>). */
function templateText(words: string[]): string {
  return words.filter((w, i) => w !== WILD || words[i - 1] !== WILD).join(' ');
}

interface Group {
  index: number;
  words: string[];
  count: number;
  line: number;
}

interface Node {
  children: Map<string, Node>;
  groups: Group[];
}

const newNode = (): Node => ({ children: new Map(), groups: [] });

/** Drain over lines fed in order; `result()` lists the groups, most lines first. */
export class TemplateMiner {
  private readonly root = new Map<number, Node>();
  private readonly groups: Group[] = [];
  /** Lines that fitted no group once the limit on groups was reached. */
  private other = 0;
  private otherLine = 0;
  lines = 0;

  constructor(private readonly limits: MinerLimits = { maxGroups: 5000 }) {}

  /** Adds line number n; returns its group's index (-1 when it went to the "other lines" bucket). */
  add(line: string, n: number): number {
    this.lines++;
    const words = maskedWords(line);
    const leaf = this.leaf(words);
    let best: Group | null = null;
    let bestSim = -1;
    let bestParams = -1;
    for (const g of leaf.groups) {
      let same = 0;
      let params = 0;
      let both = 0;
      for (let i = 0; i < words.length; i++) {
        const t = g.words[i];
        if (t === words[i]) {
          if (t === WILD) both++;
          else same++;
        } else if (t === WILD) params++;
      }
      // words that are variable in both (a masked time against a <*>) say nothing about the kind of line
      const sim = words.length === both ? 1 : same / (words.length - both);
      if (sim > bestSim || (sim === bestSim && params > bestParams)) {
        best = g;
        bestSim = sim;
        bestParams = params;
      }
    }
    if (best && bestSim >= SIMILARITY) {
      for (let i = 0; i < words.length; i++) if (best.words[i] !== words[i]) best.words[i] = WILD;
      best.count++;
      return best.index;
    }
    if (this.groups.length >= this.limits.maxGroups) {
      if (this.other++ === 0) this.otherLine = n;
      return -1;
    }
    const g: Group = { index: this.groups.length, words, count: 1, line: n };
    leaf.groups.push(g);
    this.groups.push(g);
    return this.groups.length - 1;
  }

  /**
   * The tree's leaf for these words: by word count, then by the first words that are not variable (digits and
   * overflow under <*>). Drain routes by the first words; whole lines begin with times and ids, which say
   * nothing, so those are passed over.
   */
  private leaf(words: string[]): Node {
    let node = this.root.get(words.length);
    if (!node) {
      node = newNode();
      this.root.set(words.length, node);
    }
    let routed = 0;
    for (let d = 0; d < words.length && routed < ROUTE_WORDS; d++) {
      let key = words[d];
      if (key === WILD) continue;
      routed++;
      if (!node.children.has(key)) {
        if (key.includes(WILD) || node.children.size >= MAX_CHILDREN) key = WILD;
      }
      let child = node.children.get(key);
      if (!child) {
        child = newNode();
        node.children.set(key, child);
      }
      node = child;
    }
    return node;
  }

  /** The groups, most lines first (ties: the earlier first line first); the other-lines bucket last. */
  result(): { templates: Template[]; otherLines: number; otherLine: number } {
    const templates = this.groups
      .map((g) => ({ template: templateText(g.words), count: g.count, line: g.line }))
      .sort((a, b) => b.count - a.count || a.line - b.line);
    return { templates, otherLines: this.other, otherLine: this.otherLine };
  }

  /** The template of group i as it stands now. */
  templateOf(i: number): string {
    return templateText(this.groups[i].words);
  }
}
