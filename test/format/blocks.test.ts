// Block hashes (format/blocks.ts): what the writer adds to line 1 and what a reader of part of a result checks.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BlockMismatch, blocksMember, checkBlock, checkedBlocks, checkHeaderSeal, LEAF, LeafHasher, sealHeader, type Blocks } from '../../src/format/blocks.js';
import { parseHeader, parseHeaderFields, serializeHeader, withMember, type Header } from '../../src/format/header.js';
import { checkSpan, openResultFile } from '../../src/format/reader.js';
import { ResultWriter } from '../../src/format/writer.js';
import { cleanup, tempDir } from '../helpers/cli.js';

const dir = tempDir('lro-blocks-');
afterAll(() => cleanup(dir));

/** Record bytes: n lines of about 100 bytes, each a JSON string. */
function records(n: number): Buffer {
  return Buffer.from(Array.from({ length: n }, (_, i) => `"line ${i} ${'y'.repeat(90)}"\n`).join(''));
}

function hashed(data: Buffer): LeafHasher {
  const h = new LeafHasher();
  for (let at = 0; at < data.length; at += 77_777) h.update(data.subarray(at, at + 77_777)); // chunks across leaves
  return h;
}

const header = (count: number): Header => ({
  type: 'lro_header',
  schema_version: 'lro/1',
  id: '01JAAAAAAAAAAAAAAAAAAAAAAA',
  operation: 'test',
  query: null,
  count,
  timestamp: '2026-01-01T00:00:00.000Z',
  estimated_tokens: 1,
  encoding: 'o200k_base',
  detail: 'full',
  content_type: 'text',
  bytes: 1,
  sha256: 'x',
  ttl_seconds: 60,
  expires_at: '2026-01-01T00:01:00.000Z',
  session: null,
  meta: {},
  line_ending: 'lf',
  final_newline: true,
});

describe('the blocks member', () => {
  const data = records(50_000); // 5.2 MB: 5 leaves
  it('has the finest blocks whose hashes fit the room, and checks each block against its bytes', () => {
    const fine = JSON.parse(blocksMember(hashed(data), Infinity)!) as Blocks;
    expect([fine.size, fine.bytes, fine.hashes.length]).toEqual([LEAF, data.length, 5 * 16]);
    const roomForTwo = blocksMember(hashed(data), 2 * 16 + 72)!; // the member without hashes is 70 characters
    const coarse = JSON.parse(roomForTwo) as Blocks;
    expect([coarse.size, coarse.hashes.length]).toEqual([4 * LEAF, 2 * 16]);
    expect(blocksMember(hashed(data), 10)).toBeNull();
    for (const b of [fine, coarse]) {
      expect(checkedBlocks(b, 0, data)).toEqual({ start: 0, end: data.length });
      const changed = Buffer.from(data);
      changed[LEAF + 10] ^= 1; // in leaf 2: block 2 of the fine, block 1 of the coarse
      expect(() => checkedBlocks(b, 0, changed)).toThrow(BlockMismatch);
      const i = b.size === LEAF ? 1 : 0; // the block changed
      expect(() => checkBlock(b, i, changed.subarray(i * b.size, (i + 1) * b.size))).toThrow(/^block \d of \d/);
      expect(() => checkBlock(b, i, data.subarray(i * b.size, (i + 1) * b.size))).not.toThrow();
    }
  });

  it('checks only the whole blocks of a part, and says which are whole', () => {
    const b = JSON.parse(blocksMember(hashed(data), Infinity)!) as Blocks;
    // bytes 0.5 MB to 3.5 MB: blocks 2 and 3 are whole in it
    const part = data.subarray(LEAF / 2, 3 * LEAF + LEAF / 2);
    expect(checkedBlocks(b, LEAF / 2, part)).toEqual({ start: LEAF, end: 3 * LEAF });
    expect(checkedBlocks(b, LEAF / 2, data.subarray(LEAF / 2, LEAF))).toBeNull();
  });
});

describe('line 1 and its seal', () => {
  it('is sealed with the blocks before stats, and any change to it, or to the size it gives, is told', () => {
    const h = header(3);
    const json = serializeHeader({ ...h, stats: '{"a":1}' });
    const recordBytes = records(3);
    const line = sealHeader(withMember(json, 'blocks', blocksMember(hashed(recordBytes), Infinity)!));
    expect(line.endsWith(',"stats":"{\\"a\\":1}"}')).toBe(true);
    const parsed = parseHeader(Buffer.from(line));
    const padded = Buffer.from(`${line}${' '.repeat(100)}`); // a slot's padding is not part of what is sealed
    expect(() => checkHeaderSeal(padded, parsed.blocks!, padded.length + 1 + recordBytes.length)).not.toThrow();
    expect(() => checkHeaderSeal(padded, parsed.blocks!, padded.length + recordBytes.length)).toThrow(/shorter than stored/);
    expect(() => checkHeaderSeal(padded, parsed.blocks!, padded.length + 2 + recordBytes.length)).toThrow(/longer than stored/);
    const edited = Buffer.from(line.replace('"count":3', '"count":2'));
    expect(() => checkHeaderSeal(edited, parsed.blocks!, edited.length + 1 + recordBytes.length)).toThrow(/seal does not match/);
    // a listing leaves the hashes out, as it leaves the statistics
    expect(parseHeaderFields(Buffer.from(line)).line.toString()).not.toContain('"blocks"');
  });

  it('goes at the end when the header has no stats of its own (a "stats" key inside a tool call\'s arguments)', () => {
    const json = serializeHeader({ ...header(1), source: { command: 'x', exit_code: null, arguments: { n: 1, stats: 'y' } } });
    const line = withMember(json, 'blocks', '{"size":1}');
    expect((JSON.parse(line) as { blocks: unknown; source: { arguments: unknown } }).blocks).toEqual({ size: 1 });
    expect((JSON.parse(line) as { source: { arguments: unknown } }).source.arguments).toEqual({ n: 1, stats: 'y' });
  });
});

describe('the writer', () => {
  it('streams a large result, fits the hashes in the slot with larger blocks, and a reader checks them', async () => {
    const data = records(50_000);
    const json = serializeHeader(header(50_000));
    const slot = json.length + 150; // room for the member and 3 hashes, not 5
    const w = new ResultWriter({ dir, id: '01JAAAAAAAAAAAAAAAAAAAAAAA', operation: 'test', memoryLimit: 1 << 20, headerSlot: slot });
    for (let at = 0; at < data.length; at += 65_536) w.write(data.subarray(at, at + 65_536));
    const path = await w.commit(json);
    const rf = openResultFile(path);
    const b = rf.header.blocks!;
    expect(rf.recordsOffset).toBe(slot); // written in its slot, no copy
    expect(b.size).toBeGreaterThan(LEAF);
    expect(b.bytes).toBe(data.length);
    expect(() => checkSpan(rf, rf.recordsOffset, rf.size)).not.toThrow();
    const file = readFileSync(path);
    file[rf.recordsOffset + 3 * LEAF] ^= 1;
    writeFileSync(join(dir, 'changed.jsonl'), file);
    const changed = { ...openResultFile(join(dir, 'changed.jsonl')) };
    expect(() => checkSpan(changed, changed.recordsOffset, changed.recordsOffset + 10)).not.toThrow(); // block 1 is intact
    expect(() => checkSpan(changed, changed.recordsOffset, changed.size)).toThrow(BlockMismatch);
  });

  it('keeps a small result in memory and gives it 1 MB blocks', async () => {
    const data = records(10);
    const w = new ResultWriter({ dir, id: '01JAAAAAAAAAAAAAAAAAAAAAAB', operation: 'test' });
    w.write(data);
    const rf = openResultFile(await w.commit(serializeHeader({ ...header(10), id: '01JAAAAAAAAAAAAAAAAAAAAAAB' })));
    expect(rf.header.blocks).toMatchObject({ size: LEAF, bytes: data.length });
    expect(() => checkSpan(rf, rf.recordsOffset, rf.size)).not.toThrow();
  });
});
