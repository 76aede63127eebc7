// The statistics of a stored result (for `lro info`): those the offload kept in the header (its `stats`), or,
// for a result without them, computed again from its file: the same analyzers that watched the offload, fed the
// same bytes (rendered the same way when the text has terminal noise), give the same descriptor.
import { isNoisy, type Header } from '../format/header.js';
import { TerminalRenderer } from '../format/terminal.js';
import { checkRecordCount, originalContent, readRecords, type ResultFile } from '../format/reader.js';
import type { Stats } from './descriptor.js';
import { ANALYZED_RECORD_BYTES, RecordAnalyzer } from './record-stats.js';
import { RecordKindWatch } from './kinds/json-kinds.js';
import type { KindFacts } from './kinds/types.js';
import { SchemaNode } from './schema.js';
import { TextAnalyzer } from './text-stats.js';
import { binaryFormat, FORMAT_BYTES } from './binary-format.js';
import { maskSecrets, PREVIEW_MASK } from '../secrets/mask.js';

/**
 * The statistics of a stored result: kept in its header, else computed from its records. Kept ones spare reading
 * the records as records, but their lines are still counted (a few ms a MB): a file cut short or added to since
 * is reported as damaged, as when they are computed.
 */
export function statsOfResult(rf: ResultFile): Stats {
  const kept = keptStats(rf.header);
  if (!kept) return statsOfStored(rf);
  if (!rf.partial) checkRecordCount(rf); // a remote result's start: the object is whole in the bucket
  return kept;
}

/** The header's `stats` for the offload's statistics (null for binary: there is nothing to keep). */
export function statsForHeader(stats: Stats): string | null {
  return stats.kind === 'binary' ? null : JSON.stringify(stats);
}

/** The statistics kept in the header, or null when there are none or they are not what an offload writes. */
export function keptStats(h: Header): Stats | null {
  if (h.stats === undefined) return null;
  let s: Stats;
  try {
    s = JSON.parse(h.stats) as Stats;
  } catch {
    return null;
  }
  const list = (v: unknown) => Array.isArray(v);
  const obj = (v: unknown) => typeof v === 'object' && v !== null;
  // a kind's next commands as words (nextCommands); a result stored when they were lines (`next`) gets its
  // statistics computed again
  const nextAsWords = (k: KindFacts | undefined) => !(k && 'next' in k) && (!k?.nextCommands || k.nextCommands.every(list));
  if (h.content_type === 'text' && s?.kind === 'text' && obj(s.text) && list(s.text.head) && list(s.text.tail) && list(s.text.errors) && obj(s.text.templates) && nextAsWords(s.text.kind)) return s;
  if ((h.content_type === 'jsonl' || h.content_type === 'json') && s?.kind === 'records' && obj(s.records) && list(s.records.head) && list(s.records.tail) && list(s.records.topValues) && list(s.records.figures) && nextAsWords(s.records.kind)) {
    try {
      s.records.schema = SchemaNode.fromJSON(s.records.schema);
    } catch {
      return null;
    }
    return s;
  }
  return null;
}

/** The statistics computed from the result's records. */
export function statsOfStored(rf: ResultFile): Stats {
  const h = rf.header;
  if (h.content_type === 'binary') {
    const format = formatOf(rf);
    return format ? { kind: 'binary', format } : { kind: 'binary' };
  }
  if (h.content_type === 'text') {
    const text = new TextAnalyzer(PREVIEW_MASK);
    const renderer = isNoisy(h) ? new TerminalRenderer((b) => text.push(b)) : null;
    for (const piece of originalContent(rf)) {
      const b = Buffer.from(piece.buffer, piece.byteOffset, piece.length); // large pieces, each its own
      if (renderer) renderer.push(b);
      else text.push(b);
    }
    renderer?.end();
    return { kind: 'text', text: text.end() };
  }
  const records = new RecordAnalyzer(maskSecrets);
  const invalid = new Set(h.invalid_records ?? []);
  for (const r of readRecords(rf)) if (!invalid.has(r.n)) records.observe(r.line, r.n);
  return { kind: 'records', records: records.end() };
}

/** What a binary result's first bytes say it is (binary-format.ts). */
function formatOf(rf: ResultFile): string | null {
  const start: Uint8Array[] = [];
  let have = 0;
  for (const piece of originalContent(rf)) {
    start.push(piece.subarray(0, FORMAT_BYTES - have));
    have += start[start.length - 1].length;
    if (have >= FORMAT_BYTES) break;
  }
  return binaryFormat(Buffer.concat(start));
}

/**
 * The kind of a JSON result that is one document (a map, a tree, a test run) as its descriptor says: kept in the
 * header's statistics, or found again by the same watcher from the document (statistics larger than the header's
 * slot are not kept). Undefined for any other result, and for a document too large to be analysed.
 */
export function documentKind(rf: ResultFile): KindFacts | undefined {
  const h = rf.header;
  if (h.content_type !== 'json' || h.count !== 1) return undefined;
  const kept = keptStats(h);
  if (kept) return kept.kind === 'records' ? kept.records.kind : undefined;
  for (const r of readRecords(rf)) {
    if (r.line.length > ANALYZED_RECORD_BYTES) return undefined;
    const watch = new RecordKindWatch();
    try {
      watch.observe(JSON.parse(r.line.toString('utf8')), 1, r.line.length, 1);
    } catch {
      return undefined; // not JSON: the record is in the header's invalid list, and no kind was seen
    }
    return watch.end(1, false);
  }
  return undefined;
}
