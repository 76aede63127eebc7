// Records back to the original bytes, for every content type. Used by `lro cat` (via the reader) and when an
// offload changes content type midway and replays what it already wrote.
import { decodeBinaryRecord } from './content-binary.js';
import { decodeJsonDocument } from './content-json.js';
import { decodeJsonlRecord } from './content-jsonl.js';
import { decodeTextRecord } from './content-text.js';
import { FormatError, type Layout } from './header.js';
import { isJsonText } from './json-scan.js';

/** One record: its 1-based number and its JSON text (a view valid until the consumer moves on). */
export interface RecordLine {
  n: number;
  line: Buffer;
}

/** Cuts a stream of record bytes ("<json>\n" each) into records numbered from `first`. */
export function* splitRecords(chunks: Iterable<Buffer>, first = 1): Generator<RecordLine> {
  let n = first;
  let carry: Buffer | null = null;
  for (const chunk of chunks) {
    const data: Buffer = carry ? Buffer.concat([carry, chunk]) : chunk;
    carry = null;
    let start = 0;
    for (let nl = data.indexOf(0x0a); nl >= 0; nl = data.indexOf(0x0a, start)) {
      yield { n: n++, line: data.subarray(start, nl) };
      start = nl + 1;
    }
    if (start < data.length) carry = Buffer.from(data.subarray(start));
  }
  if (carry) throw new FormatError(`record ${n} has no end of line`);
}

const fail = (): never => {
  throw new Error('not a record of its content type');
};

/** The original content rebuilt from records, given the layout fields of their header. */
export function* decodeRecords(layout: Layout, records: Iterable<RecordLine>): Generator<Uint8Array> {
  const type = layout.content_type;
  const checked = (n: number, f: () => Buffer): Buffer => {
    try {
      return f();
    } catch (e) {
      if (e instanceof FormatError) throw e;
      throw new FormatError(`record ${n} is not what a ${type} result holds`);
    }
  };
  if (type === 'json') {
    yield* decodeJsonDocument(
      layout,
      (function* () {
        // each record must be one JSON value, or the document rebuilt from them would not be the original
        for (const r of records) yield checked(r.n, () => (isJsonText(r.line) ? r.line : fail()));
      })(),
    );
    return;
  }
  if (type === 'binary') {
    for (const r of records) yield checked(r.n, () => decodeBinaryRecord(r.line));
    return;
  }
  const eol = Buffer.from(layout.line_ending === 'crlf' ? '\r\n' : '\n');
  const invalid = new Set(layout.invalid_records ?? []);
  const jsonl = type === 'jsonl';
  for (const r of records) {
    yield checked(r.n, () => (jsonl ? decodeJsonlRecord(r.line, invalid.has(r.n)) : decodeTextRecord(r.line)));
    if (r.n < layout.count || layout.final_newline) yield eol;
  }
}
