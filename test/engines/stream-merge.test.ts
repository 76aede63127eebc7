// The merge of a command's two streams: whole lines in order of arrival, which ones came from stderr, and the
// split back into the two streams for a small output.
import { describe, expect, it } from 'vitest';
import { HELD_LIMIT, StreamMerger } from '../../src/engines/stream-merge.js';
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
