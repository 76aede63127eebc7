// A stored record as the value conditions are tested on: the line of a text result (as grep searches it), the
// parsed JSON of a json/jsonl record. Lines of a jsonl result that were not JSON are not records to query
// (as lro jq skips them), and the command says so.
import { FormatError, type Header } from '../format/header.js';
import { displayBytes, invalidSet, searchBytes } from '../format/record-text.js';
import type { Range } from '../ranges.js';
import { parseRecord, type JsonValue } from './json-value.js';

/** Turns stored records of one result into values. */
export class RecordDecoder {
  private readonly invalid: Set<number> | undefined;

  constructor(readonly header: Header) {
    this.invalid = invalidSet(header);
  }

  /** The record's value, or undefined for a line that is not JSON (skipped). */
  value(n: number, line: Buffer): JsonValue | undefined {
    const h = this.header;
    if (this.invalid?.has(n)) return undefined;
    try {
      // a line as grep searches it; a JSON record as stored (JSON.parse takes the whitespace of a jsonl line)
      if (h.content_type === 'text' || h.content_type === 'binary') return searchBytes(h, n, line, this.invalid).toString('utf8');
      return parseRecord(this.text(n, line));
    } catch {
      throw new FormatError(`record ${n} is not what a ${h.content_type} result holds`);
    }
  }

  /** The record's text as lro read shows it: the line of a text result, the stored JSON of a JSON record. */
  text(n: number, line: Buffer): string {
    try {
      return displayBytes(this.header, n, line, this.invalid).toString('utf8');
    } catch {
      throw new FormatError(`record ${n} is not what a ${this.header.content_type} result holds`);
    }
  }

  /**
   * The one line that says which records of the range were passed over as not JSON (empty when none were), as
   * lro jq says it; from the header's list, so records the prefilter never decoded count too.
   */
  skippedNote(range: Range): string {
    const skipped = (this.header.invalid_records ?? []).filter((n) => n >= range.from && n <= range.to);
    const s = skipped.length;
    if (s === 0) return '';
    return `lro: skipped ${s} record${s > 1 ? 's' : ''} that ${s > 1 ? 'are' : 'is'} not JSON (lro read ${this.header.id} --records ${skipped[0]} shows ${s > 1 ? 'the first' : 'it'})\n`;
  }
}
