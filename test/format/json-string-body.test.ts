// The byte-level JSON string decoder (format/escape.ts) against JSON.parse + encodeSurrogateEscape, the
// definition of a text record's original bytes: whole, and in pieces cut at every place (a record too long to
// hold arrives so); and the longest token, which lets a budget refuse a text without counting it.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { decodeJsonStringRecord, encodeSurrogateEscape, jsonStringOfBytes } from '../../src/format/escape.js';
import { jsonStringPieces } from '../../src/format/record-text.js';
import { MAX_TOKEN_BYTES } from '../../src/tokens/tokenizer.js';
import { decodeTextLines } from '../../src/format/content-text.js';

const byParse = (record: Buffer) => encodeSurrogateEscape(JSON.parse(record.toString('utf8')) as string);

const samples: Buffer[] = [
  Buffer.from('"plain"'),
  Buffer.from(JSON.stringify('tab\there "quoted" back\\slash /\n\r\b\f \u0001 é 漢 😀')),
  Buffer.from('"\\ud83d\\ude00 pair, \\ud83d lone high, \\ude00 lone low, \\u00e9\\u6f22 \\/"'),
  jsonStringOfBytes(Buffer.from([0x61, 0xff, 0xfe, 0x62, 0xc3, 0x28, 0x80])), // invalid UTF-8: \udcXX escapes
  Buffer.from('"\\ud800\\udc80 a pair whose low half is also a raw-byte escape"'),
  Buffer.from('""'),
];

describe('JSON string records decoded byte by byte', () => {
  it('give what JSON.parse gives, whole and cut into pieces anywhere', () => {
    for (const s of samples) {
      const want = byParse(s);
      expect(decodeJsonStringRecord(s).equals(want), s.toString()).toBe(true);
      for (let cut = 1; cut < s.length; cut++) {
        for (const size of [1, 2, 5]) {
          const pieces = [s.subarray(0, cut)];
          for (let i = cut; i < s.length; i += size) pieces.push(s.subarray(i, i + size));
          const got = Buffer.concat([...jsonStringPieces(pieces)]);
          expect(got.equals(want), `${s.toString()} cut at ${cut}, then ${size}`).toBe(true);
        }
      }
    }
  });

  it('refuse what is not a JSON string', () => {
    for (const bad of ['"abc', 'abc"', '"a\\"', '"a\\x"', '"a\\u12g4"', '"a"b\\n"']) {
      expect(() => decodeJsonStringRecord(Buffer.from(bad)), bad).toThrow();
      expect(() => [...jsonStringPieces([Buffer.from(bad)])], bad).toThrow();
    }
  });
});

describe('MAX_TOKEN_BYTES', () => {
  it('is the longest token of both vocabularies', () => {
    for (const encoding of ['o200k_base', 'cl100k_base']) {
      const b = readFileSync(new URL(`../../dist/ranks/${encoding}.bin`, import.meta.url));
      const n = b.readUInt32LE(8);
      const start = 24 + ((b.readUInt32LE(20) + 3) & ~3);
      let longest = 0;
      for (let r = 0; r < n; r++) longest = Math.max(longest, b.readUInt32LE(start + 4 * (r + 1)) - b.readUInt32LE(start + 4 * r));
      expect(longest, encoding).toBe(MAX_TOKEN_BYTES);
    }
  });
});

describe('whole text records decoded in a run (decodeTextLines, as lro cat and read give them back)', () => {
  const run = (records: Buffer[]) => Buffer.concat(records.flatMap((r) => [r, Buffer.from('\n')]));

  it('give every record as JSON.parse does, each followed by the line ending', () => {
    for (const eol of ['\n', '\r\n']) {
      const got = decodeTextLines(run(samples), 1, Buffer.from(eol));
      expect(got.records).toBe(samples.length);
      expect(got.bytes.equals(Buffer.concat(samples.flatMap((s) => [byParse(s), Buffer.from(eol)])))).toBe(true);
    }
  });

  it('refuse, naming the record, what is not one JSON string per line', () => {
    const refused = [
      ['"ok"\n"raw " quote"\n', 2], // an unescaped quote ends the string before the line does
      ['"ok"\n"escaped close\\"\n', 2], // the closing quote escaped: the string never ends
      ['"ok"\n"a\\', 2], // no newline at the end of the run
      ['"ok"\nbare\n', 2],
      ['"ok"\n"\n', 2],
      ['"ok"\n"bad \\x escape"\n', 2],
      ['"ok"\n"two" "strings"\n', 2],
    ] as const;
    for (const [text, n] of refused) {
      expect(() => decodeTextLines(Buffer.from(text), 1, Buffer.from('\n')), text).toThrow(`record ${n} is not what a text result holds`);
    }
  });
});
