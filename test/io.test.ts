// readStdin: fd 0 in chunks, the next read under way while a chunk is used (issue 25: the copy from the pipe no
// longer waits for the offload, nor the offload for it), every chunk whole and in order.
import { beforeEach, describe, expect, it } from 'vitest';
import { readStdin, type ReadFd } from '../src/io.js';

/** What fd 0 holds, handed out in reads of at most `max` bytes, each answered on a later turn. */
const fd0 = { data: Buffer.alloc(0), at: 0, max: 1 << 20, reads: 0 };

// A stand-in for node:fs's read, given to readStdin (a module mock of node:fs would not reach an io.ts another
// test file of the same worker had loaded already: the suite runs with isolate false)
const read: ReadFd = (fd, buf, off, len, _pos, done) => {
  if (fd !== 0) throw new Error('only fd 0 is read here');
  fd0.reads++;
  const n = Math.min(len, fd0.max, fd0.data.length - fd0.at);
  fd0.data.copy(buf, off, fd0.at, fd0.at + n);
  fd0.at += n;
  setImmediate(() => done(null, n));
};

beforeEach(() => {
  fd0.at = 0;
  fd0.reads = 0;
});

describe('readStdin', () => {
  it('has the next read under way when it hands out a chunk', async () => {
    fd0.data = Buffer.alloc(3 << 20, 'x');
    const chunks = readStdin(read);
    const first = await chunks.next();
    expect(first.value?.length).toBe(1 << 20);
    expect(fd0.reads).toBe(2); // the first chunk's, and the next one's, started before the chunk was used
    await chunks.return(undefined);
  });

  it('gives every byte once and in order, each chunk intact until the next is asked for', async () => {
    fd0.data = Buffer.from(Array.from({ length: 300_000 }, (_, i) => `${i}\n`).join(''));
    fd0.max = 100_000; // short reads, as from a pipe
    const copies: Buffer[] = [];
    for await (const chunk of readStdin(read)) {
      await new Promise((r) => setImmediate(r)); // the read ahead lands meanwhile, in the other buffer
      copies.push(Buffer.from(chunk));
    }
    expect(Buffer.concat(copies).equals(fd0.data)).toBe(true);
    expect(copies.length).toBe(Math.ceil(fd0.data.length / 100_000));
    fd0.max = 1 << 20;
  });
});
