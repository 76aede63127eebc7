// Which records `lro where` and `lro count` see in a result: its records as stored, the rows of a column table
// (table.ts), or the entries of a JSON map (map.ts); with --stream, only those of one stream of an lro run result.
import type { ResultFile } from '../format/reader.js';
import { LroError } from '../errors.js';
import type { Header } from '../format/header.js';
import { streamsOf, type StreamFilter, type StreamName } from '../format/streams.js';
import { mapOf } from './map.js';
import { RecordDecoder } from './records.js';
import { tableOf } from './table.js';

/** The decoder of the records a query sees in the result (`stream`: --stream, the records of one stream). */
export function recordView(rf: ResultFile, stream?: string): RecordDecoder {
  return new RecordDecoder(rf.header, tableOf(rf), mapOf(rf), streamFilter(rf.header, stream));
}

/**
 * The stream filter of `--stream CHOICE` on a result (null for none or both); a result without stream
 * information cannot answer it, and says so rather than pretend every record came from stdout.
 */
export function streamFilter(h: Header, choice: string | undefined): StreamFilter | null {
  if (choice === undefined || choice === 'both') return null;
  const map = streamsOf(h);
  if (!map) {
    throw new LroError(`result ${h.id} does not record which stream its lines came from (only lro run keeps stderr apart): drop --stream`);
  }
  return { map, choice: choice as StreamName };
}
