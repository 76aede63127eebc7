// End-to-end: readers on results with one very long record, or many records, stay bounded: `read` shows a
// window of a long record without tokenizing or holding it, `read --tail` and `count` (no --by) do not scan the
// file, `cat` streams a long line. Each run is traced (test/helpers/read-trace.mjs): bytes read, peak RSS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, lro, tempDir } from '../helpers/cli.js';

const TRACE = join(__dirname, '../helpers/read-trace.mjs');
const MB = 1 << 20;

let root: string;
let env: Record<string, string>;
let traces = 0;
beforeAll(() => {
  root = tempDir();
  env = { LRO_DIR: join(root, 'store') };
});
afterAll(() => cleanup(root));

async function store(input: Buffer, format = 'auto'): Promise<string> {
  const r = await lro(['offload', '--force', '--format', format], { input, env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.out).id as string;
}

/** Runs lro traced: its output, the bytes it read with readSync and its peak RSS in MB. */
async function traced(args: string[]): Promise<{ out: string; code: number | null; stderr: string; read: number; rssMb: number }> {
  const trace = join(root, `trace-${traces++}`);
  const r = await lro(args, { env: { ...env, LRO_READ_TRACE: trace }, nodeArgs: ['--import', TRACE], timeout: 60_000 });
  const [read, rss] = readFileSync(trace, 'utf8').split(' ').map(Number);
  return { out: r.out, code: r.code, stderr: r.stderr, read, rssMb: rss / 1024 };
}

describe('one very long record', () => {
  // 12 MB of one character: one pre-token of 12 million, the tokenizer's worst case; past the readers' 8 MB hold
  const line = Buffer.alloc(12 * MB, 'a');
  let id: string;
  beforeAll(async () => {
    id = await store(Buffer.concat([line, Buffer.from('\n')]), 'text');
  }, 60_000);

  it('read shows a window of it without tokenizing or holding it whole', async () => {
    const r = await traced(['read', id]);
    expect(r.code, r.stderr).toBe(0);
    const [head, note] = r.out.trimEnd().split('\n');
    const m = /^1:\[0-(\d+)\/12582912\] (a+)$/.exec(head);
    expect(m, head.slice(0, 80)).not.toBeNull();
    expect(m![2].length).toBe(Number(m![1]));
    expect(note).toBe(`[lro: record 1 has 12,582,912 characters, more than --max-tokens 2000 allows; showed characters 0-${m![1]}; next: lro read ${id} --records 1 --columns ${m![1]}:]`);
    // before: the whole record tokenized (a heap of 12 million parts) and held several times, about 450 MB
    expect(r.rssMb).toBeLessThan(150);
  }, 60_000);

  it('read --columns and a window from the middle agree with the record', async () => {
    const r = await traced(['read', id, '--columns', '12582900:']);
    expect(r.out).toBe(`1:[12582900-12582912/12582912] ${'a'.repeat(12)}\n`);
    expect(r.rssMb).toBeLessThan(150);
  }, 60_000);

  it('cat streams it back exactly', async () => {
    const r = await lro(['cat', id], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.equals(Buffer.concat([line, Buffer.from('\n')]))).toBe(true);
  }, 60_000);
});

describe('a record of a few megabytes, held', () => {
  it('read refuses it from its length, not by counting its tokens', async () => {
    // 6 MB of one character, under the readers' hold: counting it all took seconds and a heap of 6 million parts
    const id = await store(Buffer.concat([Buffer.alloc(6 * MB, 'b'), Buffer.from('\n')]), 'text');
    const r = await traced(['read', id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.out).toMatch(/^1:\[0-\d+\/6291456\] bbbb/);
    expect(r.out).toMatch(/more than --max-tokens 2000 allows; showed characters 0-\d+; next: /);
    expect(r.rssMb).toBeLessThan(150);
  }, 60_000);
});

describe('many records', () => {
  // 200,000 JSON records (about 6 MB), two of them lines that are not JSON
  const lines = Array.from({ length: 200_000 }, (_, i) => (i === 10 || i === 150_000 ? `not json ${i}` : JSON.stringify({ i, s: `v${i % 7}` })));
  let id: string;
  let size: number;
  beforeAll(async () => {
    const input = Buffer.from(`${lines.join('\n')}\n`);
    size = input.length;
    id = await store(input, 'jsonl');
  }, 60_000);

  it('count without --by answers from the header, without reading the records', async () => {
    const r = await traced(['count', id]);
    expect([r.code, r.out]).toEqual([0, '199998\n']);
    expect(r.stderr).toMatch(/^lro: skipped 2 records that are not JSON/);
    expect(r.read).toBeLessThan(64 << 10); // the header line only; before: the whole file
    expect((await traced(['count', id, '--records', '100001:', '--json'])).out).toBe('{"count":99999}\n');
    expect((await traced(['count', id, '--records', '1:10'])).out).toBe('10\n');
  });

  it('read --tail reads from the end of the file', async () => {
    const r = await traced(['read', id, '--tail', '2']);
    expect(r.out).toBe(`199999: ${lines[199_998]}\n200000: ${lines[199_999]}\n`);
    expect(r.read).toBeLessThan(size / 3); // before: the whole file, from the start
    expect((await lro(['read', id, '--tail', '50001', '--max-tokens', '0'], { env })).out.split('\n')[0]).toBe(`150000: ${lines[149_999]}`);
    expect((await lro(['read', id, '--tail', '300000', '--raw', '--max-tokens', '0'], { env })).out).toBe(`${lines.join('\n')}\n`);
  });

  it('cat gives the original back', async () => {
    const r = await lro(['cat', id], { env });
    expect(r.stdout.toString()).toBe(`${lines.join('\n')}\n`);
  });
});
