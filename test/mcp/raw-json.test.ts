// HttpTextKeeper: an HTTP upstream's answers keep the text they came as, whatever the chunks of an SSE stream,
// and only where the message the transport hands on is the one the text holds.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasChangingNumber, HttpTextKeeper, rawText } from '../../src/mcp/raw-json.js';

const EXACT = '{"jsonrpc":"2.0","id":7,"result":{"n":9007199254740993,"neg":-0,"one":1.0,"hundred":1E+2}}';

/** A keeper over a server that answers with `body` in these chunks, and what the transport reads from it. */
async function through(type: string, chunks: string[]): Promise<{ keeper: HttpTextKeeper; read: string }> {
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      for (const x of chunks) c.enqueue(new TextEncoder().encode(x));
      c.close();
    },
  });
  const keeper = new HttpTextKeeper(async () => new Response(stream, { status: 200, headers: { 'content-type': type, 'mcp-session-id': 's1' } }));
  const res = await keeper.fetch('http://127.0.0.1/mcp');
  expect(res.headers.get('mcp-session-id')).toBe('s1');
  return { keeper, read: await res.text() };
}

describe('HttpTextKeeper', () => {
  it('notes an SSE answer cut anywhere (CRLF split between chunks, data over two lines) and passes the bytes on', async () => {
    const half = EXACT.indexOf('"result"'); // data lines are joined by \n: cut where JSON takes white space
    const sse = `: comment\r\nevent: message\r\nid: 1\r\ndata: ${EXACT.slice(0, half)}\r\ndata: ${EXACT.slice(half)}\r\n\r\n`;
    for (let cut = 1; cut < sse.length; cut += 7) {
      const { keeper, read } = await through('text/event-stream', [sse.slice(0, cut), sse.slice(cut)]);
      expect(read).toBe(sse);
      const message = JSON.parse(EXACT.slice(0, half) + '\n' + EXACT.slice(half));
      keeper.adopt(message);
      expect(rawText(message)).toBe(`${EXACT.slice(0, half)}\n${EXACT.slice(half)}`);
    }
  });

  it('notes a long answer that arrives in many chunks', async () => {
    const big = `{"jsonrpc":"2.0","id":9,"result":{"n":9007199254740993,"text":"${'x'.repeat(4 << 20)}"}}`;
    const sse = `event: message\r\ndata: ${big}\r\n\r\n`;
    const chunks: string[] = [];
    for (let i = 0; i < sse.length; i += 16 << 10) chunks.push(sse.slice(i, i + (16 << 10)));
    const { keeper, read } = await through('text/event-stream', chunks);
    expect(read.length).toBe(sse.length);
    const message = JSON.parse(big);
    keeper.adopt(message);
    expect(rawText(message)).toBe(big);
  });

  it('notes a JSON answer; gives a text only to the same message, once', async () => {
    const { keeper, read } = await through('application/json', [EXACT]);
    expect(read).toBe(EXACT);
    const other = { jsonrpc: '2.0', id: 7, result: { n: 1 } };
    keeper.adopt(other);
    expect(rawText(other)).toBeUndefined();
    const again = await through('application/json', [EXACT]);
    const same = JSON.parse(EXACT);
    again.keeper.adopt(same);
    expect(rawText(same)).toBe(EXACT);
    const later = JSON.parse(EXACT);
    again.keeper.adopt(later);
    expect(rawText(later)).toBeUndefined();
  });

  it('notes nothing whose numbers print the same, nor an event of another type', async () => {
    const plain = '{"jsonrpc":"2.0","id":3,"result":{"n":12,"x":0.5}}';
    const { keeper } = await through('text/event-stream', [`data: ${plain}\n\nevent: other\ndata: ${EXACT}\n\n`]);
    const [a, b] = [JSON.parse(plain), JSON.parse(EXACT)];
    keeper.adopt(a);
    keeper.adopt(b);
    expect([rawText(a), rawText(b)]).toEqual([undefined, undefined]);
  });
});

describe('hasChangingNumber', () => {
  it('reads a 9 MB string without overflowing the stack (a regex did: RangeError ended the session)', () => {
    const big = `{"content":[{"type":"text","text":${JSON.stringify('x\\"y'.repeat(2_500_000))}}],"n":1}`;
    expect(big.length).toBeGreaterThan(9_000_000);
    expect(hasChangingNumber(big)).toBe(false);
    expect(hasChangingNumber(big.replace('"n":1', '"n":9007199254740993'))).toBe(true);
  });

  it('agrees with the regex it replaced on random JSON with numbers written every way', () => {
    const OLD = /"(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*/g;
    const old = (t: string) => [...t.matchAll(OLD)].some((m) => m[0].charCodeAt(0) !== 0x22 && String(Number(m[0])) !== m[0]);
    const num = fc.constantFrom('1', '-0', '1.0', '1E+2', '0.10', '9007199254740993', '12', '-3.5', '2e-7');
    const str = fc.string({ unit: fc.constantFrom('a', '"', '\\', '1.0', ' ', 'é') }).map((t) => JSON.stringify(t));
    const value = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, num, str, fc.array(tie('v'), { maxLength: 4 }).map((a) => `[${a.join(',')}]`), fc.array(fc.tuple(str, tie('v')), { maxLength: 4 }).map((e) => `{${e.map(([k, v]) => `${k}:${v}`).join(',')}}`)),
    })).v as fc.Arbitrary<string>;
    fc.assert(
      fc.property(value, (t) => {
        expect(hasChangingNumber(t), t).toBe(old(t));
      }),
      { numRuns: 2000, seed: 7 },
    );
  });
});
