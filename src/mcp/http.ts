// `--http`: the SDK's Streamable HTTP server transport on plain node:http, one transport per client session. Every
// request must carry the bearer token; the SDK's DNS-rebinding protection allows only Host and Origin headers
// naming the address the server is bound to (127.0.0.1 unless --host says otherwise, plus --allowed-host names).
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { networkInterfaces } from 'node:os';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { LroError } from '../errors.js';
import type { IO } from '../io.js';
import { authorized } from './auth.js';
import { MAX_CLIENT_MESSAGE } from './read-buffer.js';

/** Where to listen and whom to let in. */
export interface HttpOptions {
  host: string;
  port: number;
  token: string;
  /** Print the token with the URL (it was made up at start, so nobody knows it yet). */
  showToken: boolean;
  /** More host names clients may use to reach the server (Host and Origin headers). */
  allowedHosts: string[];
}

/** A client session's server side (lro's server, or a relay to an upstream); closed with the session. */
export interface Session {
  close(): Promise<void>;
}

/** Connects a new session's transport to what serves it. */
export type Connect = (transport: StreamableHTTPServerTransport) => Promise<Session>;

/** The endpoint, as in the SDK's examples and most clients' defaults. */
export const MCP_PATH = '/mcp';

/** Host names a client may use for the bound address: that address, localhost for a loopback one, every interface's for any. */
export function hostNames(host: string, extra: string[]): string[] {
  const names = new Set<string>();
  const bracket = (a: string) => (a.includes(':') ? `[${a}]` : a);
  if (host === '0.0.0.0' || host === '::') {
    for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) names.add(bracket(a.address));
    names.add('localhost');
  } else {
    names.add(bracket(host));
    if (/^127\.|^::1$|^localhost$/.test(host)) names.add('localhost');
  }
  for (const e of extra) names.add(e);
  return [...names];
}

function jsonError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

class TooLarge extends Error {}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_CLIENT_MESSAGE) throw new TooLarge();
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts).toString('utf8');
}

/** Serves MCP over HTTP until SIGINT or SIGTERM; returns the exit code. */
export async function serveHttp(o: HttpOptions, io: IO, connect: Connect): Promise<number> {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; session: Session }>();
  let allowed: { hosts: string[]; origins: string[] } = { hosts: [], origins: [] };

  const open = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch (e) {
      if (e instanceof TooLarge) return jsonError(res, 413, -32000, `Payload too large: at most ${MAX_CLIENT_MESSAGE} bytes`);
      return jsonError(res, 400, -32700, 'Parse error: the body is not JSON');
    }
    const initializes = Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
    if (!initializes) return jsonError(res, 400, -32000, 'Bad Request: No valid session ID provided');
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableDnsRebindingProtection: true,
      allowedHosts: allowed.hosts,
      allowedOrigins: allowed.origins,
      maxRequestBodySize: MAX_CLIENT_MESSAGE, // lro_offload's content comes in a request
      onsessioninitialized: (id) => void sessions.set(id, entry),
    });
    const entry = { transport, session: await connect(transport) };
    const onclose = transport.onclose;
    transport.onclose = () => {
      onclose?.();
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await transport.handleRequest(req, res, body);
    if (!transport.sessionId) await entry.session.close(); // refused (Host, Origin) or not a valid initialize
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!authorized(req.headers.authorization, o.token)) {
      return jsonError(res, 401, -32001, 'Unauthorized: send the token as Authorization: Bearer <token>', { 'www-authenticate': 'Bearer realm="lro"' });
    }
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== MCP_PATH) return jsonError(res, 404, -32000, `Not found: the MCP endpoint is ${MCP_PATH}`);
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      const s = sessions.get(sid);
      if (!s) return jsonError(res, 404, -32001, 'Session not found');
      return s.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return jsonError(res, 400, -32000, 'Bad Request: No valid session ID provided');
    return open(req, res);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: Error) => {
      void io.stderr.write(`lro: HTTP request failed: ${e.message}\n`).catch(() => undefined);
      jsonError(res, 500, -32603, 'Internal error');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(new LroError(`cannot listen on ${o.host}:${o.port}: ${e.code ?? e.message}: pick another --port or --host`)));
    server.listen(o.port, o.host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : o.port;
  const names = hostNames(o.host, o.allowedHosts);
  allowed = { hosts: names.map((n) => `${n}:${port}`), origins: names.map((n) => `http://${n}:${port}`) };
  const url = `http://${names[0]}:${port}${MCP_PATH}`;
  const auth = o.showToken ? `Authorization: Bearer ${o.token}` : 'Authorization: Bearer <the token in --token-file>';
  await io.stderr.write(`lro: serving MCP at ${url} (${auth})\n`);

  await new Promise<void>((resolve) => {
    const stop = io.onSignal?.(() => resolve());
    server.once('close', () => {
      stop?.();
      resolve();
    });
  });
  server.close();
  server.closeAllConnections();
  await Promise.allSettled([...sessions.values()].map((s) => s.session.close()));
  return 0;
}
