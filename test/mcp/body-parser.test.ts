// BodyParser: a request's JSON, parsed where it is while small and on a thread of its own, fed chunk by chunk,
// once large; with sharing, the long strings of a tools/call's arguments come back as shared memory that
// withStrings makes strings again, byte for byte. Nothing else a client sends is changed.
import { afterEach, describe, expect, it } from 'vitest';
import { BodyNotJson, BodyParser, SHARED_CHARS, withStrings } from '../../src/mcp/body-parser.js';

let parser: BodyParser;
afterEach(() => parser?.close());

/** The body's value, its bytes given in chunks of `size` as a socket would. */
async function parse(p: BodyParser, json: string, size = 64 * 1024): Promise<unknown> {
  const bytes = Buffer.from(json);
  const body = p.body();
  for (let at = 0; at < bytes.length; at += size) body.add(bytes.subarray(at, at + size));
  return body.end();
}

const call = (args: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'lro_offload', arguments: args } });
// multi-byte characters across every chunk boundary
const long = 'é€😀 line\n'.repeat(Math.ceil((3 * SHARED_CHARS) / 10));

describe('BodyParser', () => {
  it('parses a small body and a large one alike', async () => {
    parser = new BodyParser();
    expect(await parse(parser, '{"a": [1, "b"]}')).toEqual({ a: [1, 'b'] });
    const big = { a: 'x'.repeat(400_000), n: [1, 2, 3] };
    expect(await parse(parser, JSON.stringify(big), 1000)).toEqual(big);
  });

  it('refuses a body that is not JSON, small or large, and parses the next', async () => {
    parser = new BodyParser(true);
    await expect(parse(parser, '{"a": ')).rejects.toBeInstanceOf(BodyNotJson);
    await expect(parse(parser, `{"a": "${'x'.repeat(400_000)}"`)).rejects.toBeInstanceOf(BodyNotJson);
    expect(await parse(parser, JSON.stringify(call({ content: long })))).toMatchObject({ id: 7 });
  });

  it("shares a tools/call's long strings, which withStrings makes strings again", async () => {
    parser = new BodyParser(true);
    const args = { content: long, nested: { list: ['short', long] }, short: 'é' };
    const m = (await parse(parser, JSON.stringify(call(args)), 4099)) as ReturnType<typeof call>;
    expect(m.params.arguments.content).toBeInstanceOf(SharedArrayBuffer);
    expect((m.params.arguments.nested as { list: unknown[] }).list[1]).toBeInstanceOf(SharedArrayBuffer);
    expect(m.params.arguments.short).toBe('é');
    expect(withStrings(m.params.arguments)).toEqual(args);
    // in a batch too
    const batch = (await parse(parser, JSON.stringify([call(args), call({ content: 'x' })]))) as ReturnType<typeof call>[];
    expect(batch[0].params.arguments.content).toBeInstanceOf(SharedArrayBuffer);
    expect(withStrings(batch[0].params.arguments)).toEqual(args);
  });

  it('shares nothing but tools/call arguments, and nothing without sharing', async () => {
    const other = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: long } } };
    const result = { jsonrpc: '2.0', id: 2, result: { content: long } };
    parser = new BodyParser(true);
    expect(await parse(parser, JSON.stringify(other))).toEqual(other);
    expect(await parse(parser, JSON.stringify(result))).toEqual(result);
    await parser.close();
    parser = new BodyParser(false);
    expect(await parse(parser, JSON.stringify(call({ content: long })))).toEqual(call({ content: long }));
  });

  it('a dropped body leaves nothing behind: the next ones parse', async () => {
    parser = new BodyParser(true);
    const dropped = parser.body();
    dropped.add(Buffer.alloc(300_000, 0x20));
    dropped.drop();
    expect(await parse(parser, JSON.stringify({ a: 'y'.repeat(300_000) }))).toEqual({ a: 'y'.repeat(300_000) });
  });
});
