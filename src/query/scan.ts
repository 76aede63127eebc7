// The records of a result that could match, in order, read in large chunks: with needles, the lines in between
// candidates are counted (a newline count) and never decoded. Checks the file against its header as it goes,
// like every reader.
import { moreRecordsThanHeader, fewerRecordsThanHeader } from '../format/format-error.js';
import { checkEnd, recordChunks, type ResultFile } from '../format/reader.js';
import type { Range } from '../ranges.js';
import { countNewlines } from '../kernel/scan.js';
import type { Needles } from './prefilter.js';

/** A stored record: its number and its stored bytes (valid until the next one is asked for). */
export interface StoredRecord {
  n: number;
  line: Buffer;
}

/** The records in `range` that contain one of the needles (all of them when needles is null). */
export function* candidateRecords(rf: ResultFile, range: Range, needles: Needles): Generator<StoredRecord> {
  const h = rf.header;
  const last = Math.min(range.to, h.count);
  const toEnd = range.to >= h.count;
  if (range.from > last) {
    if (h.count === 0 && toEnd) checkEnd(rf, rf.recordsOffset);
    return;
  }
  let n = 0; // the last record passed
  let next = rf.recordsOffset;
  for (const data of recordChunks(rf, true)) {
    const base = next;
    next += data.length;
    let pos = 0;
    while (pos < data.length) {
      if (needles && n + 1 >= range.from) {
        let at = Infinity;
        for (const nd of needles) {
          const i = data.indexOf(nd, pos);
          if (i >= 0 && i < at) at = i;
        }
        const target = at === Infinity ? data.length : data.lastIndexOf(0x0a, at - 1) + 1;
        if (target > pos) {
          n += countNewlines(data, pos, target);
          pos = target;
          if (n >= last) {
            if (n > h.count) throw moreRecordsThanHeader(h.count);
            if (toEnd) checkEnd(rf, base + pos);
            return;
          }
          if (pos >= data.length) break;
        }
      }
      const nl = data.indexOf(0x0a, pos);
      const line = data.subarray(pos, nl);
      pos = nl + 1;
      n++;
      if (n >= range.from) yield { n, line };
      if (n >= last) {
        if (n > h.count) throw moreRecordsThanHeader(h.count);
        if (toEnd) checkEnd(rf, base + pos);
        return;
      }
    }
  }
  if (n < h.count && last === h.count) throw fewerRecordsThanHeader(h.count, n);
}
