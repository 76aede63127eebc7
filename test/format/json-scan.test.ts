import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { JsonScanner, JsonSyntaxError, analyzeJson, decodeKeys, rawMember, type SplitPlan } from '../../src/format/json-scan.js';
import { corpusFiles } from '../helpers/corpus.js';

function jsonParseAccepts(bytes: Buffer): boolean {
  if (!isUtf8(bytes)) return false;
  try {
    JSON.parse(bytes.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

function scannerAccepts(bytes: Buffer, chunk: number): boolean {
  const s = new JsonScanner();
  try {
    for (let i = 0; i < bytes.length; i += chunk) s.push(bytes.subarray(i, i + chunk));
    s.end();
    return isUtf8(bytes);
  } catch (e) {
    if (e instanceof JsonSyntaxError) return false;
    if (e instanceof RangeError) return false;
    throw e;
  }
}

function emit(doc: string | Buffer, plan: SplitPlan, chunk = 7) {
  const bytes = Buffer.from(doc);
  const records: string[] = [];
  let envelope = '';
  const s = new JsonScanner(plan, {
    record: (bytes) => records.push(bytes.toString()),
    envelope: (b) => (envelope += Buffer.from(b).toString()),
  });
  for (let i = 0; i < bytes.length; i += chunk) s.push(bytes.subarray(i, i + chunk));
  s.end();
  return { records, envelope, insertAt: s.envelopeInsertAt };
}

describe('JsonScanner', () => {
  const suite = corpusFiles().filter((f) => f.includes('json-test-suite/test_parsing/'));
  it('agrees with JSON.parse on every JSONTestSuite file, whatever the chunking', () => {
    expect(suite.length).toBeGreaterThan(300);
    for (const file of suite) {
      const bytes = readFileSync(file);
      const expected = jsonParseAccepts(bytes);
      for (const chunk of [1, 3, 1 << 20]) expect(scannerAccepts(bytes, chunk), `${file} chunk ${chunk}`).toBe(expected);
      if (file.includes('/y_')) expect(expected, file).toBe(true);
      if (file.includes('/n_')) expect(expected, file).toBe(false);
    }
  });

  it('splits a root array into compact elements, numbers as written', () => {
    const r = emit('[ {"a": 1, "b" : [1, 2]} ,\n 12345678901234567890, "x y", true, null, -0.5e+10 ]', { split: 'elements' });
    expect(r.records).toEqual(['{"a":1,"b":[1,2]}', '12345678901234567890', '"x y"', 'true', 'null', '-0.5e+10']);
    expect(r.envelope).toBe('');
  });

  it('finds the dominant array through objects and splits on it with the envelope kept', () => {
    const doc = '{\n  "total": 3,\n  "data": {"items": [ {"id": 1}, {"id": 2}, {"id": 3, "tags": ["a", "b"]} ], "x": [1]},\n  "next": null\n}\n';
    const a = analyzeJson(Buffer.from(doc));
    expect(a.root).toBe('object');
    expect(decodeKeys(a.largest!.keys)).toEqual(['data', 'items']);
    expect(a.largest!.count).toBe(3);
    const r = emit(doc, { split: 'path', arrayStart: a.largest!.start });
    expect(r.records).toEqual(['{"id":1}', '{"id":2}', '{"id":3,"tags":["a","b"]}']);
    expect(r.envelope).toBe('{"total":3,"data":{"items":[],"x":[1]},"next":null}');
    expect(r.envelope.slice(0, r.insertAt)).toBe('{"total":3,"data":{"items":[');
  });

  it('keeps a document without a dominant array as one record', () => {
    expect(emit(' {"a": "b c", "n": 1.0}  ', { split: 'none' }).records).toEqual(['{"a":"b c","n":1.0}']);
    expect(emit('42', { split: 'none' }).records).toEqual(['42']);
  });

  it('reports trailing data separately from invalid data', () => {
    expect(() => analyzeJson(Buffer.from('{"a":1}\n{"a":2}'))).toThrow(expect.objectContaining({ kind: 'trailing' }));
    expect(() => analyzeJson(Buffer.from('{"a":1'))).toThrow(expect.objectContaining({ kind: 'incomplete' }));
    expect(() => analyzeJson(Buffer.from('{"a":01}'))).toThrow(expect.objectContaining({ kind: 'invalid' }));
  });

  it('copes with deep nesting without recursion', () => {
    const deep = '['.repeat(100000) + ']'.repeat(100000);
    expect(analyzeJson(Buffer.from(deep)).root).toBe('array');
  });

  it('extracts a raw member without re-serialising numbers', () => {
    const line = Buffer.from('{"type":"lro_header","meta":{"envelope":"no"},"envelope":{"n":12345678901234567890,"s":"a,\\"}b","items":[]},"z":1}   ');
    expect(rawMember(line, 'envelope')!.toString()).toBe('{"n":12345678901234567890,"s":"a,\\"}b","items":[]}');
    expect(rawMember(line, 'z')!.toString()).toBe('1');
    expect(rawMember(line, 'missing')).toBeNull();
  });
});
