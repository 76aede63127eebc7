// The header: line 1 of every result file, one JSON object describing the records that follow and how to
// rebuild the original input from them. Written once, at the end of a write; read by every subcommand.
import { rawMember } from './json-scan.js';
import { isUlid } from './naming.js';
import type { Encoding } from '../engines/tokenizer.js';

export const HEADER_TYPE = 'lro_header';
export const SCHEMA_VERSION = 'lro/1';

export type ContentType = 'text' | 'jsonl' | 'json' | 'binary';
export const CONTENT_TYPES: readonly ContentType[] = ['text', 'jsonl', 'json', 'binary'];
export type LineEnding = 'lf' | 'crlf';

/** What produced the data, when lro knows it (e.g. `lro run`). */
export interface Source {
  command: string;
  exit_code: number | null;
  signal?: string | null;
}

/**
 * Line 1 of a result file. The first block is CONTRACT section 2; the second says how to rebuild the original:
 * text/jsonl join records with `line_ending` (+ one more if `final_newline`); jsonl records listed in
 * `invalid_records` were not JSON and are stored as JSON strings; json puts records back in the root array
 * (`split: "elements"`), into `envelope` at `envelope_insert_at` (`split: "path"`, the array at `path`), or takes
 * the one record (`split: "none"`); binary records are base64 strings.
 */
export interface Header {
  type: typeof HEADER_TYPE;
  schema_version: typeof SCHEMA_VERSION;
  id: string;
  operation: string;
  query: string | null;
  count: number;
  timestamp: string;
  estimated_tokens: number;
  encoding: Encoding;
  detail: string;
  content_type: ContentType;
  bytes: number;
  sha256: string;
  ttl_seconds: number;
  expires_at: string;
  session: string | null;
  meta: Record<string, string>;
  source?: Source;
  line_ending?: LineEnding;
  final_newline?: boolean;
  invalid_records?: number[];
  split?: 'elements' | 'path' | 'none';
  path?: string[];
  envelope_insert_at?: number;
  /** The envelope as raw compact JSON (kept as bytes so big numbers keep their digits). */
  envelope?: Buffer;
}

/** A file that is not a readable lro result, or a header lro cannot use. */
export class FormatError extends Error {}

const ENVELOPE_MARK = '\u0000lro-envelope\u0000';

/** Serializes a header as one line of JSON (no newline), with the raw envelope spliced in unchanged. */
export function serializeHeader(h: Header): string {
  const { envelope, ...rest } = h;
  if (!envelope) return JSON.stringify(rest);
  const text = JSON.stringify({ ...rest, envelope: ENVELOPE_MARK });
  const mark = JSON.stringify(ENVELOPE_MARK);
  const at = text.lastIndexOf(mark);
  return text.slice(0, at) + envelope.toString('utf8') + text.slice(at + mark.length);
}

function fail(what: string): never {
  throw new FormatError(what);
}

/** Parses and checks a header line; throws FormatError saying what is wrong. */
export function parseHeader(line: Buffer): Header {
  let obj: Record<string, unknown>;
  try {
    obj = JSON.parse(line.toString('utf8')) as Record<string, unknown>;
  } catch {
    fail('line 1 is not a JSON header');
  }
  if (!obj || typeof obj !== 'object' || Array.isArray(obj) || obj.type !== HEADER_TYPE) fail('line 1 is not an lro header');
  if (obj.schema_version !== SCHEMA_VERSION) {
    fail(`written in format ${JSON.stringify(obj.schema_version)}, this lro reads ${SCHEMA_VERSION}; upgrade lro to read it`);
  }
  const str = (k: string) => (typeof obj[k] === 'string' ? (obj[k] as string) : fail(`header field ${k} is missing or not a string`));
  const num = (k: string) =>
    typeof obj[k] === 'number' && Number.isInteger(obj[k]) && (obj[k] as number) >= 0
      ? (obj[k] as number)
      : fail(`header field ${k} is missing or not a count`);
  if (!isUlid(str('id'))) fail('header id is not a ULID');
  str('operation');
  str('timestamp');
  str('expires_at');
  str('sha256');
  str('encoding');
  str('detail');
  num('count');
  num('bytes');
  num('estimated_tokens');
  num('ttl_seconds');
  if (!CONTENT_TYPES.includes(obj.content_type as ContentType)) fail('header content_type is unknown');
  const h = obj as unknown as Header;
  if (h.content_type === 'json' && h.split === 'path') {
    const raw = rawMember(line, 'envelope');
    if (!raw || typeof h.envelope_insert_at !== 'number') fail('header of a split JSON document lacks its envelope');
    h.envelope = raw;
  } else {
    delete h.envelope;
  }
  return h;
}
