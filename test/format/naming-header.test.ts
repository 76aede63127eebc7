import { describe, expect, it } from 'vitest';
import { isTempFileName, parseResultFileName, resultFileName, sanitizeOperation, tempFileName } from '../../src/format/naming.js';
import { FormatError, newHeader, parseHeader, serializeHeader, type Header, type NewHeader } from '../../src/format/header.js';
import { detectContent } from '../../src/format/detect.js';
import { decodeJsonStringRecord, decodeSurrogateEscape, encodeSurrogateEscape, jsonStringOfBytes } from '../../src/format/escape.js';

const ID = '01JD2X3Y4Z5A6B7C8D9E0F1G2H';

describe('naming', () => {
  it('sanitises operations to [a-z0-9_-]{1,40}', () => {
    expect(sanitizeOperation('Kubectl Get Pods!')).toBe('kubectl-get-pods');
    expect(sanitizeOperation('../../etc/passwd')).toBe('etc-passwd');
    expect(sanitizeOperation('')).toBe('offload');
    expect(sanitizeOperation('日本語')).toBe('offload');
    expect(sanitizeOperation('x'.repeat(100))).toHaveLength(40);
    expect(sanitizeOperation('snake_case-ok')).toBe('snake_case-ok');
  });
  it('round-trips result names and recognises only its own', () => {
    expect(parseResultFileName(resultFileName('npm-test', ID))).toEqual({ operation: 'npm-test', id: ID });
    expect(parseResultFileName(`lro-x-${ID}.jsonl.bak`)).toBeNull();
    expect(parseResultFileName(`lro-${ID}.jsonl`)).toBeNull();
    expect(parseResultFileName('notes.txt')).toBeNull();
    expect(isTempFileName(tempFileName(ID))).toBe(true);
    expect(isTempFileName('.lro-../x.tmp')).toBe(false);
    expect(tempFileName(ID)).not.toBe(tempFileName(ID));
  });
});

describe('header', () => {
  const base: Header = {
    type: 'lro_header', schema_version: 'lro/1', id: ID, operation: 'offload', query: null, count: 2, timestamp: '2026-01-01T00:00:00.000Z',
    estimated_tokens: 10, encoding: 'o200k_base', detail: 'full', content_type: 'json', bytes: 10, sha256: 'x', ttl_seconds: 60,
    expires_at: '2026-01-01T00:01:00.000Z', session: null, meta: {}, split: 'path', path: ['items'], envelope_insert_at: 39,
    envelope: Buffer.from('{"total":12345678901234567890,"items":[]}'),
  };
  it('keeps the raw envelope through serialize and parse', () => {
    const line = serializeHeader(base);
    expect(line).toContain('"envelope":{"total":12345678901234567890,"items":[]}');
    expect(line.includes('\n')).toBe(false);
    const back = parseHeader(Buffer.from(`${line}     `));
    expect(back.envelope!.toString()).toBe('{"total":12345678901234567890,"items":[]}');
    expect(back.path).toEqual(['items']);
  });
  it('says what is wrong with a bad header', () => {
    const bad = (o: unknown) => () => parseHeader(Buffer.from(JSON.stringify(o)));
    expect(bad({ ...base, envelope: undefined, schema_version: 'lro/2' })).toThrow(/format "lro\/2"/);
    expect(bad({ ...base, envelope: undefined, schema_version: 'lro/2' })).toThrow(expect.objectContaining({ hint: 'upgrade lro to read it' }));
    expect(bad({ type: 'other' })).toThrow(FormatError);
    expect(bad({ ...base, envelope: undefined, count: -1 })).toThrow(/count/);
    expect(bad({ ...base, envelope: undefined, id: '../x' })).toThrow(/ULID/);
    expect(() => parseHeader(Buffer.from('not json'))).toThrow(/not a JSON header/);
  });
  // newHeader is the one place a header is made (offload-store.ts gives it the offload's facts)
  const made: NewHeader = {
    id: ID, now: new Date('2026-01-01T00:00:00.000Z'), operation: 'offload', query: null, encoding: 'o200k_base', detail: 'full',
    ttlSeconds: 60, session: null, meta: {}, layout: { content_type: 'json', count: 2, split: 'path', path: ['items'], envelope_insert_at: 39, envelope: base.envelope },
    bytes: 10, tokens: 10, sha256: 'x', noiseBytes: 0, redaction: null, possibleSecrets: {},
  };
  it('is made from the offload\'s facts with the fields in the order a reader sees them, and reads back', () => {
    const h = newHeader(made);
    expect(serializeHeader(h)).toBe(serializeHeader(base));
    expect(parseHeader(Buffer.from(serializeHeader(h)))).toEqual(parseHeader(Buffer.from(serializeHeader(base))));
  });
  it('has a field only for what was seen: noise in text, secrets, redaction, streams, an empty invalid_records kept', () => {
    const text = { ...made, layout: { content_type: 'text' as const, count: 3, line_ending: 'lf' as const, final_newline: true } };
    expect(newHeader({ ...text, noiseBytes: 0 }).noise_bytes).toBeUndefined();
    expect(newHeader({ ...text, noiseBytes: 7 }).noise_bytes).toBe(7);
    expect(newHeader({ ...made, noiseBytes: 7 }).noise_bytes).toBeUndefined(); // json: none
    const secrets = newHeader({ ...text, possibleSecrets: { 'b-rule': 1, 'a-rule': 2 } });
    expect(JSON.stringify(secrets.possible_secrets)).toBe('{"a-rule":2,"b-rule":1}');
    const redacted = newHeader({ ...text, possibleSecrets: { x: 1 }, redaction: { counts: {}, redacted: false } });
    expect([redacted.redacted, redacted.content_redacted, redacted.possible_secrets]).toEqual([{}, false, undefined]);
    const streams = newHeader({ ...text, streams: { stderr_lines: 2, stderr_records: '2-3' } });
    expect(Object.keys(streams).slice(-2)).toEqual(['stderr_lines', 'stderr_records']);
    const jsonl = newHeader({ ...made, layout: { content_type: 'jsonl', count: 1, line_ending: 'lf', final_newline: true, invalid_records: [] } });
    expect(serializeHeader(jsonl)).toContain('"invalid_records":[]');
    expect(newHeader(made).expires_at).toBe('2026-01-01T00:01:00.000Z');
  });
});

describe('detection', () => {
  const d = (s: string | Buffer, complete = true) => detectContent(Buffer.from(s), complete).contentType;
  it('tells text, JSON, JSONL and binary apart', () => {
    expect(d('')).toBe('text');
    expect(d('hello\nworld\n')).toBe('text');
    expect(d('[Sun Dec 04 04:47:44 2005] [notice] workerEnv.init() ok\n[Sun Dec 04] [error] x\n')).toBe('text');
    expect(d('{"a":1}\n{"a":2}\n')).toBe('jsonl');
    expect(d('[1,2]\n[3,4]\n')).toBe('jsonl');
    expect(d('{"a":1}\n')).toBe('json');
    expect(d('{\n  "a": 1\n}\n')).toBe('json');
    expect(d('  [1, 2,\n 3]')).toBe('json');
    expect(d('{"a": [1, 2', false)).toBe('json');
    expect(d('{"a":1}\n{"a":2}\nplain\nplain\nplain\n')).toBe('text');
    expect(d(Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xff, 0xfe, 0x00, 0x01, 0x90, 0x80]))).toBe('binary');
    expect(d(`${'text '.repeat(1000)}\u0000${'more '.repeat(1000)}`)).toBe('text');
    expect(d('\ufeff{"a":1}')).toBe('text');
  });
  it('detects CRLF only when every line has it', () => {
    expect(detectContent(Buffer.from('a\r\nb\r\n'), true).lineEnding).toBe('crlf');
    expect(detectContent(Buffer.from('a\r\nb\n'), true).lineEnding).toBe('lf');
  });
});

describe('escapes', () => {
  it('round-trips every byte through a JSON string record', () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    for (const bytes of [all, Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xf0, 0x90, 0x82, 0x80, 0x80]), Buffer.from('ok "q" \\ é')]) {
      const rec = jsonStringOfBytes(bytes);
      expect(() => JSON.parse(rec.toString())).not.toThrow();
      expect(decodeJsonStringRecord(rec).equals(bytes)).toBe(true);
    }
  });
  it('uses lone surrogates only for invalid bytes', () => {
    expect(decodeSurrogateEscape(Buffer.from([0x61, 0xff]))).toBe('a\udcff');
    expect(encodeSurrogateEscape('\ud800\udc80\udc80').equals(Buffer.from([0xf0, 0x90, 0x82, 0x80, 0x80]))).toBe(true);
  });
});
