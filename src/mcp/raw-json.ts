// The proxy passes an upstream's message on exactly as it came when it changes nothing in it. Parsing and
// printing again is not the identity: 9007199254740993 (above 2^53) comes out as 9007199254740992, -0 as 0, 1.0
// as 1. So the text of each message read from a stdio upstream is kept beside the parsed message (the message
// object is the key: a message the proxy rebuilds has no text and is printed anew), and the client's transport
// writes that text in place of JSON.stringify's. Node 20 has no JSON.rawJSON that would do the same losslessly.
// An HTTP upstream's messages are parsed by the SDK's transport, not here: HttpTextKeeper notes their texts as the
// responses stream past and gives a text to the message it is the text of.
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

/** A number's characters in JSON text (it starts with a digit or `-` outside a string). */
const NUMBER_CHAR = /[\d.eE+-]/;

/**
 * Whether JSON text holds a number JavaScript would print otherwise (above 2^53, -0, 1.0, 1E+2, 0.10). Read by
 * hand, strings skipped whole by indexOf: a regex for a string token (`"(?:[^"\\]|\\.)*"`) overflowed V8's
 * stack on a string of 9 MB (RangeError), which ended the proxy's session.
 */
export function hasChangingNumber(text: string): boolean {
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // the closing quote: the next one not escaped (an odd run of backslashes before it escapes it)
      let q = text.indexOf('"', i + 1);
      for (;;) {
        if (q < 0) return false;
        let b = q - 1;
        while (text.charCodeAt(b) === 0x5c) b--;
        if ((q - 1 - b) % 2 === 0) break;
        q = text.indexOf('"', q + 1);
      }
      i = q + 1;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      while (j < text.length && NUMBER_CHAR.test(text[j])) j++;
      const token = text.slice(i, j);
      if (String(Number(token)) !== token) return true;
      i = j;
    } else i++;
  }
  return false;
}

/**
 * Whether two parsed JSON values are the same value, whatever the order of their objects' keys: the SDK's schema
 * makes a new object with its own keys first (`_meta` written after `content` comes out before it), so comparing
 * the two printed missed every such answer and printed its numbers anew. Too deep to compare: not the same.
 */
export function sameValue(a: unknown, b: unknown): boolean {
  try {
    return same(a, b);
  } catch {
    return false; // RangeError: nested deeper than the stack
  }
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (Array.isArray(b)) return false;
  const [ka, kb] = [Object.keys(a), Object.keys(b)];
  if (ka.length !== kb.length) return false;
  const o = b as Record<string, unknown>;
  return ka.every((k) => Object.hasOwn(o, k) && same((a as Record<string, unknown>)[k], o[k]));
}

/** A JSON-RPC answer: an id, with a result or an error. */
type Answer = { id: string | number; result?: unknown; error?: unknown };
const isAnswer = (m: unknown): m is Answer =>
  typeof m === 'object' && m !== null && !Array.isArray(m) && 'id' in m && ('result' in m || 'error' in m);
const answerKey = (id: unknown) => `${typeof id}:${String(id)}`;

/** The longest SSE line read whole: a `data: ` field of a text that may be noted. */
const LONGEST_LINE = MAX_KEPT_CHARS + 8;

/** Texts noted and not yet given to their message (an answer the transport drops would stay): the last ones only. */
const MAX_NOTED = 64;

/**
 * The texts of an HTTP upstream's answers, for the relay to pass on as written. The SDK's Streamable HTTP client
 * transport parses each message itself (JSON.parse, then its schema, which makes a new object), so `fetch` here
 * wraps the transport's: each answer's text is noted by its id as a JSON body or an SSE stream goes by, and
 * `adopt`, given the message the transport hands on, keeps that text for it when the two are the same message
 * (the text parsed prints as the message does). Only answers holding a number JavaScript would print otherwise
 * are noted: any other prints anew with the same values. A batch (a JSON array) is not noted.
 */
export class HttpTextKeeper {
  private readonly noted = new Map<string, string>();

  /** `base`: the fetch wrapped (tests give their own). */
  constructor(private readonly base: (url: string | URL, init?: RequestInit) => Promise<Response> = fetch) {}

  readonly fetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const res = await this.base(url, init);
    if (res.status !== 200 || !res.body) return res;
    const type = res.headers.get('content-type') ?? '';
    const like = { status: res.status, statusText: res.statusText, headers: res.headers };
    if (type.includes('text/event-stream')) return new Response(res.body.pipeThrough(this.sseNotes()), like);
    if (!type.includes('application/json')) return res;
    const text = await res.text();
    this.note(text);
    return new Response(text, like);
  };

  /** Keeps the noted text of this message (an answer the transport parsed), if it is the same message. */
  adopt(message: unknown): void {
    if (!isAnswer(message)) return;
    const key = answerKey(message.id);
    const text = this.noted.get(key);
    if (text === undefined) return;
    this.noted.delete(key);
    if (sameValue(JSON.parse(text), message)) texts.set(message, text);
  }

  private note(text: string): void {
    if (text.length > MAX_KEPT_CHARS || !hasChangingNumber(text)) return;
    let m: unknown;
    try {
      m = JSON.parse(text);
    } catch {
      return; // the transport reports it
    }
    if (!isAnswer(m)) return;
    this.noted.delete(answerKey(m.id));
    this.noted.set(answerKey(m.id), text);
    if (this.noted.size > MAX_NOTED) this.noted.delete(this.noted.keys().next().value as string);
  }

  /** Passes an SSE stream on as it is, noting each message event's data (the event stream format of the HTML spec). */
  private sseNotes(): TransformStream<Uint8Array, Uint8Array> {
    const decoder = new TextDecoder();
    let data: string[] | null = null;
    let size = 0; // of the event's data so far; past MAX_KEPT_CHARS the event is not noted
    let event = '';
    const line = (l: string) => {
      if (l === '') {
        if (data && size <= MAX_KEPT_CHARS && (event === '' || event === 'message')) this.note(data.join('\n'));
        [data, size, event] = [null, 0, ''];
        return;
      }
      const colon = l.indexOf(':');
      if (colon === 0) return; // a comment
      const name = colon < 0 ? l : l.slice(0, colon);
      const value = colon < 0 ? '' : l.slice(l[colon + 1] === ' ' ? colon + 2 : colon + 1);
      if (name === 'event') event = value;
      else if (name === 'data') {
        size += value.length + 1;
        if (size <= MAX_KEPT_CHARS) (data ??= []).push(value);
        else data = [];
      }
    };
    // the line being read, in pieces (a result's data line arrives in many chunks: each is searched for a line's
    // end once, and only its pieces are kept, up to what may be noted)
    let pieces: string[] = [];
    let piecesSize = 0;
    let cr = false; // the last chunk ended with \r: a \n first in this one ends no line (it is the \r\n's)
    const eol = /\r\n|\r|\n/g;
    return new TransformStream({
      transform(chunk, controller) {
        controller.enqueue(chunk);
        const text = decoder.decode(chunk, { stream: true });
        let at = cr && text.charCodeAt(0) === 0x0a ? 1 : 0;
        cr = false;
        eol.lastIndex = at;
        for (let m = eol.exec(text); m; m = eol.exec(text)) {
          if (piecesSize + m.index - at > LONGEST_LINE) size = MAX_KEPT_CHARS + 1; // its event is not noted
          else {
            pieces.push(text.slice(at, m.index));
            line(pieces.join(''));
          }
          [pieces, piecesSize] = [[], 0];
          at = m.index + m[0].length;
          cr = m[0] === '\r' && at === text.length;
        }
        if (at < text.length) {
          piecesSize += text.length - at;
          if (piecesSize <= LONGEST_LINE) pieces.push(text.slice(at));
        }
      },
    });
  }
}
