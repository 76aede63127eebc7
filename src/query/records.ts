// A stored record as the value conditions are tested on: the line of a text result (as grep searches it), the
// parsed JSON of a json/jsonl record. Lines of a jsonl result that were not JSON are not records to query
// (as lro jq skips them); they are counted so the command can say so.
import { FormatError, type Header } from '../format/header.js';
import { invalidSet, searchBytes } from '../format/record-text.js';
import { parseRecord, type JsonValue } from './json-value.js';

/** Turns stored records of one result into values. */
export class RecordDecoder {
  private readonly invalid: Set<number> | undefined;
  /** jsonl lines that are not JSON, passed over so far; and the first of them. */
  skipped = 0;
  firstSkipped = 0;

  constructor(readonly header: Header) {
    this.invalid = invalidSet(header);
  }

  /** The record's value, or undefined for a line that is not JSON (skipped). */
  value(n: number, line: Buffer): JsonValue | undefined {
    const h = this.header;
    if (this.invalid?.has(n)) {
      if (this.skipped++ === 0) this.firstSkipped = n;
      return undefined;
    }
    const text = this.text(n, line);
    if (h.content_type === 'text' || h.content_type === 'binary') return text;
    try {
      return parseRecord(text);
    } catch {
      throw new FormatError(`record ${n} is not what a ${h.content_type} result holds`);
    }
  }

  /** The record's text: the line of a text result, the JSON text of a JSON record. */
  text(n: number, line: Buffer): string {
    try {
      return searchBytes(this.header, n, line, this.invalid).toString('utf8');
    } catch {
      throw new FormatError(`record ${n} is not what a ${this.header.content_type} result holds`);
    }
  }

  /** The one line that says which records were skipped (empty when none were). */
  skippedNote(): string {
    if (this.skipped === 0) return '';
    const s = this.skipped;
    return `lro: skipped ${s} record${s > 1 ? 's' : ''} that ${s > 1 ? 'are' : 'is'} not JSON (lro read ${this.header.id} --records ${this.firstSkipped} shows ${s > 1 ? 'the first' : 'it'})\n`;
  }
}
