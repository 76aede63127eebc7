// Two logs (or any text) compared by the kinds of line they hold: one template miner (src/describe/templates.ts,
// as `lro count --by template` groups lines) is fed every line of A, then every line of B, and counts each
// group's lines on each side; a template with no line in A is new, one with no line in B is gone. B's lines
// with an error word (found by describe/error-lines.ts, as the descriptor finds them) are new when their group
// had no line in A: the same error with another time or id is not new. Memory: the miner's groups (bounded)
// and one record number per new error line.
import { ERROR_PATTERN } from '../describe/text-stats.js';
import { ErrorLines, MESSAGE_WORDS } from '../describe/error-lines.js';
import { TemplateMiner } from '../describe/templates.js';
import type { ResultFile } from '../format/reader.js';
import { IntList } from './hash.js';
import type { DiffItem, Section } from './model.js';
import { eachRecord } from './read.js';

/** Bytes of a line the miner looks at (as the descriptor's LineTemplates). */
const LINE_BYTES = 2048;
/** Groups the miner makes at most; lines past it are "other" (-1), and an error line there counts as new. */
const MAX_GROUPS = 5000;
/** Bytes of B's lines scanned for error words at a time. */
const BATCH_BYTES = 1 << 20;
/** Templates listed whose count changed (the ones that changed most). */
const MAX_CHANGED = 200;

/** Something that wants every line of both results too (their test results). */
export type LineVisitor = (side: number, n: number, text: string) => void;

export class TextCompare {
  private readonly miner = new TemplateMiner({ maxGroups: MAX_GROUPS });
  private readonly counts: [number[], number[]] = [[], []];
  private readonly firsts: [number[], number[]] = [[], []];
  readonly newErrors = new IntList();
  private readonly errors = new ErrorLines(ERROR_PATTERN, true, MESSAGE_WORDS);
  /** Reads one side (A before B: B's new error lines need A's counts). */
  pass(rf: ResultFile, side: number, visit?: LineVisitor): void {
    const batch = new ErrorBatch();
    eachRecord(rf, (n, bytes) => {
      const text = (bytes.length > LINE_BYTES ? bytes.subarray(0, LINE_BYTES) : bytes).toString('utf8');
      const g = this.miner.add(text, n);
      if (g >= 0) this.count(side, g, n);
      visit?.(side, n, text);
      if (side === 1) {
        batch.add(bytes.subarray(0, LINE_BYTES), n, g);
        if (batch.used >= BATCH_BYTES) this.scanErrors(batch);
      }
    });
    if (side === 1) this.scanErrors(batch);
  }

  private count(side: number, g: number, n: number): void {
    const c = this.counts[side];
    while (c.length <= g) {
      c.push(0);
      this.counts[1 - side].push(0);
      this.firsts[0].push(0);
      this.firsts[1].push(0);
    }
    if (c[g]++ === 0) this.firsts[side][g] = n;
  }

  private scanErrors(batch: ErrorBatch): void {
    if (batch.used === 0) return;
    this.errors.scan(batch.bytes(), (_start, _end, before) => {
      const g = batch.groups.at(before);
      if (g < 0 || (this.counts[0][g] ?? 0) === 0) this.newErrors.push(batch.records.at(before));
    });
    batch.clear();
  }

  /** The template sections: new in B, gone from A, counts changed most. */
  sections(): Section[] {
    const [ca, cb] = this.counts;
    const fresh: number[] = [];
    const gone: number[] = [];
    const changed: number[] = [];
    for (let g = 0; g < ca.length; g++) {
      if (ca[g] === 0 && cb[g] > 0) fresh.push(g);
      else if (cb[g] === 0 && ca[g] > 0) gone.push(g);
      else if (ca[g] !== cb[g]) changed.push(g);
    }
    fresh.sort((x, y) => cb[y] - cb[x] || this.firsts[1][x] - this.firsts[1][y]);
    gone.sort((x, y) => ca[y] - ca[x] || this.firsts[0][x] - this.firsts[0][y]);
    const change = (g: number) => Math.abs(cb[g] - ca[g]) / Math.max(ca[g], cb[g]);
    changed.sort((x, y) => Math.abs(cb[y] - ca[y]) - Math.abs(cb[x] - ca[x]) || change(y) - change(x) || x - y);
    return [
      this.templateSection('templates new in B', 'new', fresh),
      this.templateSection('templates gone from A', 'gone', gone),
      this.templateSection('template counts changed most', 'count', changed.slice(0, MAX_CHANGED)),
      this.errorSection(),
    ];
  }

  /** How many templates changed their count in all (the section lists the MAX_CHANGED that changed most). */
  changedTotal(): number {
    const [ca, cb] = this.counts;
    let n = 0;
    for (let g = 0; g < ca.length; g++) if (ca[g] > 0 && cb[g] > 0 && ca[g] !== cb[g]) n++;
    return n;
  }

  private templateSection(heading: string, change: 'new' | 'gone' | 'count', groups: number[]): Section {
    return {
      heading,
      size: groups.length,
      needs: () => ({}),
      item: (i): DiffItem => {
        const g = groups[i];
        const [fa, fb] = [this.firsts[0][g], this.firsts[1][g]];
        const count_a = this.counts[0][g];
        const count_b = this.counts[1][g];
        const template = this.miner.templateOf(g);
        return { type: 'template', change, template, count_a, count_b, ...(fa ? { first_a: fa } : {}), ...(fb ? { first_b: fb } : {}) };
      },
    };
  }

  private errorSection(): Section {
    const list = this.newErrors;
    return {
      heading: 'new error lines in B',
      size: list.length,
      needs: (i) => ({ b: list.at(i) }),
      item: (i, texts): DiffItem => ({ type: 'error_line', record_b: list.at(i), text: texts.b.get(list.at(i)) ?? '' }),
    };
  }
}

/** B's lines gathered for one scan of the error words: their bytes (each ending in \n), records and groups. */
class ErrorBatch {
  private buf = Buffer.allocUnsafe(BATCH_BYTES + LINE_BYTES + 1);
  used = 0;
  records = new IntList();
  groups = new IntList();

  add(line: Buffer, n: number, group: number): void {
    // a \n inside a line (a jsonl line kept as text never has one; a text line cannot) would split it
    this.used += line.copy(this.buf, this.used);
    this.buf[this.used++] = 0x0a;
    this.records.push(n);
    this.groups.push(group);
  }

  bytes(): Buffer {
    return this.buf.subarray(0, this.used);
  }

  clear(): void {
    this.used = 0;
    this.records = new IntList();
    this.groups = new IntList();
  }
}
