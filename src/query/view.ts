// Which records `lro where` and `lro count` see in a result: its records as stored, the rows of a column table
// (table.ts), the entries of a JSON map (map.ts), or the documents of a YAML result (yamlOf, below); with
// --stream, only those of one stream of an lro run result.
import type { ResultFile } from '../format/reader.js';
import { readRecords } from '../format/reader.js';
import { LroError } from '../errors.js';
import type { Header } from '../format/header.js';
import { displayBytes } from '../format/record-text.js';
import { streamsOf, type StreamFilter, type StreamName } from '../format/streams.js';
import { NotYaml, YamlRecordCutter, type YamlRecordsOf } from '../format/yaml-records.js';
import type { Range } from '../ranges.js';
import { mapOf } from './map.js';
import { perResult, RecordDecoder, type MapRecords } from './records.js';
import type { StoredRecord } from './scan.js';
import { tableOf } from './table.js';

/** The decoder of the records a query sees in the result (`stream`: --stream, the records of one stream). */
export function recordView(rf: ResultFile, stream?: string): RecordDecoder {
  return new RecordDecoder(rf.header, tableOf(rf), mapOf(rf) ?? yamlOf(rf), streamFilter(rf.header, stream));
}

/** The content type a query reads a result's records as: a YAML result's (yamlOf) are JSON values, not lines. */
export function queryContentType(rf: ResultFile): string {
  return rf.header.content_type === 'text' && yamlOf(rf) ? 'json' : rf.header.content_type;
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

/**
 * A YAML result's records: its documents, or the items of its one List, each as JSON (format/yaml-records.ts), as
 * the descriptor found them when it parsed the output (its kind's `records`); null for any other result, and for a
 * YAML output the descriptor did not take as records (not YAML, too large: it stays text).
 */
export const yamlOf = perResult((rf: ResultFile): MapRecords | null => {
  const h = rf.header;
  if (h.content_type !== 'text' || h.stats === undefined || (h.invalid_records?.length ?? 0) > 0) return null;
  let records: { of?: unknown; count?: unknown } | undefined;
  try {
    const kind = (JSON.parse(h.stats) as { text?: { kind?: { kind?: string; facts?: { records?: typeof records } } } }).text?.kind;
    records = kind?.kind === 'yaml' ? kind.facts?.records : undefined;
  } catch {
    return null;
  }
  const of = records?.of;
  if ((of !== 'documents' && of !== 'items') || typeof records?.count !== 'number') return null;
  const what = of === 'items' ? `the ${records.count} items of the YAML's List` : `the YAML's ${records.count} document${records.count === 1 ? '' : 's'}`;
  return { at: '.', entries: records.count, inputs: `${what}, each as JSON`, records: (file, range) => yamlRecords(file, of, range) };
});

/** The YAML records of the range, parsed from the stored lines one record at a time. */
function* yamlRecords(rf: ResultFile, of: YamlRecordsOf, range: Range): Generator<StoredRecord> {
  const ready: StoredRecord[] = [];
  let n = 0;
  const cutter = new YamlRecordCutter((json) => {
    if (++n >= range.from && n <= range.to) ready.push({ n, line: Buffer.from(json) });
  }, of);
  const h = rf.header;
  try {
    for (const r of readRecords(rf, 1, h.count)) {
      cutter.line(displayBytes(h, r.n, r.line).toString('utf8'));
      yield* ready.splice(0);
      if (n >= range.to) return;
    }
    cutter.end();
  } catch (e) {
    if (e instanceof NotYaml) throw new LroError(`result ${h.id}: its YAML no longer reads as the descriptor found it (${e.message})`);
    throw e;
  }
  yield* ready.splice(0);
}
