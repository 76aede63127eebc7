// The real Gemini CLI, driven offline: the pinned release installed once into a cache folder outside the repo
// (never a project dependency), and a scripted Gemini API server on 127.0.0.1 that plays shell calls and keeps
// every request, so a test reads the `functionResponse` exactly as the model would have received it.
// The method and what was seen with it: the design notes on harnesses (HARNESSES.md).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ensureHarness, runHarness, type HarnessInstall, type HarnessRun, type PinnedHarness } from './harness-install.js';

export const GEMINI_VERSION = '0.61.0';

/** The pinned release, as the cache folder holds it. */
const PINNED: PinnedHarness = { pkg: '@google/gemini-cli', version: GEMINI_VERSION, bin: 'gemini', folder: 'gemini-cli' };

/** Installs the pinned gemini into the test cache unless it is there: its binary, or why it cannot be had. */
export const ensureGemini = (): HarnessInstall => ensureHarness(PINNED);

/** One turn of the scripted model: a `run_shell_command` call (or `tool`) with these arguments, or a final answer. */
export type Step = { call: Record<string, unknown>; tool?: string } | { text: string };

/** What the model received for a call: the `functionResponse` of a later request. */
export interface CallOutput {
  name: string;
  response: Record<string, unknown>;
  /** The text the model reads: response.output, else response.error, else the response as JSON. */
  text: string;
}

interface Part {
  text?: string;
  functionCall?: { name: string; args: unknown };
  functionResponse?: { name?: string; response?: Record<string, unknown> };
}
interface Body {
  contents?: { role?: string; parts?: Part[] }[];
  generationConfig?: { responseJsonSchema?: unknown; responseMimeType?: string };
}

const textOf = (response: Record<string, unknown>): string => {
  for (const key of ['output', 'error']) if (typeof response[key] === 'string') return response[key] as string;
  return JSON.stringify(response);
};

function outputsIn(body: Body): CallOutput[] {
  const out: CallOutput[] = [];
  for (const c of body.contents ?? []) {
    for (const p of c.parts ?? []) {
      if (!p.functionResponse) continue;
      const response = p.functionResponse.response ?? {};
      out.push({ name: String(p.functionResponse.name), response, text: textOf(response) });
    }
  }
  return out;
}

export interface ScriptedModel {
  url: string;
  requests: { path: string; body: Body }[];
  /** The functionResponse parts of the last main-loop request (one per scripted call that ran), in order. */
  outputs(): CallOutput[];
  close(): Promise<void>;
}

/** A side call's JSON answer: the routing classifier's (which model takes the turn), else an empty object. */
function sideAnswer(body: Body): string {
  const schema = JSON.stringify(body.generationConfig ?? '');
  if (schema.includes('complexity_score')) {
    return JSON.stringify({ complexity_reasoning: 'scripted', complexity_score: 10 });
  }
  if (schema.includes('model_choice')) return JSON.stringify({ reasoning: 'scripted', model_choice: 'flash' });
  return '{}';
}

function respond(res: ServerResponse, sse: boolean, parts: Part[]): void {
  const chunk = {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
  };
  if (!sse) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(chunk));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.end(`data: ${JSON.stringify(chunk)}\n\n`);
}

/**
 * A Gemini API server that plays `steps` on :streamGenerateContent: a request holding k function responses gets
 * step k (a step may be a function of the outputs so far, to use an id the model was just given); past the end, a
 * short text. Side calls (:generateContent) get the JSON they ask for, so Gemini CLI neither retries nor falls back.
 */
export async function startScriptedModel(steps: (Step | ((outputs: CallOutput[]) => Step))[]): Promise<ScriptedModel> {
  const requests: { path: string; body: Body }[] = [];
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
      if (path.includes(':generateContent')) return respond(res, false, [{ text: sideAnswer(body) }]);
      if (!path.includes(':streamGenerateContent')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        return res.end('{}');
      }
      const outputs = outputsIn(body);
      const next = steps[outputs.length];
      const step = next === undefined ? { text: 'done' } : typeof next === 'function' ? next(outputs) : next;
      const part = 'call' in step
        ? { functionCall: { name: step.tool ?? 'run_shell_command', args: step.call } }
        : { text: step.text };
      respond(res, true, [part]);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    outputs() {
      let best: CallOutput[] = [];
      for (const r of requests) {
        if (!r.path.includes(':streamGenerateContent')) continue;
        const o = outputsIn(r.body);
        if (o.length > best.length) best = o;
      }
      return best;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The user settings that let Gemini CLI talk to the scripted model with an API key (and nothing else). */
export const MODEL_SETTINGS = { security: { auth: { selectedType: 'gemini-api-key' } } };

export type GeminiRun = HarnessRun;

/** Runs `gemini -p … --yolo` with HOME `home` in `cwd`, against the scripted model at `url`. */
export function runGemini(
  bin: string,
  o: { home: string; cwd: string; url: string; args?: string[]; env?: Record<string, string>; timeout?: number },
): Promise<GeminiRun> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: o.home,
    GEMINI_API_KEY: 'dummy',
    GOOGLE_GEMINI_BASE_URL: o.url,
    NO_COLOR: '1',
    ...o.env,
  };
  const args = ['-p', 'run the scripted calls', ...(o.args ?? ['--yolo'])];
  return runHarness(bin, args, { cwd: o.cwd, env, timeout: o.timeout });
}
