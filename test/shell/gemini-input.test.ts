// Gemini CLI's hook input read as it streams (commands/gemini-input.ts) against JSON.parse of the whole: the same
// small fields, and llmContent's bytes exactly Buffer.from(JSON.parse(input).tool_response.llmContent), whatever
// the escapes (\u with surrogate pairs and lone halves), key order, nesting and chunking.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { readHookInput } from '../../src/commands/gemini-input.js';

const dir = mkdtempSync(join(tmpdir(), 'lro-gemini-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'content');

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

/** What JSON.parse says of the same input. */
function expected(json: string) {
  const v = JSON.parse(json) as Record<string, any>;
  const content = v.tool_response?.llmContent;
  const error = v.tool_response?.error;
  return {
    hook_event_name: typeof v.hook_event_name === 'string' ? v.hook_event_name : undefined,
    tool_name: typeof v.tool_name === 'string' ? v.tool_name : undefined,
    command: typeof v.tool_input?.command === 'string' ? v.tool_input.command : undefined,
    error: !!error,
    bytes: typeof content === 'string' ? Buffer.from(content, 'utf8') : null,
  };
}

async function read(json: string, sizes: number[]) {
  const got = await readHookInput(chunked(Buffer.from(json, 'utf8'), sizes), file);
  return {
    hook_event_name: got.hook_event_name,
    tool_name: got.tool_name,
    command: got.command,
    error: got.error,
    bytes: got.content === null ? null : readFileSync(file),
  };
}

const text = fc.string({ unit: fc.oneof(fc.constantFrom('\n', '"', '\\', '\t', '\u0000', '\ud83d', '\ude00', '😀', 'é', '/', 'Exit Code: 3'), fc.string({ unit: 'grapheme', maxLength: 1 })), maxLength: 200 });
const input = fc.record(
  {
    session_id: fc.string(),
    hook_event_name: fc.constantFrom('AfterTool', 'BeforeTool'),
    tool_name: fc.constantFrom('run_shell_command', 'read_file'),
    tool_input: fc.record({ command: fc.oneof(text, fc.constant(['x'])), description: text }, { requiredKeys: [] }),
    tool_response: fc.record(
      { llmContent: fc.oneof(text, fc.constant([{ text: 'part' }]), fc.constant(null)), returnDisplay: text, error: fc.oneof(fc.constant(null), text, fc.constant({ message: 'x' }), fc.constant(false)) },
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
