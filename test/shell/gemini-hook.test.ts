// Gemini CLI's hook decision (harness/gemini/hook.ts): leaves(), the resident helper's answer for bin/lro-hook,
// says "left as it is" exactly when answer(), what `lro __gemini-hook` prints, is null, for the shell tool and MCP
// tools, around the threshold in bytes and in tokens, and for each input the hook leaves whatever its size.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { answer, claimCall, leaves, plan } from '../../src/harness/gemini/hook.js';
import { readHookInput, scratchFile } from '../../src/harness/gemini/input.js';
import type { IO } from '../../src/io.js';

const dir = mkdtempSync(join(tmpdir(), 'lro-gemini-hook-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** The llmContent file every read reuses (written from its start each time). */
const file = scratchFile(dir);
const store = join(dir, 'store');

async function* once(text: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(text);
}

/** The IO answer() runs with: the caller's env, a store of the test's own. */
function io(env: Record<string, string>): IO {
  const quiet = { write: async () => undefined, isTTY: false, color: false, columns: 0 };
  return { stdin: once(''), stdinIsTTY: false, stdout: quiet, stderr: quiet, env: { LRO_DIR: store, LRO_AUTO_GC: '0', ...env }, now: () => new Date() } as IO;
}

/** What the two say for one input: leaves() with the caller's settings, and whether answer() printed nothing. */
async function both(input: object, env: Record<string, string> = {}): Promise<{ leaves: boolean; left: boolean }> {
  const text = JSON.stringify(input);
  const threshold = env.LRO_THRESHOLD_TOKENS ? Number(env.LRO_THRESHOLD_TOKENS) : undefined;
  const l = await leaves(await readHookInput(once(text), file), file, { threshold, redact: env.LRO_REDACT === '1' });
  const a = await answer(await readHookInput(once(text), file), file, io(env));
  return { leaves: l, left: a === null };
}

const shell = (output: string, extra: object = {}) => ({
  hook_event_name: 'AfterTool',
  tool_name: 'run_shell_command',
  tool_input: { command: 'make test' },
  tool_response: { llmContent: `<untrusted_context>\nOutput: ${output}\nExit Code: 2\nProcess Group PGID: 77\n</untrusted_context>`, returnDisplay: output },
  ...extra,
});
const mcp = (text: string, extra: object = {}) => ({
  hook_event_name: 'AfterTool',
  tool_name: 'mcp_fake_lines',
  tool_input: { lines: 3 },
  tool_response: { llmContent: [{ text: `<untrusted_context>\n${text}\n</untrusted_context>` }], returnDisplay: text },
  mcp_context: { server_name: 'fake', tool_name: 'lines', command: 'node', args: ['fake-upstream.mjs'] },
  ...extra,
});
/** n lines of few tokens a byte (words) or many (digits, about four tokens a line of five bytes). */
const words = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1} of the fake upstream`).join('\n');
const dense = (n: number) => Array.from({ length: n }, (_, i) => `${(i * 7919) % 10}${(i * 104729) % 7} ${(i * 31) % 9}`).join('\n');

describe('leaves() says what answer() does', () => {
  test('medium results: over the threshold in bytes, under it in tokens: left; over it in tokens: stored', async () => {
    for (const make of [shell, mcp]) {
      const medium = words(600); // 19 kB, about 4,800 tokens
      expect(Buffer.byteLength(medium)).toBeGreaterThan(6400);
      expect(await both(make(medium))).toEqual({ leaves: true, left: true });
      expect(await both(make(medium), { LRO_THRESHOLD_TOKENS: '3000' })).toEqual({ leaves: false, left: false });
      expect(await both(make(dense(3000)))).toEqual({ leaves: false, left: false });
      expect(await both(make('hello'))).toEqual({ leaves: true, left: true });
    }
  });

  test('what the hook leaves whatever its size: another event, an error, lro\'s own server, inline data, a cancelled call', async () => {
    const big = dense(3000);
    const cases = [
      shell(big, { hook_event_name: 'BeforeTool' }),
      shell(big, { tool_response: { llmContent: `Output: ${big}`, returnDisplay: '', error: 'boom' } }),
      shell(big, { tool_name: 'read_file' }),
      shell(big, { tool_response: { llmContent: 'Command was cancelled by user before it could complete.', returnDisplay: '' } }),
      mcp(big, { mcp_context: { server_name: 'lro', command: 'node', args: ['/x/bin/lro.js', 'mcp'] } }),
      mcp(big, { tool_response: { llmContent: [{ text: big }, { text: "[Tool 'shot' provided the following image data with mime-type: image/png]" }, { inlineData: { mimeType: 'image/png', data: 'AAAA' } }] } }),
    ];
    for (const input of cases) {
      expect(await both(input)).toEqual({ leaves: true, left: true });
      expect(plan(await readHookInput(once(JSON.stringify(input)), file), file)).toBeNull();
    }
  });

  test('LRO_REDACT: only the hook can tell (it counts the redacted text), so the helper says it runs', async () => {
    const r = await both(mcp(words(600)), { LRO_REDACT: '1' });
    expect(r).toEqual({ leaves: false, left: true });
  });

  test('sizes around the threshold, in bytes and in tokens, both kinds of tool', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 120 }), fc.boolean(), fc.boolean(), fc.integer({ min: 150, max: 400 }), async (n, isDense, isShell, threshold) => {
        const text = isDense ? dense(n * 3) : words(n);
        const r = await both((isShell ? shell : mcp)(text), { LRO_THRESHOLD_TOKENS: String(threshold) });
        expect(r.leaves).toBe(r.left);
      }),
      { numRuns: 60 },
    );
    expect(readdirSync(store).length).toBeGreaterThan(0); // some were stored: both sides of the threshold were met
  });
});

describe('claimCall(): one answer for a call that two of lro\'s hooks see (user and project settings)', () => {
  const claims = join(dir, 'claims');
  const call = (extra: object = {}) => ({ ...shell(dense(3000)), session_id: 's1', timestamp: '2026-11-28T09:00:07.833Z', ...extra });
  async function claim(input: object, now?: number): Promise<boolean> {
    const streamed = await readHookInput(once(JSON.stringify(input)), file);
    return claimCall(streamed, plan(streamed, file)!, claims, now);
  }

  test('the first claims it, the second of the same call does not; another call, or the same much later, does', async () => {
    expect(await claim(call())).toBe(true);
    expect(await claim(call())).toBe(false);
    expect(await claim(call({ timestamp: '2026-11-28T09:00:07.834Z' }))).toBe(true);
    expect(await claim(call({ tool_input: { command: 'make check' } }))).toBe(true);
    expect(await claim(call({ session_id: 's2' }))).toBe(true);
    expect(await claim(call(), Date.now() + 11 * 60_000)).toBe(true); // the old claims are gone
    expect(readdirSync(claims)).toHaveLength(1);
  });

  test('no folder, or no session in the input: each answers, as before', async () => {
    const streamed = await readHookInput(once(JSON.stringify(call())), file);
    expect(claimCall(streamed, plan(streamed, file)!, null)).toBe(true);
    const bare = await readHookInput(once(JSON.stringify(shell(dense(3000)))), file);
    expect(claimCall(bare, plan(bare, file)!, claims)).toBe(true);
    expect(claimCall(bare, plan(bare, file)!, claims)).toBe(true);
  });
});
