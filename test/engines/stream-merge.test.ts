// The merge of a command's two streams: whole lines in order of arrival, which ones came from stderr, and the
// split back into the two streams for a small output.
import { describe, expect, it } from 'vitest';
import { HeadAndTail, HELD_LIMIT, StreamMerger } from '../../src/engines/stream-merge.js';
import { nthRecord, parseRuns, StreamMap } from '../../src/format/streams.js';

async function drain(m: StreamMerger): Promise<string> {
  const parts: Buffer[] = [];
  for await (const b of m) parts.push(b);
  return Buffer.concat(parts).toString();
}

describe('StreamMerger', () => {
  it('keeps whole lines in the order they arrived and notes the stderr ones as runs', async () => {
    const m = new StreamMerger();
    const done = drain(m);
    m.push('stdout', Buffer.from('o1\no2\n'));
    m.push('stderr', Buffer.from('e1\ne2\n'));
    m.push('stdout', Buffer.from('o3\n'));
    m.push('stderr', Buffer.from('e3\n'));
    m.end('stdout');
    m.end('stderr');
    expect(await done).toBe('o1\no2\ne1\ne2\no3\ne3\n');
    expect(m.fields()).toEqual({ stderr_lines: 3, stderr_records: '3-4,6' });
  });

  it('never lets one stream cut into a line of the other: the other waits for the end of the line', async () => {
    const m = new StreamMerger();
    const done = drain(m);
    m.push('stdout', Buffer.from('progress 1'));
    m.push('stderr', Buffer.from('warn A\nwarn'));
    m.push('stdout', Buffer.from('0%\nnext\n'));
    m.push('stderr', Buffer.from(' B\n'));
    m.end('stdout');
    m.end('stderr');
    expect(await done).toBe('progress 10%\nwarn A\nwarn B\nnext\n');
    expect(m.fields()).toEqual({ stderr_lines: 2, stderr_records: '2-3' });
  });

  it('holds no more than HELD_LIMIT of one stream while the other stays mid-line (a progress bar redrawn with \\r)', async () => {
    const m = new StreamMerger();
    let taken = 0;
    const reading = (async () => {
      for await (const b of m) taken += b.length;
    })();
    m.push('stderr', Buffer.from('progress 1%\rprogress 2%\r'));
    const line = Buffer.from(`${'x'.repeat(99)}\n`);
    for (let i = 0; i < (HELD_LIMIT / line.length) * 1.5; i++) m.push('stdout', line);
    await new Promise((r) => setImmediate(r));
    expect(taken).toBeGreaterThan(HELD_LIMIT); // it went out before stderr ended its line
    m.push('stderr', Buffer.from('done\n'));
    m.end('stdout');
    m.end('stderr');
    await reading;
    expect(m.fields().stderr_lines).toBe(2); // the mixed line (begun by stderr) and 'done'
  });

  it('splits a small output back into what each stream printed', async () => {
    const m = new StreamMerger();
    const done = drain(m);
    m.push('stderr', Buffer.from('e1\n'));
    m.push('stdout', Buffer.from('o1\no2'));
    m.end('stdout');
    m.end('stderr');
    const merged = Buffer.from(await done);
    const { stdout, stderr } = m.splitLines(merged);
    expect(stdout.toString()).toBe('o1\no2');
    expect(stderr.toString()).toBe('e1\n');
  });
});

describe('stream runs', () => {
  it('parses runs, looks records up in any order, and finds the k-th record of a stream', () => {
    const runs = parseRuns('3-5,9', 10);
    const map = new StreamMap(runs, 4);
    expect([1, 3, 5, 6, 9, 10, 4, 2].map((n) => map.streamOf(n))).toEqual(
      ['stdout', 'stderr', 'stderr', 'stdout', 'stderr', 'stdout', 'stderr', 'stdout'],
    );
    expect(nthRecord(runs, 'stderr', 4, 10)).toBe(9);
    expect(nthRecord(runs, 'stderr', 5, 10)).toBeNull();
    expect(nthRecord(runs, 'stdout', 3, 10)).toBe(6);
    expect(nthRecord(runs, 'stdout', 6, 10)).toBe(10);
    expect(nthRecord(runs, 'stdout', 7, 10)).toBeNull();
    expect(() => parseRuns('5-3', 10)).toThrow(/ascending runs/);
    expect(() => parseRuns('3,3', 10)).toThrow(/ascending runs/);
    expect(() => parseRuns('11', 10)).toThrow(/ascending runs/);
  });
});

describe('StreamMerger.segments', () => {
  // (before: a small output was given back as all of its stderr, then all of its stdout)
  it('cuts a small output where it passes from one stream to the other, in the order it came', async () => {
    const m = new StreamMerger();
    const done = drain(m);
    for (const [s, t] of [['stdout', 'o1\n'], ['stderr', 'e1\ne2\n'], ['stdout', 'o2\no3\n'], ['stderr', 'e3\n'], ['stdout', 'tail']] as const) m.push(s, Buffer.from(t));
    m.end('stdout');
    m.end('stderr');
    const merged = Buffer.from(await done);
    expect(m.segments(merged).map(([s, b]) => [s, b.toString()])).toEqual([
      ['stdout', 'o1\n'],
      ['stderr', 'e1\ne2\n'],
      ['stdout', 'o2\no3\n'],
      ['stderr', 'e3\n'],
      ['stdout', 'tail'],
    ]);
    expect(m.splitLines(merged)).toEqual({ stdout: Buffer.from('o1\no2\no3\ntail'), stderr: Buffer.from('e1\ne2\ne3\n') });
  });
});

describe('HeadAndTail', () => {
  async function* chunks(text: string, size: number): AsyncGenerator<Buffer> {
    for (let i = 0; i < text.length; i += size) yield Buffer.from(text.slice(i, i + size));
  }
  const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('');

  it('passes an output within the cap as it is', async () => {
    const text = numbered(1000);
    const k = new HeadAndTail(chunks(text, 333), 1 << 20);
    expect((await drainAll(k)).toString()).toBe(text);
    await k.done;
    expect(k.cut).toBe(false);
  });

  it('keeps the start and the last part of a larger one, whole lines, within the cap, and counts what it dropped', async () => {
    const text = numbered(100_000); // 1.1 MB
    const k = new HeadAndTail(chunks(text, 4096), 100_000, 20_000);
    const kept = (await drainAll(k)).toString();
    await k.done;
    expect(k.cut).toBe(true);
    expect(kept.length).toBeLessThanOrEqual(100_000);
    const lines = kept.split('\n').slice(0, -1);
    expect(lines.slice(0, k.headLines)).toEqual(Array.from({ length: k.headLines }, (_, i) => `line ${i + 1}`));
    const tail = lines.slice(k.headLines);
    expect(tail.at(-1)).toBe('line 100000');
    const first = Number(tail[0].split(' ')[1]);
    expect(tail).toEqual(Array.from({ length: tail.length }, (_, i) => `line ${first + i}`));
    expect(first).toBe(k.headLines + k.droppedLines + 1);
    expect(k.headBytes + k.droppedBytes + k.tailBytes).toBe(text.length);
  });

  it('renumbers the stderr records for what was kept', async () => {
    const k = new HeadAndTail(chunks(numbered(1000), 100), 2000, 500);
    await drainAll(k);
    await k.done;
    const h = k.headLines;
    const d = k.droppedLines;
    // stderr: line 1, one dropped, the first and the last kept after the gap
    const f = k.keptFields({ stderr_lines: 4, stderr_records: `1,${h + 2},${h + d + 1},1000` });
    expect(f).toEqual({ stderr_lines: 3, stderr_records: `1,${h + 1},${1000 - d}` });
  });

  it('holds only the end of one huge chunk', async () => {
    const k = new HeadAndTail(chunks('x'.repeat(5_000_000), 5_000_000), 1000, 200);
    const kept = await drainAll(k);
    expect(kept.length).toBe(1000);
    expect(k.droppedBytes).toBe(4_999_000);
  });
});

async function drainAll(it: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const b of it) parts.push(b);
  return Buffer.concat(parts);
}
