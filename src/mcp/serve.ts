// Running `lro mcp` and `lro mcp proxy`: the options checked, the tools loaded with the store's location, and the
// server or the relay put on stdio or HTTP. Loaded only by those commands (the SDK comes with it).
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { LroError, UsageError } from '../errors.js';
import type { IO } from '../io.js';
import { offloadOptions, type OffloadCliOptions } from '../offload-settings.js';
import { parseCount, parseDuration } from '../units.js';
import { newToken, readToken } from './auth.js';
import { DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_SESSIONS, serveHttp, type HttpOptions } from './http.js';
import { LroTools } from './lro-tools.js';
import { guardToolCalls } from './client-messages.js';
import { ResultOffloader } from './offload-result.js';
import { sendKeptTextOnHttp } from './raw-json.js';
import { Relay, type RelayLimits } from './relay.js';
import { ResultCap } from './result-cap.js';
import { lroServer } from './server.js';
import { stdioServerTransport } from './stdio.js';
import { CALL_MEMORY_MB, DEFAULT_WORKERS, forClient, ToolPool, toolWorkerScript, type McpTools } from './tool-pool.js';
import { startUpstream, type Upstream, type UpstreamTarget } from './upstream.js';

/** After the client closed stdin, how long the proxy still waits for answers before it stops the upstream. */
const FINISH_SECONDS = 5;

/** Options of `lro mcp` (and of the proxy, which serves the same way). */
export interface McpOptions {
  dir?: string;
  http?: boolean;
  host?: string;
  port?: string;
  tokenFile?: string;
  allowedHost?: string[];
  allowDir?: string[];
  callTimeout?: string;
  maxSessions?: string;
  idleTimeout?: string;
}

/** Options of `lro mcp proxy`. */
export interface ProxyOptions extends McpOptions, OffloadCliOptions {
  url?: string;
  header?: string[];
  exclude?: string[];
  thresholdFor?: string[];
  /** false with --no-tools: lro's tools are not added (the client has them from lro's own server). */
  tools?: boolean;
}

/** No tools of lro's in the proxy's list (--no-tools): every call goes to the upstream. */
const NO_TOOLS: McpTools = {
  list: () => [],
  has: () => false,
  call: () => Promise.reject(new Error('lro mcp proxy --no-tools answers no tool of its own')),
};

/** The environment tools run with: the store named by --dir, as LRO_DIR names it for the CLI. */
function toolEnv(o: McpOptions, io: IO): NodeJS.ProcessEnv {
  return o.dir !== undefined ? { ...io.env, LRO_DIR: resolve(o.dir) } : io.env;
}

/** The directories named by --allow-dir, checked: result files under them may be read by id as a path. */
function allowDirs(o: McpOptions): string[] {
  return (o.allowDir ?? []).map((d) => {
    const dir = resolve(d);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--allow-dir ${d}: not a directory`);
    return dir;
  });
}

/** A duration option that must be more than zero, in seconds. */
function positiveDuration(text: string, what: string): number {
  const s = parseDuration(text, what);
  if (s <= 0) throw new UsageError(`invalid ${what} '${text}': must be more than 0, e.g. 30s or 5m`);
  return s;
}

/** How long one tool call may take, here or upstream (--call-timeout). */
export const DEFAULT_CALL_TIMEOUT = '5m';

function callSeconds(o: McpOptions): number {
  return positiveDuration(o.callTimeout ?? DEFAULT_CALL_TIMEOUT, '--call-timeout');
}

function httpOptions(o: McpOptions): HttpOptions {
  const port = o.port !== undefined ? parseCount(o.port, '--port') : 0;
  if (port > 65535) throw new UsageError(`invalid --port '${o.port}': at most 65535`);
  const maxSessions = parseCount(o.maxSessions ?? String(DEFAULT_MAX_SESSIONS), '--max-sessions');
  if (maxSessions < 1) throw new UsageError(`invalid --max-sessions '${o.maxSessions}': at least 1`);
  const idleSeconds = positiveDuration(o.idleTimeout ?? DEFAULT_IDLE_TIMEOUT, '--idle-timeout');
  const token = o.tokenFile !== undefined ? readToken(o.tokenFile) : newToken();
  const host = o.host ?? '127.0.0.1';
  const showToken = o.tokenFile === undefined;
  return { host, port, token, showToken, allowedHosts: o.allowedHost ?? [], maxSessions, idleSeconds };
}

/** HTTP-only options given without --http: a usage error. */
function checkHttpOnly(o: McpOptions): void {
  if (o.http) return;
  const given = (['port', 'host', 'tokenFile', 'maxSessions', 'idleTimeout'] as const).some((k) => o[k] !== undefined);
  if (given) throw new UsageError('--port, --host, --token-file, --max-sessions and --idle-timeout go with --http');
}

/** lro's tools loaded here (for listing, and reading commands back as calls), how calls run, and its end. */
type LoadedTools = { lro: LroTools; tools: McpTools; close: () => Promise<void> };

/**
 * lro's tools for the server or the proxy: on a pool of worker threads with a time and memory limit per call
 * (tool-pool.ts), or in-process when running from sources (no built worker).
 */
async function loadTools(o: McpOptions, io: IO, proxy: boolean): Promise<LoadedTools> {
  const env = toolEnv(o, io);
  const allowed = allowDirs(o);
  const lro = await LroTools.load(env, proxy ? (t) => !t.serverOnly : undefined, allowed);
  const script = toolWorkerScript();
  if (!script) return { lro, tools: lro, close: async () => undefined };
  const limits = { workers: DEFAULT_WORKERS, callSeconds: callSeconds(o), memoryMb: CALL_MEMORY_MB, shared: o.http === true };
  const pool = new ToolPool(lro, script, { env, proxy, allowDirs: allowed }, limits).warm();
  return { lro, tools: pool, close: () => pool.close() };
}

/** `lro mcp`: lro's tools as an MCP server on stdio, or on HTTP with --http. */
export async function runMcpServer(o: McpOptions, io: IO): Promise<number> {
  checkHttpOnly(o);
  const http = o.http ? httpOptions(o) : null; // usage errors before anything starts
  callSeconds(o);
  const { tools, close } = await loadTools(o, io, false);
  if (http) {
    try {
      return await serveHttp(http, io, async (transport) => {
        const { server } = lroServer(forClient(tools));
        await server.connect(transport);
        guardToolCalls(transport);
        return { close: () => server.close() };
      }, tools instanceof ToolPool);
    } finally {
      await close();
    }
  }
  const { transport, ended, stop } = stdioServerTransport(io);
  const { server, idle } = lroServer(tools);
  const closed = new Promise<void>((resolve) => (server.onclose = resolve));
  await server.connect(transport);
  const unsignal = io.onSignal?.(() => void server.close());
  await Promise.race([ended.then(idle), closed]);
  unsignal?.();
  await server.close();
  await close();
  stop();
  return 0;
}

/** Parses --threshold-for TOOL=N pairs. */
function thresholds(pairs: string[] | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of pairs ?? []) {
    const eq = p.lastIndexOf('=');
    if (eq <= 0) throw new UsageError(`invalid --threshold-for '${p}': use TOOL=TOKENS, e.g. read_text_file=2000`);
    out.set(p.slice(0, eq), parseCount(p.slice(eq + 1), `--threshold-for ${p.slice(0, eq)}`));
  }
  return out;
}

/** Parses --header 'Name: value' pairs (sent to a --url upstream). */
function headers(list: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of list ?? []) {
    const colon = h.indexOf(':');
    if (colon <= 0) throw new UsageError(`invalid --header '${h}': use 'Name: value'`);
    out[h.slice(0, colon).trim()] = h.slice(colon + 1).trim();
  }
  return out;
}

/** `lro mcp proxy`: an upstream MCP server behind lro, large results stored; stdio, or HTTP with --http. */
export async function runMcpProxy(command: string[], o: ProxyOptions, io: IO): Promise<number> {
  if (o.url !== undefined && command.length > 0) throw new UsageError('give an upstream command after --, or --url, not both');
  if (o.url === undefined && command.length === 0) throw new UsageError('no upstream server: lro mcp proxy [options] -- CMD [ARGS...], or --url URL');
  if (o.header && o.url === undefined) throw new UsageError('--header goes with --url');
  const target: UpstreamTarget = o.url !== undefined ? { url: o.url, headers: headers(o.header) } : { command };
  checkHttpOnly(o);
  const http = o.http ? httpOptions(o) : null;
  const warn = (m: string) => void io.stderr.write(`lro: ${m}\n`).catch(() => undefined);
  const options = offloadOptions(o, io);
  const cap = new ResultCap(options);
  const limits: RelayLimits = { callSeconds: callSeconds(o), cap, finishSeconds: FINISH_SECONDS };
  const { lro, tools: own, close } = await loadTools(o, io, true);
  const tools = o.tools === false ? NO_TOOLS : own;
  const offloader = new ResultOffloader({
    options,
    thresholdFor: thresholds(o.thresholdFor),
    exclude: new Set(o.exclude ?? []),
    descriptor: o.descriptor === 'json' ? 'json' : 'text',
    calls: lro.calls,
  });
  try {
    if (http) {
      // one upstream per client session
      return await serveHttp(http, io, async (transport) => {
        const upstream = await startUpstream(target, io);
        const relay = new Relay(sendKeptTextOnHttp(transport), upstream, forClient(tools), offloader, warn, limits);
        await relay.start();
        void relay.ended.then((reason) => reason && warn(`a session ended: ${reason}`));
        return { close: () => relay.close() };
      });
    }
    return await proxyOnStdio(target, io, (down, up) => new Relay(down, up, tools, offloader, warn, limits));
  } finally {
    await close();
  }
}

type RelayOf = (down: Transport, up: Upstream) => Relay;

/** The proxy on stdio: one relay, until the client or the upstream ends it (then the upstream is stopped). */
async function proxyOnStdio(target: UpstreamTarget, io: IO, relayOf: RelayOf): Promise<number> {
  const upstream = await startUpstream(target, io);
  const { transport, ended, stop } = stdioServerTransport(io);
  const relay = relayOf(transport, upstream);
  await relay.start();
  void ended.then(() => relay.finish());
  const unsignal = io.onSignal?.(() => void relay.close(null));
  const reason = await relay.ended;
  unsignal?.();
  stop();
  if (reason) throw new LroError(reason);
  return 0;
}
