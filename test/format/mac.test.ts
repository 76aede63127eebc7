// Keyed integrity (format/mac.ts): the MAC the writer puts in line 1 under the store's secret, and its checks.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { BlockMismatch, checkHeaderSeal, sealHeader } from '../../src/format/blocks.js';
import { parseHeaderFields, serializeHeader, type Header } from '../../src/format/header.js';
import { checkLineMac, checkListedMac, lineSeal, storeKey } from '../../src/format/mac.js';
import { readHeaderLine } from '../../src/format/reader.js';
import { ResultWriter } from '../../src/format/writer.js';
import { cleanup, tempDir } from '../helpers/cli.js';

const dir = tempDir('lro-mac-');
afterAll(() => cleanup(dir));
const KEY = Buffer.from('the team secret');
let ids = 0;

const header = (id: string, meta: Record<string, string> = {}): Header => ({
  type: 'lro_header',
  schema_version: 'lro/1',
  id,
  operation: 'test',
  query: null,
  count: 3,
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
  meta,
  stats: '{"lines":3}',
});

/** A result written with `key` (records spilled to the file past `memoryLimit` when given), and line 1. */
async function written(key: Buffer | null, meta: Record<string, string> = {}, memoryLimit?: number): Promise<{ line: Buffer; size: number }> {
  const id = `01JAAAAAAAAAAAAAAAAAAAA${String(++ids).padStart(3, '0')}`;
  const w = new ResultWriter({ dir, id, operation: 'test', macKey: key, memoryLimit, headerSlot: 64 * 1024 });
  w.write(Buffer.from(`"ünïcode one"\n"two"\n"${'z'.repeat(5000)}"\n`));
  const path = await w.commit(serializeHeader(header(id, meta)));
  const got = readHeaderLine(path);
  expect(readFileSync(path).includes(KEY)).toBe(false);
  return { line: got.line, size: got.size };
}

const blocksOf = (line: Buffer) => JSON.parse(line.toString()).blocks;

describe('the MAC of line 1', () => {
  for (const [how, limit] of [['in memory', undefined], ['spilled to its slot', 1024]] as const) {
    it(`is written under the key and checks, whole and as listed (${how})`, async () => {
      const { line, size } = await written(KEY, { mac: 'a meta key named mac is no MAC' }, limit);
      expect(line.toString()).toMatch(/,"mac":"[A-Za-z0-9+/]{43}","blocks":\{/);
      checkHeaderSeal(line, blocksOf(line), size); // the seal holds with the MAC filled in
      expect(() => checkLineMac(KEY, line)).not.toThrow();
      const listed = parseHeaderFields(line).line;
      expect(listed.toString()).not.toContain('"blocks"');
      expect(() => checkListedMac(KEY, listed, lineSeal(line))).not.toThrow();
      expect(() => checkLineMac(Buffer.from('another key'), line)).toThrow(/does not match LRO_STORE_KEY/);
    });
  }

  it('refuses a listed line or a seal changed, even with the line re-sealed', async () => {
    const { line, size } = await written(KEY);
    const listed = parseHeaderFields(line).line;
    const changed = Buffer.from(listed.toString().replace('"count":3', '"count":4'));
    expect(() => checkListedMac(KEY, changed, lineSeal(line))).toThrow(BlockMismatch);
    expect(() => checkListedMac(KEY, listed, 'BBBBBBBBBBBBBBBB')).toThrow(/does not match/);
    // an attacker's consistent change: another stats member, line 1 sealed anew (the seal checks, the MAC does not)
    const text = line.toString().trimEnd().replace('{\\"lines\\":3}', '{\\"lines\\":9}').replace(/"head":"[^"]*"/, `"head":"${'A'.repeat(16)}"`);
    const resealed = Buffer.from(sealHeader(text));
    const padded = Buffer.concat([resealed, Buffer.alloc(line.length - resealed.length, 0x20)]);
    checkHeaderSeal(padded, blocksOf(padded), size);
    expect(() => checkLineMac(KEY, padded)).toThrow(/does not match/);
  });

  it('is absent without a key, and such a line is refused by a reader with one', async () => {
    const { line } = await written(null);
    expect(line.toString()).not.toContain('"mac"');
    expect(() => checkLineMac(KEY, line)).toThrow(/has no MAC: .*unset LRO_STORE_KEY to read it unchecked/);
    expect(storeKey({})).toBeNull();
    expect(storeKey({ LRO_STORE_KEY: '' })).toBeNull();
  });
});
