// YAML (kubectl get -o yaml, a Helm chart's values, CI configs, multi-document manifests): its documents, the keys
// at the top of each, and for Kubernetes objects their kinds, over the whole output. A key holding "error"
// (clouderrorreporting:, onError:) is data, not an error line. As the lines pass, they are parsed a record at a
// time (format/yaml-records.ts: a List's items, else the documents): when all of it is YAML, the facts say what
// the records are and how many, and where, count and jq read them as JSON records (query/view.ts), by field; when
// not (not YAML, too large, a line longer than the counters see), the facts say why and it stays text lines.
import { NotYaml, YamlRecordCutter, type YamlRecordsOf } from '../../format/yaml-records.js';
import { fed, KIND_LINE_CHARS, type KindCounter, type KindFacts, type TextSample } from './types.js';
import { estimateNote, most, TopCounts } from './util.js';
import type { Words } from '../commands.js';

/** A mapping key (plain or quoted), a list item, a comment, a document marker. */
const KEY = /^(\s*)(?:- +)?(?:[\w.$/@-]+|"[^"]*"|'[^']*'):(?:\s|$)/;
const ITEM = /^\s*((?:-(?: +|$))+)/;
const MARK = /^(---|\.\.\.)(\s|$)/;
/** A field name lro where and count take as it is (no quoting). */
const PLAIN_FIELD = /^[A-Za-z_][\w-]*$/;

/** What the parsed records have: their kinds (Kubernetes) and top-level fields with a scalar value. */
class RecordFacts {
  readonly kinds = new TopCounts();
  readonly scalars = new TopCounts();
  count = 0;
  /** The items of every list (sequence) inside the records, at any depth. */
  listItems = 0;
  /** The first record's field holding the largest mapping (a workflow's jobs, a compose file's services). */
  widest: string | null = null;

  add(v: unknown): void {
    this.count++;
    this.listItems += listItems(v);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return;
    if (this.count === 1) {
      let most = 0;
      for (const [k, x] of Object.entries(v)) {
        const members = x !== null && typeof x === 'object' && !Array.isArray(x) ? Object.keys(x).length : 0;
        if (members > most && PLAIN_FIELD.test(k)) [most, this.widest] = [members, k];
      }
    }
    for (const [k, x] of Object.entries(v)) if (x === null || typeof x !== 'object') this.scalars.add(k);
    const kind = (v as Record<string, unknown>).kind;
    if (typeof kind === 'string') this.kinds.add(kind);
  }
}

/** The items of the lists in a parsed value, at any depth. */
function listItems(v: unknown): number {
  let n = 0;
  const stack = [v];
  while (stack.length) {
    const x = stack.pop();
    if (x === null || typeof x !== 'object') continue;
    const members = Array.isArray(x) ? x : Object.values(x);
    if (Array.isArray(x)) n += x.length;
    for (const m of members) if (m !== null && typeof m === 'object') stack.push(m);
  }
  return n;
}

class YamlCounter implements KindCounter {
  private documents = 0;
  private content = false;
  private readonly top = new TopCounts();
  private readonly kinds = new TopCounts();
  private keys = 0;
  /** Lines that start a block list item (`- a`, `- key: v`, `-` alone), as many as their dashes (`- - a`: 2). */
  private itemLines = 0;
  /** The records as they parse (null once the output is found not to be records: `notRecords` says why). */
  private cutter: YamlRecordCutter | null;
  private notRecords = '';
  private readonly records: Record<YamlRecordsOf, RecordFacts> = { documents: new RecordFacts(), items: new RecordFacts() };

  constructor() {
    this.cutter = new YamlRecordCutter((_json, v, of) => this.records[of].add(v));
  }

  line(l: string): void {
    if (this.cutter) this.parse(l);
    if (MARK.test(l)) {
      if (l.startsWith('---')) this.content = false;
      return;
    }
    if (l.trim() === '' || l.trimStart().startsWith('#')) return;
    if (!this.content) {
      this.documents++;
      this.content = true;
    }
    const dashes = ITEM.exec(l);
    if (dashes) this.itemLines += dashes[1].split('-').length - 1;
    const m = KEY.exec(l);
    if (m) {
      this.keys++;
      if (m[1] === '' && !l.startsWith('-')) {
        const key = l.slice(0, l.indexOf(':')).replace(/^["']|["']$/g, '');
        this.top.add(key);
        if (key === 'kind') this.kinds.add(l.slice(5).trim());
      }
    }
  }

  /** One line to the records' cutter; a line the counters see cut, or one that is no YAML, ends it. */
  private parse(l: string): void {
    try {
      if (l.length >= KIND_LINE_CHARS) throw new NotYaml(`a line of over ${KIND_LINE_CHARS} characters`);
      this.cutter!.line(l);
    } catch (e) {
      if (!(e instanceof NotYaml)) throw e;
      this.notRecords = e.message;
      this.cutter = null;
    }
  }

  /** What the records are and how many, or why there are none. */
  private recordsFact(): { of: YamlRecordsOf; count: number; facts: RecordFacts } | null {
    if (!this.cutter) return null;
    try {
      const r = this.cutter.end();
      return { ...r, facts: this.records[r.of] };
    } catch (e) {
      if (!(e instanceof NotYaml)) throw e;
      this.notRecords = e.message;
      return null;
    }
  }

  end(): KindFacts {
    const r = this.recordsFact();
    // Kubernetes objects: their kinds (a List's items' own, when the records are its items)
    const kinds = r?.of === 'items' && r.facts.kinds.size ? r.facts.kinds : this.kinds;
    return {
      kind: 'yaml',
      facts: {
        documents: this.documents,
        ...(kinds.size ? { kinds: kinds.top(8), ...estimateNote('kinds', kinds) } : {}),
        top_level_keys: this.top.top(10),
        ...estimateNote('top_level_keys', this.top),
        keys: this.keys,
        // the items of every list, from the parsed records; else the lines that start a block item (a flow list's
        // [a, b] is not counted: the name says lines)
        ...(r ? { list_items: r.facts.listItems + (r.of === 'items' ? r.count : 0) } : { list_item_lines: this.itemLines }),
        ...(r
          ? { records: { of: r.of, count: r.count } }
          : { records: null, records_note: `the lines stay text, not records: ${this.notRecords || 'no YAML value'}` }),
      },
      errors: 'none',
      levels: false,
      nextCommands: r ? recordsNext(r.of, r.count, r.facts) : linesNext(this.kinds.size > 0),
    };
  }
}

/** The next commands on YAML read as records: by field, with lro's verbs. */
function recordsNext(of: YamlRecordsOf, count: number, facts: RecordFacts): Words[] {
  if (count === 1) return [['jq', 'ID', 'keys'], ...(facts.widest ? [['jq', 'ID', `.${facts.widest} | keys`]] : [])];
  // a field of scalars to count by: the kinds when several, else the first other plain one
  const scalar = Object.keys(facts.scalars.top(20)).find((k) => k !== 'apiVersion' && k !== 'kind' && PLAIN_FIELD.test(k));
  const field = facts.kinds.size > 1 ? 'kind' : scalar;
  const next: Words[] = field ? [['count', 'ID', '--by', field]] : [];
  if (of === 'items' && facts.kinds.top(1).Pod === count) next.push(['count', 'ID', '--by', 'status.phase']);
  if (facts.kinds.size > 0) next.push(['where', 'ID', `kind=${Object.keys(facts.kinds.top(1))[0]}`, '--fields', 'metadata.name']);
  else next.push(['jq', 'ID', '-c', 'keys', '--records', `1:${Math.min(count, 3)}`]);
  return next;
}

/** The next commands on YAML that stays text: its lines. */
function linesNext(kubernetes: boolean): Words[] {
  return kubernetes ? [['grep', 'ID', '^kind: ', '-c'], ['grep', 'ID', '^  name: ', '-m', '40']] : [['grep', 'ID', '^[^ #][^:]*:', '-m', '40'], ['read', 'ID', '--head', '40']];
}

export function countYaml(s: TextSample): KindCounter | null {
  const lines = s.lines.filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
  const first = lines[0] ?? '';
  if (!MARK.test(first) && !/^[\w"'.-][^:]*:(\s|$)/.test(first)) return null;
  // key lines, list items and block scalars' lines (indented under a key)
  if (!most(lines, (l) => KEY.test(l) || ITEM.test(l) || MARK.test(l) || /^\s+\S/.test(l), 0.95, 5)) return null;
  // most lines are keys or list items (a certificate's text is indented too, but mostly hex and prose)
  if (!most(lines, (l) => KEY.test(l) || ITEM.test(l), 0.6, 5)) return null;
  // nesting: keys that open a block (nothing after the colon) followed by a deeper line, twice at least;
  // and not "Key: value   Other: value" columns (stat, some status pages)
  let blocks = 0;
  lines.forEach((l, i) => {
    const m = /^(\s*)(?:- +)?[^:\s][^:]*:\s*$/.exec(l);
    const next = lines[i + 1];
    if (m && next && next.length - next.trimStart().length > m[1].length) blocks++;
  });
  if (blocks < 2 || lines.filter((l) => /\S\s{2,}[A-Za-z][\w ]*: /.test(l)).length > lines.length * 0.05) return null;
  return fed(new YamlCounter(), s);
}
