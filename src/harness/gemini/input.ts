// Gemini CLI's AfterTool hook input read in bounded memory: the JSON is followed byte by byte as it arrives, the
// shell tool's `tool_response.llmContent` (the whole output, megabytes) is written decoded to a file as it streams
// by, `returnDisplay` (the same output again) is skipped, and only the few small fields the hook needs are kept.
// JSON.parse of the whole input held the input, its string and both copies of the output at once (333 MB resident
// for a 25 MB output). An MCP tool's llmContent is a list of parts instead (`{text}` for each text block, wrapped
// by Gemini CLI in <untrusted_context>; `{inlineData: {mimeType, data}}` for an image, audio or blob after a
// `{text}` note naming it): each part's text goes to the same file, its place there kept, and of inline data only
// its type and size (its base64 is skipped). The call's `tool_input` is kept as its JSON text, cut at 4 kB, and
// the MCP server's name, command and first arguments from `mcp_context`.
import { randomBytes } from 'node:crypto';
import { openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** A part of an llmContent list: a text (its bytes in the file, from start to before end), inline data, or else. */
export type ContentPart =
  | { kind: 'text'; start: number; end: number }
  | { kind: 'inline'; mimeType?: string; bytes: number }
  | { kind: 'other'; keys: string[] };

/** The fields of the input the hook uses; `content` is the length in bytes of llmContent written to the file. */
export interface StreamedInput {
  hook_event_name?: string;
  tool_name?: string;
  /** The session and the moment Gemini CLI made the event: with the call, what tells one call from another. */
  session_id?: string;
  timestamp?: string;
  command?: string;
  /** tool_response.error is there and not null/false/empty. */
  error: boolean;
  /** llmContent was a string: its UTF-8 bytes are in the file, this many. */
  content: number | null;
  /** llmContent was a list of parts (or one part): what each is, its text in the file. */
  parts: ContentPart[] | null;
  /** tool_input (an object) as the JSON text it was sent as, its first MAX_TOOL_INPUT bytes; `cut` when longer. */
  toolInput: { json: string; cut: boolean } | null;
  /** From mcp_context: the server's name, the command that starts it and its first arguments. */
  mcp: { server?: string; command?: string; args: string[] };
}

/** The small string fields kept, by their path. */
const KEPT: Record<string, keyof StreamedInput> = {
  hook_event_name: 'hook_event_name',
  tool_name: 'tool_name',
  session_id: 'session_id',
  timestamp: 'timestamp',
  'tool_input\u0000command': 'command',
};
const CONTENT = 'tool_response\u0000llmContent';
const ERROR = 'tool_response\u0000error';
const TOOL_INPUT = 'tool_input';
const MCP_SERVER = 'mcp_context\u0000server_name';
const MCP_COMMAND = 'mcp_context\u0000command';
const MCP_ARGS = 'mcp_context\u0000args\u0000[]';
/** How many of the MCP server's arguments are kept (enough to tell lro's own server). */
const MAX_ARGS = 3;
const MAX_KEPT = 1 << 20;
export const MAX_TOOL_INPUT = 4096;
/** The byte of each one-letter escape, and a one-byte buffer for each byte (no allocation per escape). */
const SIMPLE_ESCAPES: Record<string, number> = { '"': 0x22, '\\': 0x5c, '/': 0x2f, b: 0x08, f: 0x0c, n: 0x0a, r: 0x0d, t: 0x09 };
const ONE_BYTE = Array.from({ length: 128 }, (_, i) => Buffer.from([i]));

class Malformed extends Error {}

/** The index of byte c in b from `from` on, or b's length. */
function indexOr(b: Buffer, c: number, from: number): number {
  const at = b.indexOf(c, from);
  return at < 0 ? b.length : at;
}

/**
 * A file of its own in `dir` for a call's llmContent, open for writing and reading, its name already removed: it is
 * gone when the process ends, however it ends (a killed hook left the output, which may hold secrets, behind).
 */
export function scratchFile(dir: string): number {
  for (let tries = 0; ; tries++) {
    const file = join(dir, `lro-gemini-hook-${randomBytes(8).toString('hex')}`);
    try {
      const fd = openSync(file, 'wx+', 0o600);
      unlinkSync(file);
      return fd;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || tries >= 8) throw e;
    }
  }
}

/**
 * Reads a hook input from `chunks`, writing llmContent's bytes to the file `fd` (scratchFile()) from its start;
 * throws on JSON that is not an object. The bytes are exactly Buffer.from(JSON.parse(input).tool_response.llmContent)
 * (a lone surrogate as U+FFFD).
 */
export async function readHookInput(chunks: AsyncIterable<Uint8Array>, fd: number): Promise<StreamedInput> {
  return new HookInputReader(fd).read(chunks);
}

type Frame = { kind: 'object'; key: string | null; state: 'key' | 'colon' | 'value' | 'comma' } | { kind: 'array'; state: 'value' | 'comma' };

/** Where a string's bytes go: a key, a small kept field, llmContent's text (the file), counted only, or nowhere. */
type Sink = 'key' | 'kept' | 'content' | 'count' | 'skip';

class HookInputReader {
  private readonly out: StreamedInput = { error: false, content: null, parts: null, toolInput: null, mcp: { args: [] } };
  private readonly stack: Frame[] = [];
  private done = false;
  /** The string being read: where its bytes go, and a pending high surrogate of a \u escape. */
  private str: { to: Sink; bytes: Buffer[]; length: number; escape: string | null; high: number | null } | null = null;
  private sawContent = false;
  /** The llmContent part being read: its object's path and depth in the stack. */
  private part: { item: ContentPart; path: string; depth: number } | null = null;
  /** tool_input's JSON text being kept: its bytes so far, and where it starts in the chunk being read. */
  private capture: { depth: number; bytes: Buffer[]; length: number; cut: boolean } | null = null;
  private captureFrom = 0;
  private captureStarts = false;
  /** A number or literal being read (for tool_response.error's truthiness). */
  private word = '';
  private wordPath: string | null = null;
  private written = 0;
  /** In the chunk being read: the next quote and backslash at or after the reader (the chunk's length: none). */
  private quoteAt = -1;
  private backslashAt = -1;
  /** llmContent's bytes not yet written to the file. */
  private readonly buf = Buffer.allocUnsafe(1 << 20);
  private pos = 0;

  constructor(private readonly fd: number) {}

  async read(chunks: AsyncIterable<Uint8Array>): Promise<StreamedInput> {
    for await (const c of chunks) {
      const b = Buffer.from(c.buffer, c.byteOffset, c.length);
      this.captureFrom = 0;
      this.scan(b);
      if (this.capture) this.keep(b, this.captureFrom, b.length);
    }
    this.endWord();
    if (!this.done || this.str) throw new Malformed('incomplete JSON');
    this.flush();
    if (this.out.content !== null) this.out.content = this.written;
    return this.out;
  }

  /** Where the reader is: the keys of the objects it is in (an array's place as `[]`), joined by NUL. */
  private path(): string {
    return this.stack.map((f) => (f.kind === 'object' ? (f.key ?? '') : '[]')).join('\u0000');
  }

  /** Appends bytes of llmContent, written to the file a megabyte at a time. */
  private write(b: Buffer): void {
    this.writeRange(b, 0, b.length);
  }

  private writeRange(b: Buffer, from: number, to: number): void {
    for (let at = from; at < to; ) {
      if (this.pos === this.buf.length) this.flush();
      const n = b.copy(this.buf, this.pos, at, to);
      this.pos += n;
      at += n;
    }
  }

  private flush(): void {
    // (at the reader's own offsets: the file may be reused, and its read position moved by a reader)
    for (let at = 0; at < this.pos; ) at += writeSync(this.fd, this.buf, at, this.pos - at, this.written + at);
    this.written += this.pos;
    this.pos = 0;
  }

  /** Keeps bytes from..to of b as part of tool_input's text, up to MAX_TOOL_INPUT bytes. */
  private keep(b: Buffer, from: number, to: number): void {
    const c = this.capture!;
    const n = Math.min(to - from, MAX_TOOL_INPUT - c.length);
    if (n < to - from) c.cut = true;
    if (n > 0) {
      c.bytes.push(Buffer.from(b.subarray(from, from + n)));
      c.length += n;
    }
  }

  /** An object, array or word begins at `path`: llmContent as parts, a part, inline data, tool_input. */
  private valueAt(path: string, c: number): void {
    if (path === CONTENT) {
      if (this.sawContent) throw new Malformed('llmContent twice');
      this.sawContent = true;
      if (c === 0x5b || c === 0x7b) this.out.parts = [];
    }
    if (c !== 0x7b) return;
    if (path === ERROR) this.out.error = true;
    else if (path === TOOL_INPUT) {
      this.capture = { depth: this.stack.length + 1, bytes: [], length: 0, cut: false };
      this.captureStarts = true;
    } else if (!this.part && this.out.parts && (path === CONTENT || path === `${CONTENT}\u0000[]`)) {
      const item: ContentPart = { kind: 'other', keys: [] };
      this.out.parts.push(item);
      this.part = { item, path, depth: this.stack.length + 1 };
    } else if (this.part && path === `${this.part.path}\u0000inlineData` && this.part.item.kind === 'other') {
      this.part.item = this.out.parts![this.out.parts!.length - 1] = { kind: 'inline', bytes: 0 };
    }
  }

  /** A value begins at byte c (not a string): an object, an array, or the first byte of a word. */
  private beginValue(c: number): void {
    const top = this.stack.at(-1);
    if (top) top.state = 'comma';
    else if (this.done) throw new Malformed('text after the value');
    else if (c !== 0x7b) throw new Malformed('not an object');
    if (top) this.valueAt(this.path(), c);
    if (c === 0x7b) this.stack.push({ kind: 'object', key: null, state: 'key' });
    else if (c === 0x5b) this.stack.push({ kind: 'array', state: 'value' });
    else {
      if (!top) throw new Malformed('not an object');
      this.word = String.fromCharCode(c);
      this.wordPath = this.path();
    }
  }

  private endWord(): void {
    if (!this.word) return;
    if (!/^(true|false|null|-?\d+(\.\d+)?([eE][-+]?\d+)?)$/.test(this.word)) throw new Malformed('a bad word');
    if (this.wordPath === ERROR) this.out.error = !['false', 'null', '0', '-0'].includes(this.word);
    this.word = '';
    this.wordPath = null;
  }

  private beginString(): void {
    const top = this.stack.at(-1);
    if (!top) throw new Malformed('not an object');
    let to: Sink = 'skip';
    if (top.kind === 'object' && top.state === 'key') to = 'key';
    else {
      top.state = 'comma';
      const path = this.path();
      const part = this.part;
      if (path === CONTENT) {
        this.valueAt(path, 0x22);
        to = 'content';
      } else if (part && path === `${part.path}\u0000text` && part.item.kind === 'other') {
        const at = this.written + this.pos;
        part.item = this.out.parts![this.out.parts!.length - 1] = { kind: 'text', start: at, end: at };
        to = 'content';
      } else if (part && part.item.kind === 'inline' && path === `${part.path}\u0000inlineData\u0000data`) to = 'count';
      else if (part && part.item.kind === 'inline' && path === `${part.path}\u0000inlineData\u0000mimeType`) to = 'kept';
      else if (KEPT[path] || path === ERROR || path === MCP_SERVER || path === MCP_COMMAND) to = 'kept';
      else if (path === MCP_ARGS && this.out.mcp.args.length < MAX_ARGS) to = 'kept';
    }
    this.str = { to, bytes: [], length: 0, escape: null, high: null };
  }

  /** Bytes of the string's text (already decoded). */
  private text(b: Buffer): void {
    const s = this.str!;
    if (s.high !== null) {
      this.emit(Buffer.from(String.fromCharCode(s.high), 'utf8')); // a lone high surrogate
      s.high = null;
    }
    this.emit(b);
  }

  private emit(b: Buffer): void {
    const s = this.str!;
    if (s.to === 'content') this.write(b);
    else if (s.to === 'count') s.length += b.length;
    else if (s.to !== 'skip') {
      s.length += b.length;
      if (s.length > MAX_KEPT) throw new Malformed('a field too long');
      s.bytes.push(Buffer.from(b));
    }
  }

  /** A \u escape's code unit: surrogate pairs joined, a lone surrogate as U+FFFD (what Buffer.from does). */
  private unit(u: number): void {
    const s = this.str!;
    if (s.high !== null && u >= 0xdc00 && u <= 0xdfff) {
      const pair = String.fromCharCode(s.high, u);
      s.high = null;
      this.emit(Buffer.from(pair, 'utf8'));
      return;
    }
    if (u >= 0xd800 && u <= 0xdbff) {
      if (s.high !== null) this.emit(Buffer.from(String.fromCharCode(s.high), 'utf8'));
      s.high = u;
      return;
    }
    this.text(Buffer.from(String.fromCharCode(u), 'utf8'));
  }

  private endString(): void {
    const s = this.str!;
    if (s.high !== null) this.emit(Buffer.from(String.fromCharCode(s.high), 'utf8'));
    this.str = null;
    // a small field's text as JSON.parse reads it (a lone surrogate of a \u escape kept, as there)
    const value = s.to === 'key' || s.to === 'kept' ? (JSON.parse(`"${Buffer.concat(s.bytes).toString('utf8')}"`) as string) : '';
    const top = this.stack.at(-1)!;
    const item = this.part?.item;
    if (s.to === 'key') {
      (top as Extract<Frame, { kind: 'object' }>).key = value;
      top.state = 'colon';
      if (item?.kind === 'other' && this.stack.length === this.part!.depth && item.keys.length < 8) item.keys.push(value);
    } else if (s.to === 'kept') {
      const path = this.path();
      if (path === ERROR) this.out.error = value !== '';
      else if (path === MCP_SERVER) this.out.mcp.server = value;
      else if (path === MCP_COMMAND) this.out.mcp.command = value;
      else if (path === MCP_ARGS) this.out.mcp.args.push(value);
      else if (KEPT[path]) (this.out as unknown as Record<string, string>)[KEPT[path]] = value;
      else if (item?.kind === 'inline') item.mimeType = value;
    } else if (s.to === 'count') {
      if (item?.kind === 'inline') item.bytes += s.length;
    } else if (s.to === 'content') {
      if (item?.kind === 'text' && this.path() === `${this.part!.path}\u0000text`) item.end = this.written + this.pos;
      else this.out.content = 0; // set from the bytes written at the end
    }
  }

  /** Reads one chunk. */
  private scan(b: Buffer): void {
    let i = 0;
    this.quoteAt = -1;
    this.backslashAt = -1;
    while (i < b.length) {
      if (this.str) {
        const s = this.str;
        if (s.escape !== null) {
          s.escape += String.fromCharCode(b[i++]);
          const raw = s.to === 'key' || s.to === 'kept'; // a small field keeps its escapes for JSON.parse
          if (s.escape.length === 1 && s.escape !== 'u') {
            const byte = SIMPLE_ESCAPES[s.escape];
            if (byte === undefined) throw new Malformed('a bad escape');
            if (raw) this.emit(Buffer.from(`\\${s.escape}`));
            else this.text(ONE_BYTE[byte]);
            s.escape = null;
          } else if (s.escape.length === 5) {
            if (!/^u[0-9a-fA-F]{4}$/.test(s.escape)) throw new Malformed('a bad \\u escape');
            if (raw) this.emit(Buffer.from(`\\${s.escape}`));
            else this.unit(parseInt(s.escape.slice(1), 16));
            s.escape = null;
          }
          continue;
        }
        // the string's plain bytes up to its next quote or backslash, in one piece (each found once per chunk)
        if (this.quoteAt < i) this.quoteAt = indexOr(b, 0x22, i);
        if (this.backslashAt < i) this.backslashAt = indexOr(b, 0x5c, i);
        const j = Math.min(this.quoteAt, this.backslashAt);
        if (j > i) {
          if (s.high !== null || s.to === 'key' || s.to === 'kept') this.text(b.subarray(i, j));
          else if (s.to === 'content') this.writeRange(b, i, j);
          else if (s.to === 'count') s.length += j - i;
        }
        if (j === b.length) return;
        if (b[j] === 0x5c) s.escape = '';
        else this.endString();
        i = j + 1;
        continue;
      }
      const c = b[i++];
      if (this.word) {
        if ((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || c === 0x2e || c === 0x2b || c === 0x2d || c === 0x45) {
          this.word += String.fromCharCode(c);
          continue;
        }
        this.endWord();
      }
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
      const top = this.stack.at(-1);
      if (top?.kind === 'object' && top.state === 'colon') {
        if (c !== 0x3a) throw new Malformed('no colon after a key');
        top.state = 'value';
        continue;
      }
      if (c === 0x22) {
        if (top?.kind === 'object' && top.state !== 'key' && top.state !== 'value') throw new Malformed('a misplaced string');
        if (top?.kind === 'array' && top.state !== 'value') throw new Malformed('a misplaced string');
        this.beginString();
        continue;
      }
      if (c === 0x2c) {
        if (!top || top.state !== 'comma') throw new Malformed('a misplaced comma');
        top.state = top.kind === 'object' ? 'key' : 'value';
        continue;
      }
      if (c === 0x7d || c === 0x5d) {
        if (!top || top.kind !== (c === 0x7d ? 'object' : 'array')) throw new Malformed('a misplaced bracket');
        if (top.state !== 'comma' && !(top.kind === 'object' ? top.key === null && top.state === 'key' : top.state === 'value')) {
          throw new Malformed('a bracket after a comma');
        }
        this.stack.pop();
        if (this.stack.length === 0) this.done = true;
        if (this.part && this.stack.length < this.part.depth) this.part = null;
        if (this.capture && this.stack.length < this.capture.depth) {
          this.keep(b, this.captureFrom, i);
          this.out.toolInput = { json: Buffer.concat(this.capture.bytes).toString('utf8'), cut: this.capture.cut };
          this.capture = null;
        }
        continue;
      }
      if ((top && top.state !== 'value') || (!top && this.done)) throw new Malformed('a misplaced value');
      this.beginValue(c);
      if (this.captureStarts) {
        this.captureFrom = i - 1;
        this.captureStarts = false;
      }
    }
  }
}

export { Malformed };
