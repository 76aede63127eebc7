// The real Claude Code, driven offline: the pinned release installed once into a cache folder outside the repo
// (never a project dependency), and a scripted Messages API server on 127.0.0.1 that plays tool calls and keeps
// every request, so a test reads the `tool_result` exactly as the model would have received it.
// The method and what was seen with it: the design notes on harnesses (HARNESSES.md).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ensureHarness, runHarness, type HarnessInstall, type HarnessRun, type PinnedHarness } from './harness-install.js';

export const CLAUDE_CODE_VERSION = '2.1.328';

/** The pinned release, as the cache folder holds it. */
const PINNED: PinnedHarness = { pkg: '@anthropic-ai/claude-code', version: CLAUDE_CODE_VERSION, bin: 'claude', folder: 'claude-code' };

/** Installs the pinned claude into the test cache unless it is there: its binary, or why it cannot be had. */
export const ensureClaude = (): HarnessInstall => ensureHarness(PINNED);

/** One turn of the scripted model: a tool call, or a final answer. */
export type Step = { tool: string; input: Record<string, unknown> } | { text: string };

/** What the model received for a tool call: the `tool_result` block of the next request. */
export interface ToolResult {
  tool_use_id: string;
  is_error: boolean;
  /** The text the model reads (the content's text blocks joined). */
  text: string;
}

/** A request the server received (its JSON body). */
export interface Recorded {
  path: string;
  body: { tools?: { name: string }[]; messages?: { role: string; content: unknown }[]; stream?: boolean };
}

export interface ScriptedModel {
  url: string;
  requests: Recorded[];
  /** The tool_result blocks of the main loop, in order (one per scripted tool call that ran). */
  toolResults(): ToolResult[];
  close(): Promise<void>;
}

/** The main agent loop's requests offer the Bash tool; side calls (titles, summaries) do not. */
function isMainLoop(body: Recorded['body']): boolean {
  return (body.tools ?? []).some((t) => t.name === 'Bash');
}

/** The tool_result blocks in a request's messages. */
function resultsIn(body: Recorded['body']): ToolResult[] {
  const out: ToolResult[] = [];
  for (const m of body.messages ?? []) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content as Record<string, unknown>[]) {
      if (b.type !== 'tool_result') continue;
      const c = b.content;
      const text = typeof c === 'string' ? c : Array.isArray(c) ? c.map((x: { text?: string }) => x.text ?? '').join('') : '';
      out.push({ tool_use_id: String(b.tool_use_id), is_error: b.is_error === true, text });
    }
  }
  return out;
}

function sse(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** Answers one Messages API call with `step`, streamed (SSE) or as one JSON message. */
function answer(res: ServerResponse, step: Step, stream: boolean, n: number): void {
  const id = `msg_lro_${n}`;
  const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const block =
    'tool' in step ? { type: 'tool_use', id: `toolu_lro_${n}`, name: step.tool, input: step.input } : { type: 'text', text: step.text };
  const stop = 'tool' in step ? 'tool_use' : 'end_turn';
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [block], stop_reason: stop, stop_sequence: null, usage }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  sse(res, 'message_start', {
    type: 'message_start',
    message: { id, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage },
  });
  if ('tool' in step) {
    sse(res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: block.id, name: step.tool, input: {} } });
    sse(res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(step.input) } });
  } else {
    sse(res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    sse(res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: step.text } });
  }
  sse(res, 'content_block_stop', { type: 'content_block_stop', index: 0 });
  sse(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

/**
 * A Messages API server that plays `steps` in order: the main loop's request holding k tool results gets step k
 * (a step may be a function of the results so far, to use an id the model was just given); past the end, or for
 * side calls, a short text and end_turn.
 */
export async function startScriptedModel(steps: (Step | ((results: ToolResult[]) => Step))[]): Promise<ScriptedModel> {
  const requests: Recorded[] = [];
  let n = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Recorded['body'] = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Recorded['body'];
      } catch {
        // not JSON: answered as a side call
      }
      const path = req.url ?? '';
      requests.push({ path, body });
      if (path.startsWith('/v1/messages/count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ input_tokens: 10 }));
        return;
      }
      if (!path.startsWith('/v1/messages')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{}');
        return;
      }
      n += 1;
      if (!isMainLoop(body)) return answer(res, { text: 'ok' }, body.stream === true, n);
      const results = resultsIn(body);
      const next = steps[results.length];
      const step = next === undefined ? { text: 'done' } : typeof next === 'function' ? next(results) : next;
      answer(res, step, body.stream === true, n);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    toolResults() {
      const main = requests.filter((r) => r.path.startsWith('/v1/messages?') || r.path === '/v1/messages').map((r) => r.body);
      let best: ToolResult[] = [];
      for (const b of main) {
        const rs = resultsIn(b);
        if (rs.length > best.length) best = rs;
      }
      return best;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export type ClaudeRun = HarnessRun;

/**
 * Runs `claude -p` against the scripted model, with HOME = `home` (its ~/.claude/settings.json is the user's
 * settings) in `cwd`. Bash and `allowedTools` are allowed without asking.
 */
export function runClaude(
  bin: string,
  o: { model: ScriptedModel; home: string; cwd: string; prompt?: string; allowedTools?: string[]; env?: Record<string, string>; args?: string[]; timeout?: number },
): Promise<ClaudeRun> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: o.home,
    ANTHROPIC_BASE_URL: o.model.url,
    ANTHROPIC_API_KEY: 'dummy',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    NO_COLOR: '1',
    ...o.env,
  };
  const args = ['-p', o.prompt ?? 'run the scripted calls', '--output-format', 'json', '--allowedTools', ...(o.allowedTools ?? ['Bash']), ...(o.args ?? [])];
  return runHarness(bin, args, { cwd: o.cwd, env, timeout: o.timeout });
}
