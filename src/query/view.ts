// Which records `lro where` and `lro count` see in a result: its records as stored, the rows of a column table
// (table.ts), or the entries of a JSON map (map.ts); with --stream, only those of one stream of an lro run result.
import type { ResultFile } from '../format/reader.js';
import { streamFilter } from '../format/streams.js';
import { mapOf } from './map.js';
import { RecordDecoder } from './records.js';
import { tableOf } from './table.js';

/** The decoder of the records a query sees in the result (`stream`: --stream, the records of one stream). */
export function recordView(rf: ResultFile, stream?: string): RecordDecoder {
  return new RecordDecoder(rf.header, tableOf(rf), mapOf(rf), streamFilter(rf.header, stream));
}
