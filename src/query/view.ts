// Which records `lro where` and `lro count` see in a result: its records as stored, the rows of a column table
// (table.ts), or the entries of a JSON map (map.ts).
import type { ResultFile } from '../format/reader.js';
import { mapOf } from './map.js';
import { RecordDecoder } from './records.js';
import { tableOf } from './table.js';

/** The decoder of the records a query sees in the result. */
export function recordView(rf: ResultFile): RecordDecoder {
  return new RecordDecoder(rf.header, tableOf(rf), mapOf(rf));
}
