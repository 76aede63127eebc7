// The header: line 1 of every result file, one JSON object describing the records that follow and how to
// rebuild the original input from them. Written once, at the end of a write; read by every subcommand.
import { isUtf8 } from 'node:buffer';
import { blocksProblem, type Blocks } from './blocks.js';
import { FormatError } from './format-error.js';
import { rawMember } from './json-scan.js';
import { isUlid } from './naming.js';
import { checkStreamFields } from './streams.js';
import { ENCODINGS, type Encoding } from '../tokens/tokenizer.js';

export const HEADER_TYPE = 'lro_header';
export const SCHEMA_VERSION = 'lro/1';

export type ContentType = 'text' | 'jsonl' | 'json' | 'binary';
export const CONTENT_TYPES: readonly ContentType[] = ['text', 'jsonl', 'json', 'binary'];
export type LineEnding = 'lf' | 'crlf';

/**
 * What produced the data, when lro knows it: a command (`lro run`), or a tool call of an MCP server (`lro mcp
 * proxy`). A tool call also fills `command` (the call as text) and `exit_code` (null), so readers that know only
 * commands still show it.
 */
export interface Source {
  command: string;
  exit_code: number | null;
  signal?: string | null;
  /** Why the stored output may lack its end (the call was interrupted; the space to keep it ran out). */
  incomplete?: string;
  /** The MCP tool that returned the data, and the arguments it was called with (long strings shortened). */
  tool?: string;
  arguments?: Record<string, unknown>;
  /** The tool's result said it was an error (`isError`). */
  is_error?: boolean;
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
  /**
   * text: bytes of terminal noise in the input (escape sequences, `\r` redraws and the text they overwrote).
   * Absent or 0: none, and records read as stored; else readers render them (see format/terminal.ts).
   */
  noise_bytes?: number;
  /** Present when the offload redacted secrets (--redact): spans replaced, per rule id (`{}`: none found). */
  redacted?: Record<string, number>;
  /** True when spans were replaced: `lro cat` gives the redacted input, and `sha256` is of what was stored. */
  content_redacted?: boolean;
  /** Likely secrets seen in the input (offloaded without --redact), per rule id; never their values. */
  possible_secrets?: Record<string, number>;
  /**
   * `lro run` stored stdout and stderr together, lines in the order they arrived: how many records came from stderr
   * and their numbers as runs ("3-5,9"; "" for none). Absent: no stream information (see streams.ts).
   */
  stderr_lines?: number;
  stderr_records?: string;
  /**
   * The stored records' block hashes and line 1's seal (format/blocks.ts), added by the writer at commit, so a
   * reader of part of a result can check what it uses. Absent in results written before them: those are checked
   * only when read whole (sha256).
   */
  blocks?: Blocks;
  /**
   * The statistics the descriptor is made from, as JSON (see describe/stored.ts), kept by the offload so that
   * `lro info` need not read the records again; always the last member of line 1 (see parseHeaderFields).
   * Absent when they did not fit the header's slot, or for binary: readers then compute them.
   */
  stats?: string;
}

export { DAMAGED_HINT, FormatError } from './format-error.js';

/** The header fields an encoder decides: how many records, and how to rebuild the original from them. */
export interface Layout {
  content_type: ContentType;
  count: number;
  line_ending?: LineEnding;
  final_newline?: boolean;
  invalid_records?: number[];
  split?: 'elements' | 'path' | 'none';
  path?: string[];
  /** Raw compact JSON of the document with the split array emptied (json, split = path). */
  envelope?: Buffer;
  /** Byte offset in `envelope` where the records belong (between the brackets of the emptied array). */
  envelope_insert_at?: number;
}

/**
 * What a new result's header is made of: what the offload was asked (the given fields), the layout its encoder
 * wrote, and what was learned of the bytes on the way (tokens, hash, terminal noise, secrets).
 */
export interface NewHeader {
  id: string;
  /** When the offload began: the header's timestamp, and its expiry with ttlSeconds. */
  now: Date;
  operation: string;
  query: string | null;
  encoding: Encoding;
  detail: string;
  ttlSeconds: number;
  session: string | null;
  meta: Record<string, string>;
  source?: Source;
  layout: Layout;
  bytes: number;
  tokens: number;
  sha256: string;
  /** text: bytes of terminal noise seen (0: none, and no field). */
  noiseBytes: number;
  /** With --redact: the replacements per rule, and whether any span was replaced; else null. */
  redaction: { counts: Record<string, number>; redacted: boolean } | null;
  /** Without --redact: the likely secrets seen, per rule (none: no field). */
  possibleSecrets: Record<string, number>;
  /** lro run's stream fields (format/streams.ts), when it has them. */
  streams?: Partial<Pick<Header, 'stderr_lines' | 'stderr_records'>>;
}

/** A new result's header, its fields in the order a reader sees them (the one place a header is made). */
export function newHeader(n: NewHeader): Header {
  const { layout: l, now, redaction } = n;
  const rules = Object.keys(n.possibleSecrets).sort();
  return {
    type: HEADER_TYPE,
    schema_version: SCHEMA_VERSION,
    id: n.id,
    operation: n.operation,
    query: n.query,
    count: l.count,
    timestamp: now.toISOString(),
    estimated_tokens: n.tokens,
    encoding: n.encoding,
    detail: n.detail,
    content_type: l.content_type,
    bytes: n.bytes,
    sha256: n.sha256,
    ttl_seconds: n.ttlSeconds,
    expires_at: new Date(now.getTime() + n.ttlSeconds * 1000).toISOString(),
    session: n.session,
    meta: n.meta,
    ...(n.source ? { source: n.source } : {}),
    ...(l.line_ending ? { line_ending: l.line_ending } : {}),
    ...(l.final_newline !== undefined ? { final_newline: l.final_newline } : {}),
    ...(l.invalid_records ? { invalid_records: l.invalid_records } : {}),
    ...(l.split ? { split: l.split } : {}),
    ...(l.path ? { path: l.path } : {}),
    ...(l.envelope_insert_at !== undefined ? { envelope_insert_at: l.envelope_insert_at } : {}),
    ...(l.envelope ? { envelope: l.envelope } : {}),
    ...(l.content_type === 'text' && n.noiseBytes > 0 ? { noise_bytes: n.noiseBytes } : {}),
    ...(redaction
      ? { redacted: redaction.counts, content_redacted: redaction.redacted }
      : rules.length
        ? { possible_secrets: Object.fromEntries(rules.map((r) => [r, n.possibleSecrets[r]])) }
        : {}),
    ...n.streams,
  };
}

const ENVELOPE_MARK = '\u0000lro-envelope\u0000';

/** Serializes a header as one line of JSON (no newline), with the raw envelope spliced in unchanged, `stats` last. */
export function serializeHeader(h: Header): string {
  const { stats, ...fields } = h;
  const text = serializeFields(fields);
  return stats === undefined ? text : `${text.slice(0, -1)}${STATS_MEMBER}${JSON.stringify(stats)}}`;
}

/**
 * A header without its statistics as the JSON value serializeHeader prints (for an MCP tool call, which sends
 * values): the envelope parsed, so a number in it beyond 2^53 is the nearest double, as a JSON reader of the line
 * gets it; the line itself keeps its digits.
 */
export function headerValue(h: Omit<Header, 'stats'>): Record<string, unknown> {
  const { envelope, ...rest } = h;
  return envelope ? { ...rest, envelope: JSON.parse(envelope.toString('utf8')) as unknown } : rest;
}

/** How the `stats` member begins: it is a string, so these bytes cannot occur inside it (its quotes are escaped). */
const STATS_MEMBER = ',"stats":';

/**
 * Line 1 cut before its last `,"stats":"` (and the `blocks` member before it) and closed, or null when there is
 * neither. The member is the header's last and its value a string, so in a header lro wrote that is where it starts.
 */
function cutAtStats(line: Buffer): Buffer | null {
  const at = line.lastIndexOf(`${STATS_MEMBER}"`);
  const end = at > 0 ? at : line.lastIndexOf(0x7d); // without stats: before the closing brace
  // the block hashes, just before (up to 16 KB): no listing shows them
  const blocks = line.lastIndexOf(BLOCKS_MEMBER, end);
  const cut = blocks > 0 ? blocks : at;
  return cut > 0 ? Buffer.concat([line.subarray(0, cut), Buffer.from('}')]) : null;
}

/** How the `blocks` member begins, as the writer adds it (withMember), just before `stats`. */
const BLOCKS_MEMBER = ',"blocks":{"size":';

/**
 * Parses line 1 without its `stats` (ls and gc read thousands of headers, and parsing the statistics' escaped
 * string took most of their time: 19 against 2 us a header); returns the header and the line without them (what
 * `lro ls --json` lists). A cut anywhere but at the header's own last member leaves an object unclosed, so the
 * parse fails, and then the whole line is parsed.
 */
export function parseHeaderFields(line: Buffer): { header: Header; line: Buffer } {
  const cut = cutAtStats(line);
  if (cut) {
    try {
      return { header: parseHeader(cut), line: cut };
    } catch {
      // not the header's own member (or a damaged header): parse it whole
    }
  }
  const header = parseHeader(line);
  return { header, line: (header.stats !== undefined && cutAtStats(line)) || line };
}

/**
 * A header line (as serializeHeader made it) with one more member, `name` with the JSON text `value`, put just
 * before `stats` (which stays last) or at the end.
 */
export function withMember(json: string, name: string, value: string): string {
  const member = `,${JSON.stringify(name)}:${value}`;
  const at = json.lastIndexOf(`${STATS_MEMBER}"`);
  const cut = at > 0 && isStringText(json.slice(at + STATS_MEMBER.length, -1)) ? at : json.length - 1;
  return json.slice(0, cut) + member + json.slice(cut);
}

/** Whether text is one JSON string (the header's own `stats` runs from its member to the closing brace). */
function isStringText(text: string): boolean {
  try {
    return typeof JSON.parse(text) === 'string';
  } catch {
    return false; // a `"stats"` key of an object inside the header (a tool call's arguments)
  }
}

function serializeFields(h: Omit<Header, 'stats'>): string {
  const { envelope, ...rest } = h;
  if (!envelope) return JSON.stringify(rest);
  const text = JSON.stringify({ ...rest, envelope: ENVELOPE_MARK });
  const mark = JSON.stringify(ENVELOPE_MARK);
  const at = text.lastIndexOf(mark);
  return text.slice(0, at) + envelope.toString('utf8') + text.slice(at + mark.length);
}

function fail(what: string, hint?: string): never {
  throw new FormatError(what, hint);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCounts = (v: unknown): boolean => isObject(v) && Object.values(v).every((n) => Number.isSafeInteger(n) && (n as number) >= 0);

/** Whether the records of a result are read rendered (a text result with terminal noise). */
export function isNoisy(h: Header): boolean {
  return h.content_type === 'text' && (h.noise_bytes ?? 0) > 0;
}

/**
 * Parses and checks a header line; throws FormatError saying what is wrong. Every field lro writes is checked
 * for its type, so a damaged or foreign header is refused here rather than misread later.
 */
export function parseHeader(line: Buffer): Header {
  if (!isUtf8(line)) fail('line 1 is not UTF-8, so not a header lro wrote');
  let obj: Record<string, unknown>;
  try {
    obj = JSON.parse(line.toString('utf8')) as Record<string, unknown>;
  } catch {
    fail('line 1 is not a JSON header');
  }
  if (!isObject(obj) || obj.type !== HEADER_TYPE) fail('line 1 is not an lro header');
  if (obj.schema_version !== SCHEMA_VERSION) {
    if (typeof obj.schema_version !== 'string') fail('header has no schema_version');
    fail(`was written in format ${JSON.stringify(obj.schema_version)} and this lro reads ${SCHEMA_VERSION}`, 'upgrade lro to read it');
  }
  const str = (k: string) => (typeof obj[k] === 'string' ? (obj[k] as string) : fail(`header field ${k} is missing or not a string`));
  const num = (k: string) =>
    typeof obj[k] === 'number' && Number.isSafeInteger(obj[k]) && (obj[k] as number) >= 0
      ? (obj[k] as number)
      : fail(`header field ${k} is missing or not a count`);
  const strOrNull = (k: string) => {
    if (obj[k] !== null && typeof obj[k] !== 'string') fail(`header field ${k} is missing or not a string or null`);
  };
  const date = (k: string) => {
    if (Number.isNaN(Date.parse(str(k)))) fail(`header field ${k} is not a date`);
  };
  const optional = (k: string, ok: (v: unknown) => boolean, what: string) => {
    if (obj[k] !== undefined && !ok(obj[k])) fail(`header field ${k} is not ${what}`);
  };
  if (!isUlid(str('id'))) fail('header id is not a ULID');
  str('operation');
  strOrNull('query');
  date('timestamp');
  date('expires_at');
  str('sha256');
  if (!ENCODINGS.includes(str('encoding') as Encoding)) fail('header field encoding names an unknown tokenizer');
  str('detail');
  strOrNull('session');
  if (!isObject(obj.meta) || !Object.values(obj.meta).every((v) => typeof v === 'string')) fail('header field meta is missing or not an object of strings');
  const count = num('count');
  num('bytes');
  num('estimated_tokens');
  num('ttl_seconds');
  if (!CONTENT_TYPES.includes(obj.content_type as ContentType)) fail('header content_type is unknown');
  optional('source', isObject, 'an object');
  optional('line_ending', (v) => v === 'lf' || v === 'crlf', 'lf or crlf');
  optional('final_newline', (v) => typeof v === 'boolean', 'true or false');
  optional('noise_bytes', (v) => Number.isSafeInteger(v) && (v as number) >= 0, 'a count');
  optional('redacted', isCounts, 'an object of counts');
  optional('content_redacted', (v) => typeof v === 'boolean', 'true or false');
  optional('possible_secrets', isCounts, 'an object of counts');
  optional('stats', (v) => typeof v === 'string', 'a string');
  if (obj.blocks !== undefined) {
    const problem = blocksProblem(obj.blocks);
    if (problem) fail(`header field blocks ${problem}`);
  }
  optional(
    'invalid_records',
    (v) => Array.isArray(v) && v.every((n, i) => Number.isSafeInteger(n) && n >= 1 && n <= count && (i === 0 || n > (v[i - 1] as number))),
    'a list of record numbers',
  );
  const h = obj as unknown as Header;
  checkStreamFields(h);
  if (h.content_type === 'json') {
    if (h.split !== 'elements' && h.split !== 'path' && h.split !== 'none') fail('header of a JSON document does not say how it was split');
    if (h.split === 'none' && count !== 1) fail(`header of an unsplit JSON document has ${count} records, not 1`);
  }
  if (h.content_type === 'json' && h.split === 'path') {
    const raw = rawMember(line, 'envelope');
    if (!raw || !Number.isSafeInteger(h.envelope_insert_at)) fail('header of a split JSON document lacks its envelope');
    if (!Array.isArray(h.path) || !h.path.every((k) => typeof k === 'string')) fail('header of a split JSON document lacks its path');
    // the records go between the brackets of the emptied array
    const at = h.envelope_insert_at!;
    if (!(at > 0 && at < raw.length && raw[at - 1] === 0x5b && raw[at] === 0x5d)) fail('header of a split JSON document has no place for its records in the envelope');
    h.envelope = raw;
  } else {
    delete h.envelope;
  }
  return h;
}
