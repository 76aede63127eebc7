// `lro diff A B`: what changed between two stored results, by kind. The same content (sha256) is equal at
// once. Else: two JSON listings are compared record by record (records.ts), two go test -json outputs test by
// test (tests.ts), anything else line by line through templates and error lines (text.ts), with the test
// results of a runner's text output besides; binary results only by size. Each side is streamed, A then B; the
// texts of the records the printed items need are read again at the end (itemsAt), a window at a time.
import { UsageError } from '../errors.js';
import { commandOf } from '../store/select.js';
import type { ResultFile } from '../format/reader.js';
import { hash53, hashBytes } from './hash.js';
import { linesSection, unifiedOps } from './lines.js';
import { emptyCounts, type Comparison, type DiffItem, type DiffKind, type DiffSide, type DiffSummary, type Section } from './model.js';
import { eachRecord, fetchTexts, firstDifference, isJsonResult, sampleValues } from './read.js';
import { chooseKey, keyLabel, parseKey, RecordCompare, type RowText } from './records.js';
import { tableOf, type TableRecords } from '../query/table.js';
import { parseColumnOrPath, type FieldPath } from '../query/path.js';
import { toJson, type JsonValue } from '../values/json-value.js';
import { originalContent, readRecords } from '../format/reader.js';
import { isJunitStart, JUNIT_SNIFF_BYTES, JunitReport } from '../describe/kinds/test-junit.js';
import { damaged } from '../store/resolve.js';
import { displayBytes, invalidSet } from '../format/record-text.js';
import { TestCompare } from './tests.js';
import { TextCompare } from './text.js';
import { isGoTestEvent } from './test-results.js';

export interface CompareOptions {
  /** Match JSON records by this field (a jq path); default: an id-like field found in the data. */
  key?: string;
  /** Add a unified diff of the lines (bounded). */
  lines?: boolean;
}

/** A go test -json result event holds one of these (its Action). */
const RESULT_WORDS = ['"pass"', '"fail"', '"skip"'].map((w) => Buffer.from(w));
/** A go test -json output event that may be a failure's message (`cart_test.go:12: …`) holds this. */
const GO_MESSAGE_WORD = Buffer.from('_test.go:');

/** Records looked at to tell a go test -json output and to find the key field. */
const SAMPLE = 200;

function side(rf: ResultFile): DiffSide {
  const h = rf.header;
  return { id: h.id, command: commandOf(h), content_type: h.content_type, records: h.count, bytes: h.bytes, timestamp: h.timestamp };
}

/**
 * Compares two opened results: the summary and the sections of items (whose texts itemsAt reads). Two tables
 * (ps, lsof, CSV: the descriptor's kind) are compared row by row when a key is given or found (PID, NAME, a
 * column of unique names): a row whose other cells changed is changed, not gone and new.
 */
export function compareResults(a: ResultFile, b: ResultFile, o: CompareOptions = {}): Comparison {
  const summary: DiffSummary = { type: 'summary', equal: false, kind: 'text', a: side(a), b: side(b), counts: emptyCounts() };
  const equal = a.header.sha256 === b.header.sha256 && a.header.bytes === b.header.bytes;
  const binary = a.header.content_type === 'binary' || b.header.content_type === 'binary';
  // two tables (ps, lsof, CSV…) are compared row by row, by a column
  const tables = !binary && !isJsonResult(a) && !isJsonResult(b) ? ([tableOf(a), tableOf(b)] as const) : null;
  const both = tables?.[0] && tables[1] ? ([tables[0], tables[1]] as const) : null;
  const columns = both ? both[0].names.filter((n) => both[1].names.includes(n)) : [];
  const key = o.key === undefined ? undefined : both ? parseColumnOrPath(o.key, '--key', columns) : parseKey(o.key);
  const text = [a, b].find((rf) => !isJsonResult(rf));
  if (key && text && !both) {
    const which = text === a ? 'A' : 'B';
    const table = tables ? ', not a table' : '';
    throw new UsageError(`--key matches JSON records or the rows of two tables, and ${which} (${text.header.id}) is ${text.header.content_type}${table}: leave --key out`);
  }
  if (both && key) {
    const step = key.steps[0];
    if (key.steps.length !== 1 || step.kind !== 'key' || !columns.includes(step.key)) {
      throw new UsageError(`--key ${o.key}: the rows of both tables have no such column; they have ${columns.map((c) => `'${c}'`).join(', ')}`);
    }
  }
  if (binary) summary.kind = 'binary';
  if (equal || binary) return { summary: { ...summary, equal }, sections: [] };
  if (both) {
    const rowText = both.map((t): RowText => (n, line) => {
      if (n <= t.headerLine) return undefined;
      const v = t.row(line);
      return v === undefined ? undefined : toJson(v);
    }) as [RowText, RowText];
    const k = key ?? chooseKey(sampleRows(a, both[0]), sampleRows(b, both[1]), columns);
    if (k) {
      const sections = recordSections(a, b, summary, k, rowText);
      summary.rows = true;
      if (o.lines) sections.push(...lineSections(a, b, summary));
      return { summary, sections };
    }
  }
  const sections = kindSections(a, b, summary, key === undefined ? undefined : key);
  if (o.lines) sections.push(...lineSections(a, b, summary));
  return { summary, sections };
}

/** The first rows of a table as objects (to choose a key from). */
function sampleRows(rf: ResultFile, t: TableRecords): JsonValue[] {
  const out: JsonValue[] = [];
  const invalid = invalidSet(rf.header);
  return damaged(rf, () => {
    for (const r of readRecords(rf, t.headerLine + 1, t.headerLine + SAMPLE)) {
      const v = t.row(displayBytes(rf.header, r.n, r.line, invalid).toString('utf8'));
      if (v !== undefined) out.push(v);
    }
    return out;
  });
}

/** Records matched by a key (or by their content: `key` null), compared; fills the summary's kind and counts. */
function recordSections(a: ResultFile, b: ResultFile, summary: DiffSummary, key: FieldPath | null, rows?: [RowText, RowText]): Section[] {
  summary.kind = 'records';
  summary.key = keyLabel(key);
  const records = new RecordCompare(key, rows);
  records.pass(a, 0);
  records.pass(b, 1);
  records.gather(a, b);
  const c = summary.counts;
  c.records_changed = records.changedB.length;
  c.records_added = records.added.length;
  c.records_removed = records.removed.length;
  const [ra, rb] = records.repeats;
  if (ra + rb > 0) summary.key_repeats = { a: ra, b: rb };
  return records.sections();
}

type Key = ReturnType<typeof parseKey>;

/** The sections of the kind the two results call for; fills the summary's kind and counts. */
function kindSections(a: ResultFile, b: ResultFile, summary: DiffSummary, key: Key | undefined): Section[] {
  const json = isJsonResult(a) && isJsonResult(b);
  const [sa, sb] = json ? [sampleValues(a, SAMPLE), sampleValues(b, SAMPLE)] : [[], []];
  if (json && key === undefined && (sa.some(isGoTestEvent) || sb.some(isGoTestEvent))) {
    summary.kind = 'tests';
    const tests = new TestCompare();
    for (const [s, rf] of [a, b].entries()) {
      eachRecord(rf, (n, bytes, isJson) => {
        // most events are output lines: only a record that can be a result, or a failure's message, is decoded
        if (s === 1 && isJson && bytes.includes(GO_MESSAGE_WORD)) tests.output(s, n, bytes.toString('utf8'));
        if (!RESULT_WORDS.some((w) => bytes.includes(w))) return;
        const r = TestCompare.fromRecord(bytes.toString('utf8'), isJson);
        if (r) tests.add(s, n, r);
      });
    }
    return testSections(tests, summary, [true, true]);
  }
  if (json) return recordSections(a, b, summary, key ?? chooseKey(sa, sb));
  return textSections(a, b, summary);
}

function textSections(a: ResultFile, b: ResultFile, summary: DiffSummary): Section[] {
  if (isJunit(a) && isJunit(b)) return junitSections(a, b, summary);
  const text = new TextCompare();
  const tests = new TestCompare();
  const visit = (s: number, n: number, line: string) => {
    const r = tests.lineResult(s, line, n);
    if (r) tests.add(s, n, r);
    else tests.line(s, n, line);
  };
  text.pass(a, 0, visit);
  text.pass(b, 1, visit);
  // two runs of a test suite: the tests are the answer, and nothing else by default (their tracebacks'
  // templates and error lines are the failures told again, at length)
  if (tests.found) {
    summary.tests_only = true;
    return testSections(tests, summary, [false, false]);
  }
  const templates = text.sections();
  const c = summary.counts;
  c.templates_new = templates[0].size;
  c.templates_gone = templates[1].size;
  c.templates_changed = text.changedTotal();
  c.error_lines_new = templates[3].size;
  return templates;
}

/** Whether a result is a JUnit report, told from its original's first bytes as offload tells it. */
function isJunit(rf: ResultFile): boolean {
  const head: Buffer[] = [];
  let size = 0;
  damaged(rf, () => {
    for (const piece of originalContent(rf)) {
      head.push(Buffer.from(piece));
      size += piece.length;
      if (size >= JUNIT_SNIFF_BYTES) break;
    }
  });
  return isJunitStart(Buffer.concat(head).toString('utf8', 0, JUNIT_SNIFF_BYTES));
}

/** Two JUnit reports, each read tag by tag (a report's testcases need not have lines of their own). */
function junitSections(a: ResultFile, b: ResultFile, summary: DiffSummary): Section[] {
  const tests = new TestCompare();
  for (const [s, rf] of [a, b].entries()) {
    const report = new JunitReport((t) => tests.junitTest(s, t));
    damaged(rf, () => {
      for (const piece of originalContent(rf)) report.push(piece);
    });
    report.end();
  }
  summary.tests_only = true;
  return testSections(tests, summary, [false, false]);
}

function testSections(tests: TestCompare, summary: DiffSummary, json: [boolean, boolean]): Section[] {
  const n = tests.counts();
  const c = summary.counts;
  c.tests_newly_failing = n.newly_failing;
  c.tests_newly_passing = n.newly_passing;
  c.tests_still_failing = n.still_failing;
  summary.tests = { a: tests.tally[0], b: tests.tally[1] };
  return tests.sections(json);
}

/** --lines: the unified diff, from a hash of each line of each side (one more pass of each). */
function lineSections(a: ResultFile, b: ResultFile, summary: DiffSummary): Section[] {
  const hashes = [a, b].map((rf) => {
    // sized by the header's count: no growing (a copy at twice the size) at the peak of memory
    const list = new Float64Array(rf.header.count);
    eachRecord(rf, (n, bytes) => {
      hashBytes(bytes);
      list[n - 1] = hash53();
    });
    return list;
  });
  const u = unifiedOps(hashes[0], hashes[1]);
  if ('note' in u) {
    summary.lines_note = `${u.note}: the unified diff is left out`;
    return [];
  }
  summary.counts.diff_lines = u.ops.length;
  return [linesSection(u.ops, (na, nb, before, size) => firstDifference(a, na, b, nb, before, size))];
}

/** The total number of items of a comparison. */
export function itemCount(c: Comparison): number {
  return c.sections.reduce((n, s) => n + s.size, 0);
}

/** An item of a comparison, with the index of its section. */
export type PlacedItem = { section: number; item: DiffItem };

/** Items read back at first, then twice as many each time, up to this many. */
const FIRST_WINDOW = 64;
const MAX_WINDOW = 4096;

/**
 * The items from `from` (a global index) to the last, in order, their texts read a window at a time as they are
 * taken: a consumer that stops after a few has read one small window, however many items there are.
 */
export function* itemsFrom(c: Comparison, a: ResultFile, b: ResultFile, from: number): Generator<PlacedItem> {
  const total = itemCount(c);
  let window = FIRST_WINDOW;
  for (let at = from; at < total; window = Math.min(window * 2, MAX_WINDOW)) {
    const to = Math.min(total, at + window);
    yield* itemsAt(c, a, b, at, to);
    at = to;
  }
}

/** Items from..to (global indexes, to excluded), each with the index of its section; their texts read. */
export function itemsAt(c: Comparison, a: ResultFile, b: ResultFile, from: number, to: number): PlacedItem[] {
  const picked: { section: number; i: number }[] = [];
  let base = 0;
  for (const [k, s] of c.sections.entries()) {
    for (let i = Math.max(0, from - base); i < s.size && base + i < to; i++) picked.push({ section: k, i });
    base += s.size;
  }
  const wantA: number[] = [];
  const wantB: number[] = [];
  for (const p of picked) {
    const need = c.sections[p.section].needs(p.i);
    if (need.a) wantA.push(...[need.a].flat());
    if (need.b) wantB.push(...[need.b].flat());
  }
  const texts = { a: fetchTexts(a, wantA), b: fetchTexts(b, wantB) };

  return picked.map((p) => ({ section: p.section, item: c.sections[p.section].item(p.i, texts) }));
}

export type { DiffKind };
