// End-to-end: `lro mcp --http` and `lro mcp proxy --http`: refused without the token (or with a wrong one),
// refused with a foreign Host or Origin (the SDK's DNS-rebinding protection), served with both right; a token
// from --token-file; one upstream per client session; and the proxy reaching its upstream with --url.
import { createServer } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, tempDir } from '../helpers/cli.js';
import { childPids, EVERYTHING, httpClient, httpServer, INITIALIZE, mcpEnv, NODE, progressPrefix, rawRequest, spawnedClient, stdioClient, textOf } from '../helpers/mcp.js';

let root: string;
const children: ChildProcess[] = [];
const clients: Client[] = [];

beforeAll(() => {
  root = tempDir();
});
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  for (const c of children) c.kill('SIGKILL');
  cleanup(root);
});

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('lro mcp --http', () => {
  let server: Awaited<ReturnType<typeof httpServer>>;
  let host: string;

  beforeAll(async () => {
    server = await httpServer(['mcp', '--http'], mcpEnv(join(root, 'store')));
    children.push(server.child);
    host = new URL(server.url).host;
  });

  it('binds 127.0.0.1 and prints the URL and a new token once', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(server.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(server.stderr().match(/Bearer/g)).toHaveLength(1);
  });

  it('refuses a request without the token, with a wrong one, or another scheme (401)', async () => {
    for (const auth of [undefined, 'Bearer wrong-token', `Bearer ${server.token}x`, `Basic ${server.token}`, `Bearer`]) {
      const r = await rawRequest(server.url, { ...MCP_HEADERS, ...(auth ? { Authorization: auth } : {}) }, INITIALIZE);
      expect(r.status, String(auth)).toBe(401);
      expect(JSON.parse(r.body).error.message).toMatch(/^Unauthorized/);
    }
    const get = await rawRequest(server.url, {}, undefined, 'GET');
    expect(get.status).toBe(401);
  });

  it('refuses a foreign Host or Origin even with the token (403)', async () => {
    const auth = { ...MCP_HEADERS, Authorization: `Bearer ${server.token}` };
    const badHost = await rawRequest(server.url, { ...auth, Host: `evil.example:${new URL(server.url).port}` }, INITIALIZE);
    expect(badHost.status).toBe(403);
    expect(badHost.body).toContain('Invalid Host header');
    const badOrigin = await rawRequest(server.url, { ...auth, Origin: 'http://evil.example' }, INITIALIZE);
    expect(badOrigin.status).toBe(403);
    expect(badOrigin.body).toContain('Invalid Origin header');
  });

  it('serves with the token and the right Host and Origin', async () => {
    const r = await rawRequest(server.url, { ...MCP_HEADERS, Authorization: `Bearer ${server.token}`, Host: host, Origin: `http://${host}` }, INITIALIZE);
    expect(r.status).toBe(200);
    expect(r.body).toContain('"serverInfo":{"name":"lro"');
    const elsewhere = await rawRequest(server.url.replace('/mcp', '/other'), { ...MCP_HEADERS, Authorization: `Bearer ${server.token}` }, INITIALIZE);
    expect(elsewhere.status).toBe(404);
    const noSession = await rawRequest(server.url, { ...MCP_HEADERS, Authorization: `Bearer ${server.token}`, 'mcp-session-id': 'nope' }, '{}');
    expect(noSession.status).toBe(404);
  });

  it("the SDK's Client works with the token: tools, offload and read", async () => {
    const c = await httpClient(server.url, server.token);
    clients.push(c);
    expect((await c.listTools()).tools.map((t) => t.name)).toContain('lro_offload');
    const stored = await c.callTool({ name: 'lro_offload', arguments: { content: 'one\ntwo\nthree\n', force: true } });
    const id = (stored.structuredContent as { id: string }).id;
    expect(textOf(await c.callTool({ name: 'lro_read', arguments: { id, records: '2:3' } }))).toBe('2: two\n3: three\n');
  });

  it('takes its token from --token-file, and then does not print it; stops on SIGTERM', async () => {
    const file = join(root, 'token');
    writeFileSync(file, 'a-token-from-a-file\n', { mode: 0o600 });
    const child = spawn(NODE, [join(__dirname, '../../bin/lro.js'), 'mcp', '--http', '--token-file', file], { env: mcpEnv(join(root, 'store')) });
    children.push(child);
    let err = '';
    const url = await new Promise<string>((done) => child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /serving MCP at (\S+)/.exec(err);
      if (m) done(m[1]);
    }));
    expect(err).toContain('(Authorization: Bearer <the token in --token-file>)');
    expect(err).not.toContain('a-token-from-a-file');
    const c = await httpClient(url, 'a-token-from-a-file');
    expect((await c.listTools()).tools.length).toBe(8);
    await c.close();
    const exited = new Promise((done) => child.once('exit', (code) => done(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

describe('lro mcp proxy --http', () => {
  it('gives each client session its own upstream, with progress on its stream', async () => {
    const server = await httpServer(['mcp', 'proxy', '--http', '--', NODE, EVERYTHING, 'stdio'], mcpEnv(join(root, 'store')));
    children.push(server.child);
    const [a, b] = [await httpClient(server.url, server.token), await httpClient(server.url, server.token)];
    clients.push(a, b);
    expect(childPids(server.child.pid!)).toHaveLength(2);
    const progress: unknown[] = [];
    const r = await a.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 2 } }, undefined, { onprogress: (p) => void progress.push(p) });
    expect(textOf(r)).toMatch(/^Long running operation completed/);
    expect(progressPrefix(progress, 2), JSON.stringify(progress)).toBe(true);
    expect(textOf(await b.callTool({ name: 'echo', arguments: { message: 'b' } }))).toBe('Echo: b');
    // ending a session (DELETE) stops its upstream
    await (b.transport as StreamableHTTPClientTransport).terminateSession();
    for (let i = 0; i < 200 && childPids(server.child.pid!).length > 1; i++) await new Promise((done) => setTimeout(done, 50));
    expect(childPids(server.child.pid!)).toHaveLength(1);
  });
});

/** server-everything serving Streamable HTTP on a free port. */
async function everythingOverHttp(): Promise<{ url: string; upstream: ChildProcess }> {
  const port = await new Promise<number>((done) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => done(p));
    });
  });
  const upstream = spawn(NODE, [EVERYTHING, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(upstream);
  await new Promise<void>((done) => upstream.stderr!.on('data', (d: Buffer) => d.toString().includes('listening') && done()));
  return { url: `http://127.0.0.1:${port}/mcp`, upstream };
}

describe('lro mcp proxy --url', () => {
  it('reaches an upstream over Streamable HTTP, results offloaded as over stdio', async () => {
    const { url } = await everythingOverHttp();
    const store = join(root, 'store-url');
    const { client } = await stdioClient(['mcp', 'proxy', '--threshold-for', 'echo=1', '--url', url], mcpEnv(store));
    clients.push(client);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'lro_read']));
    expect(textOf(await client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } }))).toBe('The sum of 1 and 2 is 3.');
    const echoed = await client.callTool({ name: 'echo', arguments: { message: 'stored, as any result above its threshold' } });
    const id = /\bid: ([0-9A-Z]{26})\b/.exec(textOf(echoed))![1];
    expect(textOf(await client.callTool({ name: 'lro_read', arguments: { id, raw: true } }))).toBe('Echo: stored, as any result above its threshold\n');
  });

  it('an upstream that goes away mid-call: the call gets an error result, lro exits 2 saying so', async () => {
    const { url, upstream } = await everythingOverHttp();
    const p = await spawnedClient(['mcp', 'proxy', '--url', url], mcpEnv(join(root, 'store-url')));
    let firstProgress!: () => void;
    const progressed = new Promise<void>((r) => (firstProgress = r));
    const pending = p.client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 120, steps: 120 } }, undefined, {
      onprogress: () => firstProgress(),
      timeout: 300_000,
    });
    await progressed;
    upstream.kill('SIGKILL');
    const r = (await pending) as { isError?: boolean };
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(new RegExp(`^lro: the upstream MCP server \\(${url}\\) went away: .* before answering$`));
    expect(await p.exited).toEqual({ code: 2, signal: null });
    expect(p.stderr()).toMatch(new RegExp(`lro: the upstream MCP server \\(${url}\\) went away: [^\\n]+\\n$`));
  });
});
