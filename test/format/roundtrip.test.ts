// In-process round trips through the whole write path (detection, encoders, restarts, writer) and back
// (reader, decoders), with inputs cut into chunks at awkward places.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { offload } from '../../src/offload.js';
import { encodeTime } from 'ulid';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { openResultFile, originalContent, readRecords } from '../../src/format/reader.js';
import type { Header } from '../../src/format/header.js';
import { cleanup, ls, tempDir } from '../helpers/cli.js';
import { corpusFile } from '../helpers/corpus.js';
import { seeded } from '../helpers/seeded.js';

let root: string;
let dir: string;
beforeAll(() => {
  root = tempDir();
  dir = join(root, 'store');
});
afterAll(() => cleanup(root));

function chunked(input: Buffer, sizes: number[]): Buffer[] {
  const out: Buffer[] = [];
  let i = 0;
  let k = 0;
  while (i < input.length) {
    const n = sizes[k++ % sizes.length];
    out.push(input.subarray(i, i + n));
    i += n;
  }
  return out;
}

async function roundTrip(input: Buffer, opts: { chunks?: number[]; format?: 'auto' | 'text' | 'json' | 'jsonl' } = {}) {
  const r = await offload(chunked(input, opts.chunks ?? [1 << 20]), { dir, force: true, format: opts.format });
  if (!r.offloaded) throw new Error(r.truncated ? r.warning : 'not offloaded');
  const rf = openResultFile(r.path);
  const back = Buffer.concat([...originalContent(rf)]);
  return { header: rf.header as Header, back, path: r.path, records: [...readRecords(rf)].map((x) => x.line.toString()) };
}

describe('round trips', () => {
  const awkward = [1, 2, 3, 7, 64, 1000, 65536];

  it('text with every kind of line ending, whatever the chunking', async () => {
    const input = Buffer.from('a\r\nb\nc\r\r\n\r\n\nlast \u00e9\u20ac\ud83d\ude00');
    for (const size of awkward) {
      const { back } = await roundTrip(input, { chunks: [size] });
      expect(back.equals(input), `chunk ${size}`).toBe(true);
    }
  });

  it('a small input stored with --force is counted exactly, whatever the chunking', async () => {
    // (with --force nothing is decided on the count, but the stored one must not depend on how a pipe cut the input)
    const text = readFileSync(corpusFile('loghub/OpenSSH_2k.log'), 'utf8').slice(0, 60_000);
    const exact = getTokenizer('o200k_base').count(text);
    for (const size of [7, 1000, 4096, 65536]) {
      const r = await offload(chunked(Buffer.from(text), [size]), { dir: join(root, `force-${size}`), force: true });
      if (!r.offloaded) throw new Error('not offloaded');
      expect(openResultFile(r.path).header.estimated_tokens, `chunks of ${size}`).toBe(exact);
    }
  });

  it('ids made in one millisecond are ULIDs of that time that sort in the order they were made', async () => {
    // (after every id made so far in this process: an earlier time would give ids of the last one's time)
    const now = new Date(Date.now() + 3_600_000);
    const time = encodeTime(now.getTime(), 10);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await offload(`result ${i}\n`, { dir: join(root, 'ids'), force: true, now: () => now });
      if (!r.offloaded) throw new Error('not offloaded');
      ids.push(r.id);
    }
    for (const id of ids) expect(id).toMatch(new RegExp(`^${time}[0-9A-HJKMNP-TV-Z]{16}$`));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('CRLF text that turns out mixed after many lines restarts as LF and stays exact', async () => {
    const input = Buffer.concat([Buffer.from('x\r\n'.repeat(100_000)), Buffer.from('bare\n'), Buffer.from('y\r\n'.repeat(10))]);
    const { header, back } = await roundTrip(input, { chunks: [4096, 333] });
    expect(header.line_ending).toBe('lf');
    expect(back.equals(input)).toBe(true);
  });

  it('a long line (streamed in pieces) ending in a bare LF inside CRLF text', async () => {
    const long = Buffer.alloc(3 << 20, 'z');
    const input = Buffer.concat([Buffer.from('a\r\nb\r\n'), long, Buffer.from('\nafter\r\n')]);
    const { header, back } = await roundTrip(input, { chunks: [65536] });
    expect(header.line_ending).toBe('lf');
    expect(back.equals(input)).toBe(true);
  });

  it('a long line with multi-byte characters and invalid bytes cut across chunks', async () => {
    const unit = Buffer.from('é€😀\xff'.repeat(1000), 'latin1');
    const mixed = Buffer.concat([Buffer.from('€😀 '.repeat(200_000)), Buffer.from([0xf0, 0x9f, 0x98]), Buffer.from('x'), unit]);
    for (const size of [65536, 4097]) {
      const { back } = await roundTrip(mixed, { chunks: [size] });
      expect(back.equals(mixed)).toBe(true);
    }
  });

  it('JSONL with CRLF, blank lines and broken lines', async () => {
    const input = Buffer.from('{"a":1}\r\n{"a":2}\r\n\r\n{"a":\r\n[1,2]\r\n"str"\r\n{"a":3}\r\n{"a":4}\r\n');
    const { header, back, records } = await roundTrip(input, { chunks: [5] });
    expect(header.content_type).toBe('jsonl');
    expect(header.line_ending).toBe('crlf');
    expect(header.invalid_records).toEqual([3, 4]);
    expect(records).toEqual(['{"a":1}', '{"a":2}', '""', '"{\\"a\\":"', '[1,2]', '"str"', '{"a":3}', '{"a":4}']);
    expect(back.equals(input)).toBe(true);
  });

  it('JSONL that becomes text after 1000 broken lines restarts without loss', async () => {
    const input = Buffer.from(`${'{"ok":true}\n'.repeat(50)}${'broken {\n'.repeat(1200)}{"ok":false}\n`);
    const { header, back } = await roundTrip(input, { chunks: [100] });
    expect(header.content_type).toBe('text');
    expect(back.equals(input)).toBe(true);
  });

  it('a JSON document whose first line is over the detection window is still one document', async () => {
    const doc = JSON.stringify({ items: Array.from({ length: 20000 }, (_, i) => ({ i })) });
    const { header, back } = await roundTrip(Buffer.from(doc), { chunks: [1000] });
    expect(header.content_type).toBe('json');
    expect(header.split).toBe('path');
    expect(JSON.parse(back.toString())).toEqual(JSON.parse(doc));
  });

  it('JSONL whose first line is over the detection window is JSONL', async () => {
    const first = JSON.stringify({ big: 'x'.repeat(100_000) });
    const input = Buffer.from(`${first}\n{"a":1}\n{"a":2}\n`);
    const { header, back } = await roundTrip(input);
    expect(header.content_type).toBe('jsonl');
    expect(back.equals(input)).toBe(true);
  });

  it('a JSON document larger than the memory limit is spooled and split, and the spool removed', { tags: ['soak'] }, async () => {
    const items = Array.from({ length: 400_000 }, (_, i) => ({ id: i, name: `item number ${i}`, tags: ['a', 'b'], n: 'BIG' }));
    const text = JSON.stringify({ count: items.length, items }, null, 1).replace(/"BIG"/g, '12345678901234567890');
    expect(text.length).toBeGreaterThan(34 << 20);
    const { header, back } = await roundTrip(Buffer.from(text));
    expect(header.count).toBe(400_000);
    expect(back.toString()).toContain('"n":12345678901234567890');
    expect(ls(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('binary input is base64 records', async () => {
    const input = Buffer.from(Array.from({ length: 10_000 }, (_, i) => (i * 7919) % 256));
    for (const size of [1, 3071, 3072, 5000]) {
      const { header, back } = await roundTrip(input, { chunks: [size] });
      expect(header.content_type).toBe('binary');
      expect(header.count).toBe(Math.ceil(10_000 / 3072));
      expect(back.equals(input)).toBe(true);
    }
  });

  it('random bytes and random line structures come back exactly', async () => {
    const rand = seeded(42).unit;
    const alphabet = [0x0a, 0x0d, 0x00, 0x22, 0x5c, 0x09, 0x61, 0x62, 0xc3, 0xa9, 0xff, 0xed, 0xa0, 0x80, 0xf0, 0x9f, 0x98, 0x80, 0x7b, 0x7d, 0x5b, 0x5d];
    for (let t = 0; t < 60; t++) {
      const len = Math.floor(rand() * 3000);
      const bytes = Buffer.from(Array.from({ length: len }, () => alphabet[Math.floor(rand() * alphabet.length)]));
      const { back } = await roundTrip(bytes, { chunks: [1 + Math.floor(rand() * 500)] });
      expect(back.equals(bytes), `case ${t}`).toBe(true);
    }
  });

  it('writes records without a header slot for small results and with one for large', async () => {
    const small = await roundTrip(Buffer.from('one line\n'));
    expect(readFileSync(small.path, 'utf8').split('\n')[0].endsWith('}')).toBe(true);
    const large = await roundTrip(Buffer.from('a fairly ordinary line of text\n'.repeat(400_000)));
    const first = readFileSync(large.path).subarray(0, 5000).toString().split('\n')[0];
    expect(JSON.parse(first).count).toBe(400_000);
  });
});
