// Gemini CLI's hook input read as it streams (harness/gemini/input.ts) against JSON.parse of the whole: the same
// small fields, and llmContent's bytes exactly Buffer.from(JSON.parse(input).tool_response.llmContent) (an MCP
// tool's list of parts: each text part's bytes, each inline part's type and size), tool_input's text parsing to the
// same value, whatever the escapes (\u with surrogate pairs and lone halves), key order, nesting and chunking.
import { mkdtempSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { MAX_TOOL_INPUT, readHookInput, scratchFile, type ContentPart } from '../../src/harness/gemini/input.js';

const dir = mkdtempSync(join(tmpdir(), 'lro-gemini-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** The llmContent file every read reuses (written from its start each time). */
const file = scratchFile(dir);

async function* chunked(text: Buffer, sizes: number[]): AsyncGenerator<Uint8Array> {
  for (let i = 0, k = 0; i < text.length; k++) {
    const n = sizes[k % sizes.length];
    yield text.subarray(i, i + n);
    i += n;
  }
}

/** A string as JSON with every code unit outside printable ASCII (and the letters a to f) as a \u escape. */
const escapedString = (t: string) =>
  `"${[...Array(t.length).keys()]
    .map((i) => {
      const c = t[i];
      const u = t.charCodeAt(i);
      if (c === '"' || c === '\\') return `\\${c}`;
      return u < 0x20 || u > 0x7e || /[a-f]/.test(c) ? `\\u${u.toString(16).padStart(4, '0')}` : c;
    })
    .join('')}"`;

/** JSON text of v with its strings (keys too) written by escapedString, as another writer might. */
function escapeAll(v: unknown): string {
  if (typeof v === 'string') return escapedString(v);
  if (Array.isArray(v)) return `[${v.map(escapeAll).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${escapedString(k)}:${escapeAll(x)}`).join(',')}}`;
  return JSON.stringify(v);
}

type Part = { text: Buffer } | { inline: string | undefined; bytes: number } | { other: string[] };
const isObject = (x: unknown): x is Record<string, any> => !!x && typeof x === 'object' && !Array.isArray(x);

/** What JSON.parse says of the same input. */
function expected(json: string) {
  const v = JSON.parse(json) as Record<string, any>;
  const content = v.tool_response?.llmContent;
  const error = v.tool_response?.error;
  const list = Array.isArray(content) ? content : isObject(content) ? [content] : null;
  const parts = list?.filter(isObject).map((p): Part => {
    if (typeof p.text === 'string') return { text: Buffer.from(p.text, 'utf8') };
    if (isObject(p.inlineData)) {
      const { mimeType, data } = p.inlineData;
      return { inline: typeof mimeType === 'string' ? mimeType : undefined, bytes: typeof data === 'string' ? Buffer.byteLength(data) : 0 };
    }
    return { other: Object.keys(p).slice(0, 8) };
  });
  const mcp = v.mcp_context;
  const args = Array.isArray(mcp?.args) ? mcp.args.filter((a: unknown) => typeof a === 'string').slice(0, 3) : [];
  return {
    hook_event_name: typeof v.hook_event_name === 'string' ? v.hook_event_name : undefined,
    tool_name: typeof v.tool_name === 'string' ? v.tool_name : undefined,
    command: typeof v.tool_input?.command === 'string' ? v.tool_input.command : undefined,
    error: !!error,
    bytes: typeof content === 'string' ? Buffer.from(content, 'utf8') : null,
    parts: parts ?? null,
    toolInput: isObject(v.tool_input) ? v.tool_input : undefined,
    mcp: {
      server: typeof mcp?.server_name === 'string' ? mcp.server_name : undefined,
      command: typeof mcp?.command === 'string' ? mcp.command : undefined,
      args,
    },
  };
}

/** The file's first `n` bytes (what one read wrote; the file is reused, so what is past them is an older read's). */
function written(n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let at = 0; at < n; ) {
    const k = readSync(file, b, at, n - at, at);
    if (k === 0) break;
    at += k;
  }
  return b;
}

async function read(json: string, sizes: number[]) {
  const got = await readHookInput(chunked(Buffer.from(json, 'utf8'), sizes), file);
  const bytes = got.content === null && !got.parts ? null : written(got.content ?? Math.max(0, ...got.parts!.map((p) => (p.kind === 'text' ? p.end : 0))));
  const part = (p: ContentPart): Part =>
    p.kind === 'text' ? { text: bytes!.subarray(p.start, p.end) } : p.kind === 'inline' ? { inline: p.mimeType, bytes: p.bytes } : { other: p.keys };
  // tool_input's text parses to tool_input; one cut at MAX_TOOL_INPUT bytes is as long as that
  let toolInput: unknown;
  if (got.toolInput?.cut) {
    expect(Buffer.byteLength(got.toolInput.json)).toBeLessThanOrEqual(MAX_TOOL_INPUT);
    toolInput = JSON.parse(json).tool_input;
    expect(Buffer.byteLength(JSON.stringify(toolInput))).toBeGreaterThan(MAX_TOOL_INPUT / 6);
  } else if (got.toolInput) toolInput = JSON.parse(got.toolInput.json);
  return {
    hook_event_name: got.hook_event_name,
    tool_name: got.tool_name,
    command: got.command,
    error: got.error,
    bytes: got.content === null ? null : bytes,
    parts: got.parts?.map(part) ?? null,
    toolInput,
    mcp: got.mcp,
  };
}

const text = fc.string({ unit: fc.oneof(fc.constantFrom('\n', '"', '\\', '\t', '\u0000', '\ud83d', '\ude00', '😀', 'é', '/', 'Exit Code: 3'), fc.string({ unit: 'grapheme', maxLength: 1 })), maxLength: 200 });
/** An llmContent part as Gemini CLI makes them (a text, inline data), or of another shape. */
const part = fc.oneof(
  fc.record({ text }),
  fc.record({ inlineData: fc.record({ mimeType: text, data: fc.oneof(text, fc.constant('QUFB'.repeat(3000))) }, { requiredKeys: [] }) }),
  fc.record({ functionCall: fc.record({ name: text }), text: fc.integer() }, { requiredKeys: [] }),
  text,
);

const input = fc.record(
  {
    session_id: fc.string(),
    hook_event_name: fc.constantFrom('AfterTool', 'BeforeTool'),
    tool_name: fc.constantFrom('run_shell_command', 'read_file', 'mcp_fake_lines'),
    tool_input: fc.oneof(
      fc.record({ command: fc.oneof(text, fc.constant(['x'])), description: text, long: fc.constant('y'.repeat(5000)) }, { requiredKeys: [] }),
      fc.constant('not an object'),
    ),
    tool_response: fc.record(
      { llmContent: fc.oneof(text, fc.array(part, { maxLength: 5 }), part, fc.constant(null)), returnDisplay: text, error: fc.oneof(fc.constant(null), text, fc.constant({ message: 'x' }), fc.constant(false)) },
      { requiredKeys: [] },
    ),
    mcp_context: fc.record(
      { server_name: text, tool_name: text, command: fc.oneof(text, fc.constant(null)), args: fc.array(fc.oneof(text, fc.integer()), { maxLength: 5 }) },
      { requiredKeys: [] },
    ),
    extra: fc.jsonValue({ maxDepth: 3 }),
  },
  { requiredKeys: ['tool_response'] },
);

describe('readHookInput', () => {
  test('random inputs, random chunks, two ways of escaping: what JSON.parse gives', async () => {
    await fc.assert(
      fc.asyncProperty(input, fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 5 }), fc.boolean(), async (v, sizes, escaped) => {
        const json = escaped ? escapeAll(JSON.parse(JSON.stringify(v))) : JSON.stringify(v, null, 1);
        expect(await read(json, sizes)).toEqual(expected(json));
      }),
      { numRuns: 300, seed: 41 },
    );
  });

  test('a lone surrogate half, in \\u escapes, is U+FFFD as Buffer.from makes it; a pair is one character', async () => {
    for (const content of ['a\\ud83d', '\\ud83db', '\\ude00x', '\\ud83d\\ude00', '\\ud83d\\ud83d\\ude00', '\\ud83d\\n']) {
      const json = `{"tool_response":{"llmContent":"${content}"}}`;
      for (const sizes of [[1], [3], [1000]]) expect(await read(json, sizes)).toEqual(expected(json));
    }
  });

  test('malformed JSON throws', async () => {
    for (const json of ['', '[1]', '{"a":', '{"a" 1}', '{"a":"\\x"}', '{"a":1}x', '{"a":tru}']) {
      await expect(read(json, [7])).rejects.toThrow();
    }
  });
});
