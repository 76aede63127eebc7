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
import { formatDuration } from '../units.js';
import { BodyNotJson, BodyParser } from './body-parser.js';
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
  /** Sessions open at once (each proxy session holds an upstream process); a new one beyond is refused. */
  maxSessions: number;
  /** A session with no request for this long is closed. */
  idleSeconds: number;
}

/** --max-sessions and --idle-timeout by default. */
export const DEFAULT_MAX_SESSIONS = 32;
export const DEFAULT_IDLE_TIMEOUT = '30m';

/**
 * Sockets: the headers of a request must come within HEADERS_MS and the whole request within REQUEST_MS (a
 * client that opens connections and sends nothing, or a byte a second, ties nothing up for long); an idle
 * keep-alive connection is closed after KEEP_ALIVE_MS. Node checks every CHECK_MS. A response may take as long
 * as its call (an SSE stream stays open): these bound what the client sends, not what the server answers.
 */
const HEADERS_MS = 10_000;
const REQUEST_MS = 60_000;
const KEEP_ALIVE_MS = 5_000;
const CHECK_MS = 1_000;

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

/**
 * Request bytes the main thread takes in one turn of the event loop, across every request. libuv reads a ready
 * socket up to 32 times a turn: 20 clients' 10 MB uploads at once were read tens of megabytes a turn (up to 175 ms
 * of the main thread, on a loaded machine), and another client's lro_ls, which needs several turns (its request,
 * the worker's answer, the response), waited that long at each. A body past the turn's share waits for the next
 * turn, its socket paused meanwhile (the request's buffer fills and Node stops reading it).
 */
const TURN_BYTES = 1024 * 1024;

/** The bytes read in this turn of the event loop (see TURN_BYTES). */
const turn = { bytes: 0, next: null as Promise<void> | null };

/** Counts `n` bytes read; resolves at once within the turn's share, else in the next turn. */
function readInTurn(n: number): Promise<void> | undefined {
  turn.next ??= new Promise<void>((resolve) =>
    setImmediate(() => {
      [turn.bytes, turn.next] = [0, null];
      resolve();
    }),
  );
  turn.bytes += n;
  return turn.bytes > TURN_BYTES ? turn.next : undefined;
}

/** A request's body, read whole (at most MAX_CLIENT_MESSAGE bytes), and its JSON value (see body-parser.ts). */
async function readJson(req: IncomingMessage, parser: BodyParser): Promise<unknown> {
  const body = parser.body();
  let size = 0;
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_CLIENT_MESSAGE) throw new TooLarge();
      body.add(chunk as Buffer);
      await readInTurn((chunk as Buffer).length);
    }
  } catch (e) {
    body.drop();
    throw e;
  }
  return body.end();
}

/** The body of a POST, or the error response already sent for it (undefined). */
async function bodyOf(req: IncomingMessage, res: ServerResponse, parser: BodyParser): Promise<{ body: unknown } | undefined> {
  try {
    return { body: await readJson(req, parser) };
  } catch (e) {
    if (e instanceof TooLarge) jsonError(res, 413, -32000, `Payload too large: at most ${MAX_CLIENT_MESSAGE} bytes`);
    else if (e instanceof BodyNotJson) jsonError(res, 400, -32700, 'Parse error: the body is not JSON');
    else throw e;
    return undefined;
  }
}

/** The Host and Origin headers a request may carry (known once the server listens). */
type Allowed = { hosts: string[]; origins: string[] };

/** One client session: its transport, what serves it, and when it was last used. */
interface Entry {
  transport: StreamableHTTPServerTransport;
  session: Session;
  /** Requests of this session being answered (an open SSE stream among them). */
  active: number;
  lastUsed: number;
}

/** The open sessions, at most maxSessions, each closed when idle for idleSeconds. */
class Sessions {
  private readonly open = new Map<string, Entry>();
  /** Sessions being opened (their server or upstream starting): they count against the limit too. */
  private starting = 0;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly o: HttpOptions,
    private readonly warn: (message: string) => void,
  ) {
    const every = Math.min(60_000, Math.max(100, (o.idleSeconds * 1000) / 4));
    this.sweeper = setInterval(() => this.closeIdle(), every).unref();
  }

  /** Why no session can be opened now, or null. */
  full(): string | null {
    if (this.open.size + this.starting < this.o.maxSessions) return null;
    const idle = formatDuration(this.o.idleSeconds);
    const n = this.o.maxSessions;
    const open = n === 1 ? '1 session is open' : `${n} sessions are open`;
    const end = `end one (DELETE ${MCP_PATH} with its Mcp-Session-Id)`;
    return `Service Unavailable: ${open} (--max-sessions): ${end} or retry once one has been idle for ${idle}`;
  }

  /** Opens a session with `start`, counted while it starts. */
  async opening<T>(start: () => Promise<T>): Promise<T> {
    this.starting++;
    try {
      return await start();
    } finally {
      this.starting--;
    }
  }

  add(id: string, entry: Entry): void {
    this.open.set(id, entry);
  }

  delete(id: string): void {
    this.open.delete(id);
  }

  /** The session of a request, marked busy until the response ends. */
  use(id: string, res: ServerResponse): Entry | undefined {
    const e = this.open.get(id);
    if (!e) return undefined;
    e.active++;
    e.lastUsed = Date.now();
    res.once('close', () => {
      e.active--;
      e.lastUsed = Date.now();
    });
    return e;
  }

  private closeIdle(): void {
    const before = Date.now() - this.o.idleSeconds * 1000;
    for (const [id, e] of this.open) {
      if (e.active > 0 || e.lastUsed > before) continue;
      this.open.delete(id);
      this.warn(`closed session ${id}: no request for ${formatDuration(this.o.idleSeconds)} (--idle-timeout)`);
      void e.transport.close().catch(() => undefined);
      void e.session.close().catch(() => undefined);
    }
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.allSettled([...this.open.values()].map((e) => e.session.close()));
  }
}

const isLoopback = (host: string) => /^127\.|^::1$|^localhost$|^::ffff:127\./i.test(host);

/**
 * Serves MCP over HTTP until SIGINT or SIGTERM; returns the exit code. With `sharedStrings`, long strings of a
 * large request's tool call arguments reach the call as shared memory (body-parser.ts): for calls that run on the
 * tool pool's workers, which make them strings again.
 */
export async function serveHttp(o: HttpOptions, io: IO, connect: Connect, sharedStrings = false): Promise<number> {
  const warn = (m: string) => void io.stderr.write(`lro: ${m}\n`).catch(() => undefined);
  const sessions = new Sessions(o, warn);
  const allowed: Allowed = { hosts: [], origins: [] };
  const parser = new BodyParser(sharedStrings);
  const handle = requestHandler(o, sessions, allowed, connect, parser);
  const server = createServer({ connectionsCheckingInterval: CHECK_MS }, (req, res) => {
    handle(req, res).catch((e: Error) => {
      warn(`HTTP request failed: ${e.message}`);
      jsonError(res, 500, -32603, 'Internal error');
    });
  });
  // a connection that sends nothing at all is not a request yet, which headersTimeout does not cover
  server.on('connection', (socket) => socket.setTimeout(HEADERS_MS, () => socket.destroy()));
  server.on('request', (req: IncomingMessage) => req.socket.setTimeout(0)); // an answer may take as long as its call
  server.headersTimeout = HEADERS_MS;
  server.requestTimeout = REQUEST_MS;
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(new LroError(`cannot listen on ${o.host}:${o.port}: ${e.code ?? e.message}: pick another --port or --host`)));
    server.listen(o.port, o.host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : o.port;
  const names = hostNames(o.host, o.allowedHosts);
  allowed.hosts.push(...names.map((n) => `${n}:${port}`));
  allowed.origins.push(...names.map((n) => `http://${n}:${port}`));
  const url = `http://${names[0]}:${port}${MCP_PATH}`;
  const auth = o.showToken ? `Authorization: Bearer ${o.token}` : 'Authorization: Bearer <the token in --token-file>';
  if (!isLoopback(o.host)) {
    const where = o.host === '0.0.0.0' || o.host === '::' ? 'every network interface' : o.host;
    const who = `whoever can reach port ${port} and has the token can read every stored result`;
    warn(`warning: serving on ${where}, not only this machine: ${who}; bind 127.0.0.1 (the default) unless that is meant`);
  }
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
  await Promise.all([sessions.closeAll(), parser.close()]);
  return 0;
}

/** What answers each request: the token checked, then a session's transport, or a new session. */
function requestHandler(o: HttpOptions, sessions: Sessions, allowed: Allowed, connect: Connect, parser: BodyParser) {
  const open = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const read = await bodyOf(req, res, parser);
    if (!read) return;
    const { body } = read;
    const initializes = Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
    if (!initializes) return jsonError(res, 400, -32000, 'Bad Request: No valid session ID provided');
    const full = sessions.full();
    if (full) return jsonError(res, 503, -32000, full, { 'retry-after': '60' });
    await sessions.opening(async () => {
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableDnsRebindingProtection: true,
        allowedHosts: allowed.hosts,
        allowedOrigins: allowed.origins,
        maxRequestBodySize: MAX_CLIENT_MESSAGE, // lro_offload's content comes in a request
        onsessioninitialized: (id) => sessions.add(id, entry),
      });
      const entry: Entry = { transport, session: await connect(transport), active: 0, lastUsed: Date.now() };
      const onclose = transport.onclose;
      transport.onclose = () => {
        onclose?.();
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await transport.handleRequest(req, res, body);
      if (!transport.sessionId) await entry.session.close(); // refused (Host, Origin) or not a valid initialize
    });
  };

  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!authorized(req.headers.authorization, o.token)) {
      return jsonError(res, 401, -32001, 'Unauthorized: send the token as Authorization: Bearer <token>', { 'www-authenticate': 'Bearer realm="lro"' });
    }
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== MCP_PATH) return jsonError(res, 404, -32000, `Not found: the MCP endpoint is ${MCP_PATH}`);
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      const s = sessions.use(sid, res);
      if (!s) return jsonError(res, 404, -32001, 'Session not found');
      if (req.method !== 'POST') return s.transport.handleRequest(req, res);
      // the body read and parsed here, a large one off the main thread: the SDK would parse it on it
      const read = await bodyOf(req, res, parser);
      return read && s.transport.handleRequest(req, res, read.body);
    }
    if (req.method !== 'POST') return jsonError(res, 400, -32000, 'Bad Request: No valid session ID provided');
    return open(req, res);
  };
}
