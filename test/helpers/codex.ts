// The real Codex, driven offline: the pinned release installed once into a cache folder outside the repo (never a
// project dependency), and a scripted Responses API server on 127.0.0.1 that plays shell calls and keeps every
// request, so a test reads the `function_call_output` exactly as the model would have received it.
// The method and what was seen with it: the design notes on harnesses (HARNESSES.md).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ensureHarness, runHarness, type HarnessInstall, type HarnessRun, type PinnedHarness } from './harness-install.js';

export const CODEX_VERSION = '0.169.0';

/** The pinned release, as the cache folder holds it. */
const PINNED: PinnedHarness = { pkg: '@openai/codex', version: CODEX_VERSION, bin: 'codex', folder: 'codex' };

/** Installs the pinned codex into the test cache unless it is there: its binary, or why it cannot be had. */
export const ensureCodex = (): HarnessInstall => ensureHarness(PINNED);

/** One turn of the scripted model: an `exec_command` call (or `tool`) with these arguments, or a final answer. */
export type Step = { exec: Record<string, unknown>; tool?: string } | { text: string };

/** What the model received for a call: the `function_call_output` of a later request. */
export interface CallOutput {
  call_id: string;
  output: string;
}

interface Body {
  input?: { type?: string; call_id?: string; output?: unknown; content?: { text?: string }[] }[];
  text?: { format?: { name?: string } };
}

/** A request of Codex's automatic approval reviewer (--approve-for-me): it asks for a JSON assessment. */
const isReview = (body: Body): boolean => body.text?.format?.name === 'codex_output_schema';

function outputsIn(body: Body): CallOutput[] {
  return (body.input ?? [])
    .filter((i) => i.type === 'function_call_output')
    .map((i) => ({ call_id: String(i.call_id), output: typeof i.output === 'string' ? i.output : JSON.stringify(i.output) }));
}

export interface ScriptedModel {
  url: string;
  requests: { path: string; body: Body }[];
  /** The texts of the approval reviews Codex asked for (what the reviewer was shown). */
  reviews(): string[];
  /** The function_call_output items of the last request (one per scripted call that ran), in order. */
  outputs(): CallOutput[];
  close(): Promise<void>;
}

/**
 * A Responses API server that plays `steps`: a request holding k call outputs gets step k (a step may be a
 * function of the outputs so far, to use an id the model was just given); past the end, a short text.
 */
export async function startScriptedModel(
  steps: (Step | ((outputs: CallOutput[]) => Step))[],
  review: 'allow' | 'deny' = 'deny',
): Promise<ScriptedModel> {
  const requests: { path: string; body: Body }[] = [];
  let n = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Body = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Body;
      } catch {
        // not JSON
      }
      const path = req.url ?? '';
      requests.push({ path, body });
      if (!path.includes('/responses')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{}');
        return;
      }
      n += 1;
      const outputs = outputsIn(body);
      const next = steps[outputs.length];
      let step = next === undefined ? { text: 'done' } : typeof next === 'function' ? next(outputs) : next;
      if (isReview(body)) step = { text: JSON.stringify({ outcome: review, risk_level: 'high', user_authorization: 'unknown', rationale: 'scripted' }) };
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const event = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      event('response.created', { response: { id: `resp_${n}` } });
      const item =
        'exec' in step
          ? { type: 'function_call', call_id: `call_${n}`, name: step.tool ?? 'exec_command', arguments: JSON.stringify(step.exec) }
          : { type: 'message', role: 'assistant', id: `msg_${n}`, content: [{ type: 'output_text', text: step.text }] };
      event('response.output_item.done', { item });
      const usage = { input_tokens: 10, input_tokens_details: null, output_tokens: 5, output_tokens_details: null, total_tokens: 15 };
      event('response.completed', { response: { id: `resp_${n}`, usage } });
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    reviews: () =>
      requests.filter((r) => isReview(r.body)).map((r) => (r.body.input ?? []).flatMap((i) => (i.content ?? []).map((c) => c.text ?? '')).join('')),
    outputs() {
      let best: CallOutput[] = [];
      for (const r of requests) {
        if (isReview(r.body)) continue;
        const o = outputsIn(r.body);
        if (o.length > best.length) best = o;
      }
      return best;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The config.toml lines that point Codex at the scripted model. */
export function modelConfig(model: ScriptedModel): string {
  return [
    'model = "gpt-5.1"',
    'model_provider = "mock"',
    '',
    '[model_providers.mock]',
    'name = "mock"',
    `base_url = "${model.url}"`,
    'wire_api = "responses"',
    'env_key = "MOCK_API_KEY"',
    '',
  ].join('\n');
}

export type CodexRun = HarnessRun;

/** Runs `codex exec` with CODEX_HOME `codexHome` in `cwd` (the model provider must be in its config.toml). */
export function runCodex(
  bin: string,
  o: { codexHome: string; home: string; cwd: string; args?: string[]; env?: Record<string, string>; timeout?: number },
): Promise<CodexRun> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: o.home,
    CODEX_HOME: o.codexHome,
    MOCK_API_KEY: 'dummy',
    NO_COLOR: '1',
    ...o.env,
  };
  const args = ['exec', '--skip-git-repo-check', ...(o.args ?? ['-s', 'danger-full-access']), 'run the scripted calls'];
  return runHarness(bin, args, { cwd: o.cwd, env, timeout: o.timeout });
}
