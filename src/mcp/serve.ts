// Running `lro mcp` and `lro mcp proxy`: the options checked, the tools loaded with the store's location, and the
// server or the relay put on stdio or HTTP. Loaded only by those commands (the SDK comes with it).
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { LroError, UsageError } from '../errors.js';
import type { IO } from '../io.js';
import { offloadOptions, type OffloadCliOptions } from '../commands/offload.js';
import { parseCount } from '../units.js';
import { newToken, readToken } from './auth.js';
import { serveHttp, type HttpOptions } from './http.js';
import { LroTools } from './lro-tools.js';
import { guardToolCalls } from './client-messages.js';
import { ResultOffloader } from './offload-result.js';
import { Relay } from './relay.js';
import { lroServer } from './server.js';
import { stdioServerTransport } from './stdio.js';
import { startUpstream, type UpstreamTarget } from './upstream.js';

/** Options of `lro mcp` (and of the proxy, which serves the same way). */
export interface McpOptions {
  dir?: string;
  http?: boolean;
  host?: string;
  port?: string;
  tokenFile?: string;
  allowedHost?: string[];
  allowDir?: string[];
}

/** Options of `lro mcp proxy`. */
export interface ProxyOptions extends McpOptions, OffloadCliOptions {
  url?: string;
  header?: string[];
  exclude?: string[];
  thresholdFor?: string[];
}

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

function httpOptions(o: McpOptions): HttpOptions {
  const port = o.port !== undefined ? parseCount(o.port, '--port') : 0;
  if (port > 65535) throw new UsageError(`invalid --port '${o.port}': at most 65535`);
  const token = o.tokenFile !== undefined ? readToken(o.tokenFile) : newToken();
  return { host: o.host ?? '127.0.0.1', port, token, showToken: o.tokenFile === undefined, allowedHosts: o.allowedHost ?? [] };
}

/** `lro mcp`: lro's tools as an MCP server on stdio, or on HTTP with --http. */
export async function runMcpServer(o: McpOptions, io: IO): Promise<number> {
  const http = o.http ? httpOptions(o) : null; // usage errors before anything starts
  if (!o.http && (o.port !== undefined || o.tokenFile !== undefined || o.host !== undefined)) {
    throw new UsageError('--port, --host and --token-file go with --http');
  }
  const tools = await LroTools.load(toolEnv(o, io), undefined, allowDirs(o));
  if (http) {
    return serveHttp(http, io, async (transport) => {
      const { server } = lroServer(tools);
      await server.connect(transport);
      guardToolCalls(transport);
      return { close: () => server.close() };
    });
  }
  const { transport, ended, stop } = stdioServerTransport(io);
  const { server, idle } = lroServer(tools);
  const closed = new Promise<void>((resolve) => (server.onclose = resolve));
  await server.connect(transport);
  const unsignal = io.onSignal?.(() => void server.close());
  await Promise.race([ended.then(idle), closed]);
  unsignal?.();
  await server.close();
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
  const http = o.http ? httpOptions(o) : null;
  const tools = await LroTools.load(toolEnv(o, io), (t) => !t.serverOnly, allowDirs(o));
  const warn = (m: string) => void io.stderr.write(`lro: ${m}\n`).catch(() => undefined);
  const offloader = new ResultOffloader({
    options: offloadOptions(o, io),
    thresholdFor: thresholds(o.thresholdFor),
    exclude: new Set(o.exclude ?? []),
    descriptor: o.descriptor === 'json' ? 'json' : 'text',
    calls: tools.calls,
  });
  if (http) {
    // one upstream per client session
    return serveHttp(http, io, async (transport) => {
      const relay = new Relay(transport, await startUpstream(target, io), tools, offloader, warn);
      await relay.start();
      void relay.ended.then((reason) => reason && warn(`a session ended: ${reason}`));
      return { close: () => relay.close() };
    });
  }
  const upstream = await startUpstream(target, io);
  const { transport, ended, stop } = stdioServerTransport(io);
  const relay = new Relay(transport, upstream, tools, offloader, warn);
  await relay.start();
  void ended.then(() => relay.finish());
  const unsignal = io.onSignal?.(() => void relay.close(null));
  const reason = await relay.ended;
  unsignal?.();
  stop();
  if (reason) throw new LroError(reason);
  return 0;
}
