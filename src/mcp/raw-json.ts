// The proxy passes an upstream's message on exactly as it came when it changes nothing in it. Parsing and
// printing again is not the identity: 9007199254740993 (above 2^53) comes out as 9007199254740992, -0 as 0, 1.0
// as 1. So the text of each message read from a stdio upstream is kept beside the parsed message (the message
// object is the key: a message the proxy rebuilds has no text and is printed anew), and the client's transport
// writes that text in place of JSON.stringify's. Node 20 has no JSON.rawJSON that would do the same losslessly.
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LineReadBuffer } from './read-buffer.js';

/** Messages longer than this are not kept as text: they are far over any result cap and get replaced anyway. */
const MAX_KEPT_CHARS = 16 << 20;

const texts = new WeakMap<object, string>();

/** The text a message was read from, while the message object is the one read. */
export function rawText(message: object): string | undefined {
  return texts.get(message);
}

/** A message as JSON text: as it came, if it came as text, else printed. */
export function messageJson(message: object): string {
  return texts.get(message) ?? JSON.stringify(message);
}

/** A LineReadBuffer that keeps each message's text (for the upstream's side of the proxy). */
export class TextKeepingReadBuffer extends LineReadBuffer {
  protected override parse(text: string): JSONRPCMessage {
    const message = super.parse(text);
    if (text.length <= MAX_KEPT_CHARS && typeof message === 'object' && message !== null) texts.set(message, text);
    return message;
  }
}

type SseWriter = (
  controller: { enqueue(chunk: Uint8Array): void },
  encoder: { encode(text: string): Uint8Array },
  message: JSONRPCMessage,
  eventId?: string,
) => boolean;

/** A Streamable HTTP server transport whose SSE events carry a message's kept text (the SDK's event format). */
export function sendKeptTextOnHttp(transport: StreamableHTTPServerTransport): StreamableHTTPServerTransport {
  type Inner = { writeSSEEvent?: SseWriter; onerror?: (e: Error) => void };
  const inner = (transport as unknown as { _webStandardTransport?: Inner })._webStandardTransport;
  const write = inner?.writeSSEEvent;
  if (!inner || typeof write !== 'function') return transport; // another SDK: messages are printed anew
  inner.writeSSEEvent = (controller, encoder, message, eventId) => {
    const text = rawText(message);
    if (text === undefined) return write.call(inner, controller, encoder, message, eventId);
    try {
      controller.enqueue(encoder.encode(`event: message\n${eventId ? `id: ${eventId}\n` : ''}data: ${text}\n\n`));
      return true;
    } catch (e) {
      inner.onerror?.(e as Error);
      return false;
    }
  };
  return transport;
}
