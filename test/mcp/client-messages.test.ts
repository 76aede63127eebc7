// The answers lro gives to what a client sends that is not a message it can handle.
import { describe, expect, it } from 'vitest';
import { oversizedReply, receive } from '../../src/mcp/client-messages.js';

const errorOf = (line: string) => {
  const r = receive(line);
  if (!('reply' in r) || !r.reply) throw new Error(`no error reply for ${line}`);
  return r.reply;
};

describe('receive', () => {
  it('passes a valid message through', () => {
    const m = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'lro_ls', arguments: {} } };
    expect(receive(JSON.stringify(m))).toEqual({ message: m });
  });

  it('answers a line that is not JSON -32700, with no id', () => {
    expect(errorOf('{"jsonrpc":')).toMatchObject({ id: null, error: { code: -32700 } });
  });

  it('answers tools/call with params or arguments that are not objects -32602, in one line', () => {
    for (const params of ['x', 5, null, [1], { name: 3 }, { name: 'lro_ls', arguments: 'a' }, { name: 'lro_ls', arguments: [] }]) {
      const r = errorOf(JSON.stringify({ jsonrpc: '2.0', id: 'a', method: 'tools/call', params }));
      expect(r.id).toBe('a');
      expect(r.error.code, JSON.stringify(params)).toBe(-32602);
      expect(r.error.message).toMatch(/^lro: invalid params: [^\n]+$/);
    }
  });

  it('answers other invalid requests -32600 or -32602 to their id; an invalid notification gets no answer', () => {
    expect(errorOf(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping', params: 'x' })).error.code).toBe(-32602);
    expect(errorOf(JSON.stringify({ jsonrpc: '1.0', id: 2, method: 'ping' }))).toMatchObject({ id: 2, error: { code: -32600 } });
    expect(errorOf('[1,2]')).toMatchObject({ id: null, error: { code: -32600 } });
    expect(receive(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/x', params: 'x' }))).toEqual({ reply: null });
  });
});

describe('oversizedReply', () => {
  it('answers to the id at the start or at the end of the message, else to no id', () => {
    const at = (head: string, tail: string) => oversizedReply({ head, tail, bytes: 70_000_000 }, 67_108_864).id;
    expect(at('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a', 'aaa"}}')).toBe(7);
    expect(at('{"method":"tools/call","params":{"a', 'aaa"}},"jsonrpc":"2.0","id":"x-1"}')).toBe('x-1');
    expect(at('{"method":"tools/call","params":{"a', 'aaa","id":3}}')).toBeNull(); // an id inside params is not the message's
    expect(oversizedReply({ head: '', tail: '', bytes: 70_000_000 }, 67_108_864).error).toEqual({
      code: -32600,
      message: 'lro: a message of 70 MB was refused, more than the 67 MB lro reads: send less (store a larger output with `lro offload` in a shell and pass its id)',
    });
  });
});
