// YAML as records, the way a JSON result's are: the documents of a `---` stream, or the items of a List (one
// document whose top holds `items:`, as `kubectl get -o yaml` prints), each as its JSON text. A YAML result is
// stored as text (its lines: `lro cat` gives its bytes back, grep and read see its lines); this module alone says
// how those lines become records, for the descriptor (which parses them once as the output passes: are they YAML,
// how many records, what fields) and for where, count and jq (which read them as records).
//
// Lines are cut into records as they come, and each record is parsed alone (the `yaml` package, loaded the first
// time one is): memory holds one record, at most RECORD_MAX bytes. Past TOTAL_MAX bytes, or a record past
// RECORD_MAX, or anything that is not YAML (a syntax error, a duplicate key, an alias bomb), the result stays text.
import { createRequire } from 'node:module';

/**
 * Bytes of YAML parsed at most: a larger output stays text (its lines), and the descriptor says so. The yaml
 * package parses about 1.5 MB a second here (11 MB of kubectl get pods -o yaml: 7 s, where JSON.parse of the same
 * takes 0.2 s), and every where, count and jq parses the records again: 2 MB is a second or so, each time.
 */
export const YAML_TOTAL_MAX = 2 << 20;
/** Bytes of one record (a document, an item of a List) at most. */
export const YAML_RECORD_MAX = 1 << 20;

/** What a YAML output's records are: its documents, or the items of its one List. */
export type YamlRecordsOf = 'documents' | 'items';

type YamlModule = typeof import('yaml');
let yamlModule: YamlModule | null = null;
/** The yaml package, required when a record is first parsed: no other input pays for loading it. */
const yaml = (): YamlModule => (yamlModule ??= createRequire(import.meta.url)('yaml') as YamlModule);

/** A document marker line (`---`, `--- !tag`, `...`). */
const START = /^---(?:\s|$)/;
const END = /^\.\.\.(?:\s|$)/;
/** A line that holds nothing (blank, or a comment). */
const EMPTY = /^\s*(?:#.*)?$/;

/** Why the lines are not records, in words for the descriptor. */
export class NotYaml extends Error {}

/**
 * Cuts YAML lines into records and parses each: `line()` every line (without its terminator), then `end()`.
 * `mode` is what the records are; the descriptor's pass leaves it out and it is found from the lines: the items of
 * the first document when its top holds `items:` and no second document follows, else the documents (`mode` then
 * says which, at the end). A failure throws NotYaml.
 */
export class YamlRecordCutter {
  private lines: string[] = [];
  private bytes = 0;
  private total = 0;
  /** The current document's number (1-based), and whether it holds anything yet. */
  private doc = 1;
  private content = false;
  /** Inside the first document's `items:` block: the indentation of its `- ` lines (-1: not yet seen). */
  private inItems = false;
  private itemIndent = -1;
  /** The first document's lines that are not in its items (its envelope), checked as YAML too. */
  private envelope: string[] = [];
  private items = 0;
  /** Records parsed in documents mode, kept back (as counts only) until the mode is known. */
  private documents = 0;
  private firstItems: number | null = null;

  constructor(
    /** Each record: its JSON text and value, and (the descriptor's pass, `mode` not given) what it is. */
    private readonly emit: (json: string, value: unknown, of: YamlRecordsOf) => void,
    public mode?: YamlRecordsOf,
  ) {}

  line(text: string): void {
    this.total += text.length + 1;
    if (this.total > YAML_TOTAL_MAX) throw new NotYaml(`over ${YAML_TOTAL_MAX >> 20} MB of YAML, too much to parse again at each query`);
    if (START.test(text)) {
      if (this.content) this.endDocument();
      else {
        // what came before holds no value (comments, an empty document): left out
        this.lines = [];
        this.bytes = 0;
      }
      this.push(text);
      return;
    }
    if (END.test(text)) {
      this.push(text);
      this.endDocument();
      return;
    }
    if (!EMPTY.test(text)) this.content = true;
    if (this.doc === 1 && this.mode !== 'documents' && this.itemsLine(text)) return;
    this.push(text);
  }

  /** The first document's lines while in its `items:`: each item a record. True when the line was taken. */
  private itemsLine(text: string): boolean {
    if (!this.inItems) {
      if (!/^items:\s*$/.test(text)) return false;
      // the lines so far are the envelope's
      this.envelope.push(...this.lines, text);
      this.lines = [];
      this.bytes = 0;
      this.inItems = true;
      this.itemIndent = -1;
      return true;
    }
    const indent = text.length - text.trimStart().length;
    if (EMPTY.test(text)) {
      if (this.itemIndent >= 0) this.push(text);
      return this.itemIndent >= 0;
    }
    if (this.itemIndent < 0 && text.slice(indent).startsWith('- ') && (indent === 0 || /^\s+-\s/.test(text))) this.itemIndent = indent;
    if (this.itemIndent >= 0 && indent === this.itemIndent && text.slice(indent).startsWith('-') && /^-(?:\s|$)/.test(text.slice(indent))) {
      this.endItem();
      this.push(text);
      return true;
    }
    if (this.itemIndent >= 0 && indent > this.itemIndent) {
      this.push(text);
      return true;
    }
    // the items end: back to the envelope
    this.endItem();
    this.inItems = false;
    return false;
  }

  private push(text: string): void {
    this.bytes += text.length + 1;
    if (this.bytes > YAML_RECORD_MAX) throw new NotYaml(`a record over ${YAML_RECORD_MAX >> 20} MB`);
    this.lines.push(text);
  }

  /** The lines gathered as one item of the List: parsed, emitted. */
  private endItem(): void {
    if (this.lines.length === 0) return;
    if (this.inItems && this.itemIndent >= 0) {
      const v = parse(this.lines.join('\n'));
      if (!Array.isArray(v) || v.length !== 1) throw new NotYaml('an item of items: is not one value');
      this.items++;
      if (this.mode !== 'documents') this.emit(JSON.stringify(v[0]), v[0], 'items');
    } else this.envelope.push(...this.lines);
    this.lines = [];
    this.bytes = 0;
  }

  private endDocument(): void {
    if (this.doc === 1 && this.mode !== 'documents') {
      this.endItem();
      this.envelope.push(...this.lines);
      this.lines = [];
      this.bytes = 0;
      if (this.content) {
        // the envelope (the List without its items) is checked as YAML; it is no record of items
        const v = parse(this.envelope.join('\n'));
        const list = this.items > 0 || (isObject(v) && Array.isArray(v.items));
        if (this.mode === 'items' && !list) throw new NotYaml('the first document has no items');
        if (list) this.firstItems = this.items;
        else {
          this.documents++;
          if (this.mode === undefined) this.emit(JSON.stringify(v ?? null), v, 'documents');
        }
      }
      this.envelope = [];
    } else {
      if (this.content) {
        const v = parse(this.lines.join('\n'));
        this.documents++;
        if (this.mode !== 'items') this.emit(JSON.stringify(v ?? null), v, 'documents');
      }
      this.lines = [];
      this.bytes = 0;
    }
    if (this.content) this.doc++;
    this.content = false;
  }

  /** Ends the lines; returns what the records are and how many. */
  end(): { of: YamlRecordsOf; count: number } {
    this.endDocument();
    if (this.mode === 'items') return { of: 'items', count: this.items };
    if (this.mode === 'documents') return { of: 'documents', count: this.documents };
    // found from the lines: one List alone is its items, else every document (the List among them)
    if (this.firstItems !== null && this.documents === 0) return { of: 'items', count: this.firstItems };
    return { of: 'documents', count: this.documents + (this.firstItems !== null ? 1 : 0) };
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** One record's YAML as a value; NotYaml when it is not YAML. */
function parse(text: string): unknown {
  const y = yaml();
  let doc;
  try {
    doc = y.parseDocument(text, { logLevel: 'silent', merge: true, prettyErrors: false });
  } catch (e) {
    throw new NotYaml((e as Error).message.split('\n')[0]);
  }
  if (doc.errors.length > 0) throw new NotYaml(doc.errors[0].message.split('\n')[0]);
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    throw new NotYaml((e as Error).message.split('\n')[0]);
  }
}
