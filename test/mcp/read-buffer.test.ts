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

describe('authorized', () => {
  it('takes exactly "Bearer <token>"', () => {
    expect(authorized('Bearer s3cret', 's3cret')).toBe(true);
    expect(authorized('bearer s3cret', 's3cret')).toBe(true);
    for (const h of [undefined, '', 'Bearer', 'Bearer s3cre', 'Bearer s3cretX', 'Basic s3cret', 's3cret', 'Bearer s3cret extra']) {
      expect(authorized(h, 's3cret'), String(h)).toBe(false);
    }
  });
});
