// The linear line splitter that replaces the SDK's ReadBuffer, and the bearer token check.
import { describe, expect, it } from 'vitest';
import { authorized } from '../../src/mcp/auth.js';
import { LineReadBuffer } from '../../src/mcp/read-buffer.js';

const msg = (id: number, text = 'x') => JSON.stringify({ jsonrpc: '2.0', id, result: { text } });

describe('LineReadBuffer', () => {
  it('gives the messages whatever the chunks: split anywhere, several in one, CRLF', () => {
    const wire = Buffer.from(`${msg(1)}\n${msg(2, 'é'.repeat(5000))}\r\n${msg(3)}\n`);
    for (const size of [1, 7, 64, 4096, wire.length]) {
      const b = new LineReadBuffer(1 << 20);
      const got: unknown[] = [];
      for (let i = 0; i < wire.length; i += size) {
        b.append(wire.subarray(i, i + size));
        for (let m = b.readMessage(); m; m = b.readMessage()) got.push(m);
      }
      expect(got, `chunks of ${size}`).toEqual([JSON.parse(msg(1)), JSON.parse(msg(2, 'é'.repeat(5000))), JSON.parse(msg(3))]);
    }
  });

  it('refuses a message larger than its limit, then goes on', () => {
    const b = new LineReadBuffer(100);
    expect(() => b.append(Buffer.from('y'.repeat(101)))).toThrow(/exceeded 100 bytes/);
    b.append(Buffer.from(`${msg(4)}\n`));
    expect(b.readMessage()).toEqual(JSON.parse(msg(4)));
    expect(b.readMessage()).toBeNull();
  });
});

describe('LineReadBuffer with skipOversized', () => {
  it('skips a line over its limit to its end, keeping its start, its end and its size; the lines around it stay', () => {
    const wire = Buffer.from(`${msg(1)}\n{"method":"x","params":"${'y'.repeat(5000)}","id":42}\r\n${msg(3)}\n`);
    // (the limit holds between chunks: a line that ends in the chunk it began in is taken whole)
    for (const size of [1, 100, 1999]) {
      const b = new LineReadBuffer(2000, true);
      const got: unknown[] = [];
      for (let i = 0; i < wire.length; i += size) {
        b.append(wire.subarray(i, i + size));
        for (let l = b.nextLine(); l !== null; l = b.nextLine()) got.push(l);
      }
      expect(got, `chunks of ${size}`).toEqual([
        msg(1),
        { head: expect.stringMatching(/^\{"method":"x","params":"y+$/), tail: expect.stringMatching(/^y+","id":42\}$/), bytes: 5035 }, // with its CR
        msg(3),
      ]);
      expect((got[1] as { head: string }).head.length).toBe(1024);
    }
  });
});

describe('authorized', () => {
  it('takes exactly "Bearer <token>"', () => {
    expect(authorized('Bearer s3cret', 's3cret')).toBe(true);
    expect(authorized('bearer s3cret', 's3cret')).toBe(true);
    for (const h of [undefined, '', 'Bearer', 'Bearer s3cre', 'Bearer s3cretX', 'Basic s3cret', 's3cret', 'Bearer s3cret extra']) {
      expect(authorized(h, 's3cret'), String(h)).toBe(false);
    }
  });
});
