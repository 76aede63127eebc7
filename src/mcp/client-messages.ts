// What a client sends that the SDK would not answer, answered as JSON-RPC says: a line that is not JSON (-32700),
// a request that is not one (-32600), a tools/call whose params or arguments are not objects (-32602), a message
// larger than lro takes. The SDK drops the first three without a word (or answers -32603 with a dump of its
// schema) and closes the connection on the last; a client then waits for an answer that never comes.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { formatBytes } from '../units.js';

/** A JSON-RPC error response; `id` is null when the request's id could not be read. */
export interface ErrorReply {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string };
}

/** A client's line: the message to handle, or the error to answer (null: nothing to answer, a notification). */
export type Received = { message: JSONRPCMessage } | { reply: ErrorReply | null };

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is string | number => typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));

function reply(id: string | number | null, code: number, message: string): ErrorReply {
  return { jsonrpc: '2.0', id, error: { code, message: `lro: ${message}` } };
}

/** A line from the client as a message, or the answer to a line that is not one. */
export function receive(line: string): Received {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { reply: reply(null, PARSE_ERROR, 'parse error: a message must be one line of JSON (a JSON-RPC 2.0 request)') };
  }
  const bad = isObject(value) ? toolCallProblem(value) : null;
  if (bad) return bad;
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return { message: parsed.data };
  if (!isObject(value)) return { reply: reply(null, INVALID_REQUEST, 'invalid request: a message must be a JSON object') };
  if (!isId(value.id)) return { reply: value.method !== undefined && !('id' in value) ? null : reply(null, INVALID_REQUEST, 'invalid request: no valid id') };
  if (isObject(value.params) || value.params === undefined) {
    return { reply: reply(value.id, INVALID_REQUEST, 'invalid request: a request has jsonrpc "2.0", an id, a method (a string) and params (an object)') };
  }
  return { reply: reply(value.id, INVALID_PARAMS, `invalid params: params of ${String(value.method)} must be an object`) };
}

/** The answer to a tools/call whose params or arguments are not objects, or null when they are. */
export function toolCallProblem(message: Record<string, unknown>): { reply: ErrorReply } | null {
  if (message.method !== 'tools/call' || !isId(message.id)) return null;
  const params = message.params;
  if (!isObject(params)) return { reply: reply(message.id, INVALID_PARAMS, 'invalid params: tools/call params must be an object: {"name": TOOL, "arguments": {...}}') };
  if (typeof params.name !== 'string') return { reply: reply(message.id, INVALID_PARAMS, 'invalid params: tools/call needs name, the tool to call (a string)') };
  if (params.arguments !== undefined && !isObject(params.arguments)) {
    return { reply: reply(message.id, INVALID_PARAMS, `invalid params: the arguments of ${params.name.slice(0, 100)} must be an object of named arguments`) };
  }
  return null;
}

/** The id of a message of which only the start and the end were kept (`{"jsonrpc":"2.0","id":7,…` or `…,"id":7}`). */
function idOf(head: string, tail: string): string | number | null {
  const m = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/.exec(head) ?? /[{,]\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/.exec(tail);
  if (!m) return null;
  const id = JSON.parse(m[1]) as unknown;
  return isId(id) ? id : null;
}

/** The answer to a message larger than `max` bytes, which was not read: to its id when that could be found. */
export function oversizedReply(o: { head: string; tail: string; bytes: number }, max: number): ErrorReply {
  return reply(
    idOf(o.head, o.tail),
    INVALID_REQUEST,
    `a message of ${formatBytes(o.bytes)} was refused, more than the ${formatBytes(max)} lro reads: send less (store a larger output with \`lro offload\` in a shell and pass its id)`,
  );
}

/**
 * Answers, on a transport that parses messages itself (Streamable HTTP), a tools/call whose params or arguments
 * are not objects, before the SDK answers it -32603 with a dump of its schema. Call after connecting the server.
 */
export function guardToolCalls(transport: Transport): void {
  const handle = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const bad = toolCallProblem(message as unknown as Record<string, unknown>);
    if (bad) void transport.send(bad.reply as unknown as JSONRPCMessage).catch(() => undefined);
    else handle?.(message, extra);
  };
}
