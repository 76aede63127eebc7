// End-to-end: readers on results with one very long record, or many records, stay bounded: `read` shows a
// window of a long record without tokenizing or holding it, `read --tail` and `count` (no --by) do not scan the
// file, `cat` streams a long line. Each run is traced (test/helpers/read-trace.mjs): bytes read, peak RSS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cleanup, lro, tempDir } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';
import { traced as tracedIn } from '../helpers/traced.js';

const MB = 1 << 20;

let root: string;
let env: Record<string, string>;
beforeAll(() => {
  root = tempDir();
  env = { LRO_DIR: join(root, 'store') };
});
afterAll(() => cleanup(root));

async function store(input: Buffer, format = 'auto'): Promise<string> {
  const r = await lroHere(['offload', '--force', '--format', format], { input, env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.out).id as string;
}


const traced = (args: string[]) => tracedIn(args, env, root);

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

  it('read --max-tokens 0 prints a long record whole, decoded a piece at a time, the characters exact', () => {
    // 40 MB of escapes (tab, quote, backslash) and characters of 2 and 4 bytes, so pieces end inside escapes and
    // characters. Made, read and compared by a shell, with hashes: a test process holding the record would pass
    // its peak memory to every lro it starts after (a forked child's peak counts its parent's).
    const make = `const u = 'é\\t"x\\\\y 😀 '; const t = u.repeat(Math.ceil(40 * 2 ** 20 / Buffer.byteLength(u)));
      process.stdout.write(process.argv[1] === 'in' ? 'short\\n' + t + '\\nend\\n' : '1: short\\n2: ' + t + '\\n3: end\\n')`;
    const script = [
      `node -e "$MAKE" in > "$DIR/in.txt"`,
      `id=$(node "$BIN" offload --force --format text < "$DIR/in.txt" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).id))')`,
      `LRO_READ_TRACE="$DIR/long.trace" node --import "$TRACE" "$BIN" read "$id" --max-tokens 0 | sha256sum`,
      `node -e "$MAKE" want | sha256sum`,
      `cat "$DIR/long.trace"`,
    ].join('\n');
    const r = spawnSync('bash', ['-ec', script], {
      env: { ...process.env, ...env, MAKE: make, DIR: root, BIN, TRACE: join(__dirname, '../helpers/read-trace.mjs') },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    const [got, want, trace] = r.stdout.trim().split('\n');
    expect(got).toBe(want);
    // before: the record held as one string and copied, 265 MB for this one
    expect(Number(trace.split(' ')[1]) / 1024).toBeLessThan(150);
  }, 120_000);

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

  it('count without --by answers from the header, counting the lines once and decoding no record', async () => {
    const r = await traced(['count', id]);
    expect([r.code, r.out]).toEqual([0, '199998\n']);
    expect(r.stderr).toMatch(/^lro: skipped 2 records that are not JSON/);
    expect(r.read).toBeLessThan(size + (96 << 10)); // one pass of the newline counter and line 1's read (64 KB)
    expect((await traced(['count', id, '--records', '100001:', '--json'])).out).toBe('{"count":99999}\n');
    expect((await traced(['count', id, '--records', '1:10'])).out).toBe('10\n');
  });

  it('count without --by still tells a result cut short or added to from its header', async () => {
    const small = await store(Buffer.from('{"a":1}\n{"a":2}\n{"a":3}\n'), 'jsonl');
    const file = join(env.LRO_DIR, readdirSync(env.LRO_DIR).find((f) => f.endsWith(`${small}.jsonl`))!);
    const whole = readFileSync(file);
    writeFileSync(file, whole.subarray(0, whole.length - 8)); // the last record gone
    const cut = await lro(['count', small], { env });
    expect([cut.code, cut.out]).toEqual([2, '']);
    expect(cut.stderr).toMatch(/^lro: .*truncated: header says 3 records, file has 2/);
    writeFileSync(file, Buffer.concat([whole, Buffer.from('{"a":4}\n')]));
    const added = await lro(['count', small], { env });
    expect([added.code, added.out]).toEqual([2, '']);
    expect(added.stderr).toMatch(/more records than its header says \(3\)/);
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
