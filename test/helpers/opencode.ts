// The real opencode, driven offline: the pinned release installed once into a cache folder outside the repo (as
// test/helpers/codex.ts does for Codex), its model a scripted OpenAI-compatible Chat Completions server on
// 127.0.0.1 (opencode's `@ai-sdk/openai-compatible` provider with a baseURL), which records every tool result the
// model is sent.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ensureHarness, type HarnessInstall, type PinnedHarness } from './harness-install.js';

export const OPENCODE_VERSION = '1.18.33';

/** The pinned release, as the cache folder holds it. */
const PINNED: PinnedHarness = { pkg: 'opencode-ai', version: OPENCODE_VERSION, bin: 'opencode', folder: 'opencode' };

/** Installs the pinned opencode into the test cache unless it is there: its binary, or why it cannot be had. */
export const ensureOpencode = (): HarnessInstall => ensureHarness(PINNED);

/** A scripted model: each request that offers `tool` gets one call of it with `args`, then a final answer. */
export interface ChatModel {
  baseURL: string;
  /** The tool results the model was sent, in order. */
  results: string[];
  /** The tool names the model was offered in its last request that had any. */
  tools: string[];
  /** The next run's call. */
  script(tool: string, args: Record<string, unknown>): void;
  close(): Promise<void>;
}

interface ChatRequest {
  messages: { role: string; content: unknown }[];
  tools?: { function: { name: string } }[];
}

export async function startChatModel(): Promise<ChatModel> {
  let call: { tool: string; args: Record<string, unknown> } | null = null;
  const model: ChatModel = {
    baseURL: '',
    results: [],
    tools: [],
    script: (tool, args) => void (call = { tool, args }),
    close: () => new Promise((done) => server.close(() => done())),
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      if (!req.url?.endsWith('/chat/completions')) return void res.writeHead(404).end();
      const request = JSON.parse(body) as ChatRequest;
      const tools = (request.tools ?? []).map((t) => t.function.name);
      if (tools.length) model.tools = tools;
      const answered = request.messages.filter((m) => m.role === 'tool');
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: object, finish: string | null = null) => {
        const choices = [{ index: 0, delta, finish_reason: finish }];
        const event = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices };
        res.write(`data: ${JSON.stringify(event)}\n\n`);
      };
      if (call && tools.includes(call.tool) && !answered.length) {
        const fn = { name: call.tool, arguments: JSON.stringify(call.args) };
        chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: fn }] });
        chunk({}, 'tool_calls');
      } else {
        // a title request (no tools), or the turn after the tool's result: a final answer
        for (const m of answered) {
          model.results.push(typeof m.content === 'string' ? m.content : JSON.stringify(m.content));
        }
        if (answered.length) call = null;
        chunk({ role: 'assistant', content: 'done' });
        chunk({}, 'stop');
      }
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  model.baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return model;
}

/** opencode's provider entry for the scripted model (the config's `provider` and `model`). */
export function chatModelConfig(baseURL: string): Record<string, unknown> {
  const options = { baseURL, apiKey: 'scripted' };
  return {
    model: 'scripted/m',
    provider: {
      scripted: { npm: '@ai-sdk/openai-compatible', name: 'Scripted', options, models: { m: { name: 'm' } } },
    },
  };
}

/** Runs `opencode run PROMPT` in `cwd`; resolves with its output and exit code. */
export function runOpencode(bin: string, prompt: string, cwd: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; out: string }>((done) => {
    const child = spawn(bin, ['run', '--pure', prompt], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, out });
    });
  });
}
