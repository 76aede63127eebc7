// End-to-end: `lro read` ranges, budgets and continuation lines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';
import { corpusFile } from '../helpers/corpus.js';
import { followPages, offloaded } from '../helpers/pages.js';

let root: string;
let env: Record<string, string>;
beforeAll(() => {
  root = tempDir();
  env = { LRO_DIR: join(root, 'store') };
});
afterAll(() => cleanup(root));

const logLines = () => readFileSync(corpusFile('loghub/HDFS_2k.log'), 'utf8').replace(/\r\n/g, '\n').split('\n').slice(0, 2000);

describe('lro read', () => {
  it('prints numbered records, a range, the head and the tail', async () => {
    const id = await offloaded(corpusFile('loghub/HDFS_2k.log'), env);
    const lines = logLines();
    const r = await lro(['read', id, '--records', '200:203'], { env });
    expect(r.code).toBe(0);
    expect(r.out).toBe(lines.slice(199, 203).map((l, i) => `${200 + i}: ${l}\n`).join(''));
    expect((await lro(['read', id, '--lines', '5'], { env })).out).toBe(`5: ${lines[4]}\n`);
    expect((await lro(['read', id, '--head', '2'], { env })).out).toBe(`1: ${lines[0]}\n2: ${lines[1]}\n`);
    expect((await lro(['read', id, '--tail', '2', '--raw'], { env })).out).toBe(`${lines[1998]}\n${lines[1999]}\n`);
    expect((await lro(['read', 'last', '--records', '1999:5000'], { env })).out.split('\n').filter(Boolean)).toHaveLength(2);
    // as head -n 0 and tail -n 0: nothing, and no error
    for (const opt of ['--head', '--tail']) {
      const zero = await lro(['read', id, opt, '0'], { env });
      expect([zero.code, zero.out, zero.stderr], opt).toEqual([0, '', '']);
    }
  });

  it('cuts at the budget with the exact next command, and the pages cover every record once', { tags: ['soak'] }, async () => {
    const id = await offloaded(corpusFile('loghub/Apache_2k.log'), env);
    const first = await lro(['read', id], { env });
    expect(first.out).toMatch(/\n\[lro: showed records 1-\d+ of 2,000 \(--max-tokens 2000\); next: lro read \S+ --records \d+:\]\n$/);
    const { records, pages } = await followPages(['read', id, '--max-tokens', '500'], env);
    expect(pages).toBeGreaterThan(20);
    const lines = readFileSync(corpusFile('loghub/Apache_2k.log'), 'utf8').split('\r\n');
    expect(records.map((r) => r.n)).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
    expect(records.map((r) => r.text)).toEqual(lines);
  });

  it('keeps the end of a range in the continuation', async () => {
    const id = await offloaded(corpusFile('loghub/Apache_2k.log'), env);
    const r = await lro(['read', id, '--records', '100:400', '--max-tokens', '300'], { env });
    expect(r.out).toMatch(/--records \d+:400 --max-tokens 300\]\n$/);
  });

  it('shows a record larger than the budget as a window of characters', async () => {
    const big = JSON.stringify({ data: Array.from({ length: 50_000 }, (_, i) => ({ i, v: `value-${i}` })) });
    const r0 = await lro(['offload', '--format', 'jsonl'], { input: `${big}\n`, env });
    const id = JSON.parse(r0.out).id;
    const r = await lro(['read', id], { env });
    expect(r.code).toBe(0);
    const [head, note] = r.out.trimEnd().split('\n');
    expect(head).toMatch(/^1:\[0-\d+\/\d+\] \{"data":\[\{"i":0,/);
    expect(head.length).toBeLessThan(12_000);
    const next = /next: (lro read .*)\]$/.exec(note)![1];
    expect(next).toMatch(new RegExp(`^lro read ${id} --records 1 --columns \\d+:$`));
    const start = Number(/--columns (\d+):/.exec(next)![1]);
    const second = await lro(next.split(' ').slice(1), { env });
    expect(second.out.startsWith(`1:[${start}-`)).toBe(true);
    expect(second.out).toContain(big.slice(start, start + 200));
  });

  it('reads characters of the original with --chars', async () => {
    const id = await offloaded(corpusFile('loghub/HDFS_2k.log'), env);
    const text = readFileSync(corpusFile('loghub/HDFS_2k.log'), 'utf8');
    const r = await lro(['read', id, '--chars', '100:300'], { env });
    expect(r.out).toBe(text.slice(100, 300));
    const cut = await lro(['read', id, '--chars', '0:', '--max-tokens', '100'], { env });
    expect(cut.out).toMatch(/\[lro: showed characters 0-\d+.*; next: lro read \S+ --chars \d+: --max-tokens 100\]\n$/);
  });

  it('--chars on a result longer than it reads says no total it has not counted', async () => {
    // 12 MB of text: read stops decoding once it holds a megabyte past A (more than any budget shows), so the
    // characters it saw are not the original's (it said "of 8,224,100" of 12,000,000); the cut says the range shown
    // and the next command
    const line = `${'x'.repeat(99)}\n`;
    const input = line.repeat(120_000);
    const r = await lro(['offload', '--force', '--format', 'text'], { input, env });
    const id = JSON.parse(r.out).id as string;
    const cut = await lro(['read', id, '--chars', '500000:'], { env });
    expect(cut.code, cut.stderr).toBe(0);
    const note = cut.out.trimEnd().split('\n').at(-1)!;
    const total = /showed characters 500000-\d+ of ([\d,]+)/.exec(note);
    if (total) expect(Number(total[1].replace(/,/g, ''))).toBe(input.length);
    expect(note).toMatch(/^\[lro: showed characters 500000-(\d+).*; next: lro read \S+ --chars \1:\]$/);
    // and a start past a megabyte before the end is no error
    const late = await lro(['read', id, '--chars', `${input.length - 100}:`], { env });
    expect([late.code, late.out]).toEqual([0, line.repeat(1)]);
  });

  it('refuses bad ranges with exit 2 and one line', async () => {
    const id = await offloaded(corpusFile('loghub/HDFS_2k.log'), env);
    for (const args of [['--records', '10:5'], ['--records', '-3:5'], ['--records', '0:5'], ['--records', 'abc'], ['--records', '3000:3100'], ['--head', '5', '--tail', '5'], ['--chars', '9:2'], ['--max-tokens', 'lots']]) {
      const r = await lro(['read', id, ...args], { env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stdout.length).toBe(0);
    }
  });

  it('prints JSON records as stored and non-JSON jsonl lines as text', async () => {
    const input = '{"a": 1}\n{"a":2}\nnot json\n{"a":3}\n{"a":4}\n';
    const d = JSON.parse((await lroHere(['offload', '--force'], { input, env })).out);
    const r = await lro(['read', d.id], { env });
    expect(r.out).toBe('1: {"a": 1}\n2: {"a":2}\n3: not json\n4: {"a":3}\n5: {"a":4}\n');
  });
});
