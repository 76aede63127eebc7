// End-to-end: `lro mcp --http` and `lro mcp proxy --http`: refused without the token (or with a wrong one),
// refused with a foreign Host or Origin (the SDK's DNS-rebinding protection), served with both right; a token
// from --token-file; one upstream per client session; and the proxy reaching its upstream with --url.
import { Agent, request as httpRequest } from 'node:http';
import { connect, createServer } from 'node:net';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, cleanup, lro, tempDir } from '../helpers/cli.js';
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

  it('stores a large upload byte for byte (its content parsed off the main thread and handed on as shared memory)', async () => {
    const c = await httpClient(server.url, server.token);
    clients.push(c);
    const content = Array.from({ length: 30_000 }, (_, i) => `${i} é€😀 "q" \\ \t end\n`).join('');
    const stored = await c.callTool({ name: 'lro_offload', arguments: { content, force: true } });
    const id = (stored.structuredContent as { id: string }).id;
    const back = await lro(['cat', id], { env: { LRO_DIR: join(root, 'store') } });
    expect(back.code).toBe(0);
    expect(back.out === content).toBe(true);
  });

  it.runIf(process.platform === 'linux')("runs the tools' calls below the priority of the server's thread", async () => {
    const c = await httpClient(server.url, server.token);
    clients.push(c);
    await c.callTool({ name: 'lro_ls', arguments: {} });
    const pid = server.child.pid!;
    // the nice value is the 19th field of a thread's stat, after the command in parentheses
    const nice = (tid: string) => Number(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ')[16]);
    const threads = readdirSync(`/proc/${pid}/task`);
    expect(nice(String(pid))).toBe(0);
    expect(threads.filter((t) => nice(t) === 10).length).toBeGreaterThan(0);
  });

  it('takes its token from --token-file, and then does not print it; stops on SIGTERM', async () => {
    const file = join(root, 'token');
    writeFileSync(file, 'a-token-from-a-file-of-32-characters\n', { mode: 0o600 });
    const child = spawn(NODE, [join(__dirname, '../../bin/lro.js'), 'mcp', '--http', '--token-file', file], { env: mcpEnv(join(root, 'store')) });
    children.push(child);
    let err = '';
    const url = await new Promise<string>((done) => child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /serving MCP at (\S+)/.exec(err);
      if (m) done(m[1]);
    }));
    expect(err).toContain('(Authorization: Bearer <the token in --token-file>)');
    expect(err).not.toContain('a-token-from-a-file-of-32-characters');
    const c = await httpClient(url, 'a-token-from-a-file-of-32-characters');
    expect((await c.listTools()).tools.length).toBe(9);
    await c.close();
    const exited = new Promise((done) => child.once('exit', (code) => done(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

/** A jq filter that computes until stopped. */
const RUNAWAY = 'reduce range(0; 1e12) as $i (0; . + $i)';

/** The id of a small stored result. */
async function storeSmall(c: Client): Promise<string> {
  const stored = await c.callTool({ name: 'lro_offload', arguments: { content: '{"n": 1}\n', force: true } });
  return (stored.structuredContent as { id: string }).id;
}

describe('lro mcp --http: limits', () => {
  // each test's servers are stopped when it ends: left to the end of the file, the upload test's server and the
  // runaway ones held hundreds of MB and a core while the tests after them timed what a server does
  let serversBefore = 0;
  beforeEach(() => {
    serversBefore = children.length;
  });
  afterEach(() => {
    for (const c of children.slice(serversBefore)) c.kill('SIGKILL');
  });

  it('refuses a session beyond --max-sessions with a 503 that says what to do; one more once a session ends', async () => {
    const server = await httpServer(['mcp', '--http', '--max-sessions', '1'], mcpEnv(join(root, 'store')));
    children.push(server.child);
    const first = await httpClient(server.url, server.token);
    const auth = { ...MCP_HEADERS, Authorization: `Bearer ${server.token}` };
    const refused = await rawRequest(server.url, auth, INITIALIZE);
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body).error.message).toBe(
      'Service Unavailable: 1 session is open (--max-sessions): end one (DELETE /mcp with its Mcp-Session-Id) or retry once one has been idle for 30m',
    );
    await (first.transport as StreamableHTTPClientTransport).terminateSession();
    expect((await rawRequest(server.url, auth, INITIALIZE)).status).toBe(200);
  });

  it('closes a session idle for --idle-timeout', async () => {
    const server = await httpServer(['mcp', '--http', '--idle-timeout', '1s'], mcpEnv(join(root, 'store')));
    children.push(server.child);
    // raw requests: the SDK's client keeps a GET stream open, and a session with a stream open is not idle
    const auth0 = { ...MCP_HEADERS, Authorization: `Bearer ${server.token}` };
    const opened = await fetch(server.url, { method: 'POST', headers: auth0, body: INITIALIZE });
    const sid = opened.headers.get('mcp-session-id')!;
    await opened.text();
    expect(sid).toMatch(/^[0-9a-f-]{36}$/);
    await new Promise((done) => setTimeout(done, 2500));
    expect(server.stderr()).toContain(`lro: closed session ${sid}: no request for 1s (--idle-timeout)\n`);
    const auth = { ...MCP_HEADERS, Authorization: `Bearer ${server.token}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
    const r = await rawRequest(server.url, auth, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    expect(r.status).toBe(404);
  });

  it('warns on stderr when bound to every interface', async () => {
    const server = await httpServer(['mcp', '--http', '--host', '0.0.0.0'], mcpEnv(join(root, 'store')));
    children.push(server.child);
    expect(server.stderr()).toMatch(/^lro: warning: serving on every network interface, not only this machine: whoever can reach port \d+ and has the token can read every stored result; bind 127\.0\.0\.1 \(the default\) unless that is meant\n/);
  });

  it("one client's runaway call does not hold up another client's calls", { tags: ['soak'] }, async () => {
    const server = await httpServer(['mcp', '--http'], mcpEnv(join(root, 'store-runaway')));
    children.push(server.child);
    const [a, b] = [await httpClient(server.url, server.token), await httpClient(server.url, server.token)];
    clients.push(a, b);
    await b.callTool({ name: 'lro_ls', arguments: {} });
    const id = await storeSmall(a);
    const runaway = a.callTool({ name: 'lro_jq', arguments: { id, filter: RUNAWAY } });
    await new Promise((done) => setTimeout(done, 500));
    const t = Date.now();
    expect((await b.callTool({ name: 'lro_ls', arguments: {} })).isError).toBeFalsy();
    expect(Date.now() - t).toBeLessThan(5000); // before: until A's call ended (lro's watchdog, 10 s)
    expect(textOf(await runaway)).toMatch(/^lro: the jq filter ran 10 s without finishing/);
  });

  /** lro_ls over and over until `until` settles; the time of each call (ms). */
  async function probing(c: Client, until: Promise<unknown>): Promise<number[]> {
    let over = false;
    void until.finally(() => (over = true));
    const times: number[] = [];
    while (!over) {
      const t = performance.now();
      expect((await c.callTool({ name: 'lro_ls', arguments: {} })).isError).toBeFalsy();
      times.push(performance.now() - t);
      await new Promise((done) => setTimeout(done, 20));
    }
    return times;
  }

  it('20 clients upload 10 MB each at once, on kept-alive connections: none is lost; another client is answered meanwhile', { tags: ['soak'] }, async () => {
    const server = await httpServer(['mcp', '--http', '--max-sessions', '64'], mcpEnv(join(root, 'store-uploads')));
    children.push(server.child);
    const probe = await httpClient(server.url, server.token);
    clients.push(probe);
    const post = (agent: Agent, body: Buffer | Buffer[], sid?: string) =>
      new Promise<{ status: number; sid?: string; body: string }>((done, fail) => {
        const parts = Array.isArray(body) ? body : [body];
        const length = parts.reduce((n, p) => n + p.length, 0);
        const headers = { ...MCP_HEADERS, authorization: `Bearer ${server.token}`, 'content-length': String(length) };
        const session = sid ? { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' } : {};
        const req = httpRequest(server.url, { method: 'POST', agent, headers: { ...headers, ...session } }, (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => done({ status: res.statusCode ?? 0, sid: res.headers['mcp-session-id'] as string, body: text }));
        });
        req.on('error', fail);
        for (const p of parts) req.write(p);
        req.end();
      });
    // each body sent as its head and one 10 MB tail, built once: building each whole (JSON.stringify, or a copy)
    // held this process, and with it the probe's own calls, for longer than the server took to answer them
    const tail = Buffer.from(`${JSON.stringify(`${'u'.repeat(99)}\n`.repeat(100_000)).slice(1)}}}}`);
    const upload = (i: number, k: number) =>
      [Buffer.from(`{"jsonrpc":"2.0","id":${10 + k},"method":"tools/call","params":{"name":"lro_offload","arguments":{"content":"c${i} r${k}\\n`), tail];
    const uploads = Array.from({ length: 20 }, async (_, i) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const { sid } = await post(agent, Buffer.from(INITIALIZE));
      await post(agent, Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })), sid);
      const answers = [];
      for (let k = 0; k < 2; k++) answers.push(await post(agent, upload(i, k), sid).catch((e: Error) => ({ status: 0, body: e.message })));
      agent.destroy();
      return answers;
    });
    const started = performance.now();
    const all = Promise.all(uploads);
    const times = await probing(probe, all);
    const took = performance.now() - started;
    const lost = (await all).flat().filter((a) => a.status !== 200 || !a.body.includes('"offloaded":true'));
    expect(lost.map((a) => `${a.status} ${a.body.slice(0, 200)}`)).toEqual([]);
    // before: a wait of 35-40% of the uploads' time (2.1-3.4 s of 8-9 s: each body decoded and parsed on the server's
    // thread, then queued behind the uploads); then 5-9% (0.3-0.8 s); now 1.5-3.5% (0.2-0.3 s of 10-17 s, most of it
    // this process's own sending: the server answered each lro_ls within 30 ms of its request, and its thread
    // never waited more than 90 ms). A share, as a loaded machine slows both.
    expect(Math.max(...times) / took).toBeLessThan(0.06);
    server.child.kill('SIGKILL');
  });

  it("50 client sessions with runaway calls: another client's lro_ls is answered in seconds, not after them", { tags: ['soak'] }, async () => {
    const server = await httpServer(['mcp', '--http', '--max-sessions', '64'], mcpEnv(join(root, 'store-runaways')));
    children.push(server.child);
    const probe = await httpClient(server.url, server.token);
    clients.push(probe);
    const id = await storeSmall(probe);
    const sessions = await Promise.all(Array.from({ length: 50 }, () => httpClient(server.url, server.token)));
    clients.push(...sessions);
    // every worker taken by runaway filters (each stopped by jq's watchdog at 10 s), most of them waiting
    const runaways = Promise.all(sessions.map((c) => c.callTool({ name: 'lro_jq', arguments: { id, filter: RUNAWAY } }, undefined, { timeout: 600_000 })));
    await new Promise((done) => setTimeout(done, 1000));
    const times = await probing(probe, new Promise((done) => setTimeout(done, 15_000)));
    // before: until the runaways ahead of it ended, minutes; now 0.1-0.3 s (5 s: a loaded machine is slower)
    expect(Math.max(...times)).toBeLessThan(5000);
    void runaways.catch(() => undefined);
    server.child.kill('SIGKILL'); // its 50 runaways would run on for minutes, slowing the tests after this one
  });

  it('stops a call of lro\'s tools past --call-timeout with an error result', { tags: ['soak'] }, async () => {
    const server = await httpServer(['mcp', '--http', '--call-timeout', '2s'], mcpEnv(join(root, 'store-runaway')));
    children.push(server.child);
    const a = await httpClient(server.url, server.token);
    clients.push(a);
    const id = await storeSmall(a);
    const r = await a.callTool({ name: 'lro_jq', arguments: { id, filter: RUNAWAY } });
    // stopped by --call-timeout, not by lro's jq watchdog (10 s, another message)
    expect(textOf(r)).toMatch(/^lro: lro_jq ran longer than 2s \(--call-timeout\) and was stopped: narrow the call/);
  });

  // once retried: CI saw a close not come in 50 s once in many runs, on a machine running the soak's other files
  // beside it; a server without the idle timer keeps the connection open for minutes, and fails both tries
  it('closes a connection that sends no request within 10 s', { tags: ['soak'], retry: 1 }, async () => {
    const server = await httpServer(['mcp', '--http'], mcpEnv(join(root, 'store')));
    children.push(server.child);
    const { port, hostname } = new URL(server.url);
    const socket = connect(Number(port), hostname);
    const start = Date.now();
    // closed after 10 s; before, 60 s and more (Node's defaults). A loaded machine (CI running the soak beside
    // other work) was seen to take past 30 s to see the close, so the window is 50 s: still short of the defaults.
    const closed = await new Promise((done) => {
      socket.once('close', () => done('closed'));
      // judged a second later, once the I/O due by then is read: after a stall of this process its timers run
      // before its sockets are read, and a close the server sent meanwhile would not be seen yet
      setTimeout(() => setTimeout(() => done(socket.destroyed ? 'closed' : `still open after ${Date.now() - start} ms`), 1_000), 50_000);
    });
    socket.destroy();
    // what the server was doing, should it fail: alive or not, and its state (R running, S waiting, D on disk)
    const state = () => {
      try {
        return readFileSync(`/proc/${server.child.pid}/stat`, 'utf8').split(') ')[1].split(' ')[0];
      } catch {
        return 'unknown';
      }
    };
    expect(closed, `server ${server.child.exitCode === null ? `running, state ${state()}` : `exited ${server.child.exitCode}`}\n${server.stderr()}`).toBe('closed');
    expect(Date.now() - start).toBeGreaterThanOrEqual(9_900); // by the idle timer, not at once
  });
});

describe('lro mcp proxy --http', () => {
  it('passes a small result on byte for byte as the upstream wrote it (integers above 2^53, -0, 1.0, 1E+2)', async () => {
    const fake = join(__dirname, '../helpers/fake-upstream.mjs');
    const server = await httpServer(['mcp', 'proxy', '--http', '--', NODE, fake], mcpEnv(join(root, 'store')));
    children.push(server.child);
    const headers: Record<string, string> = { ...MCP_HEADERS, Authorization: `Bearer ${server.token}` };
    const opened = await fetch(server.url, { method: 'POST', headers, body: INITIALIZE });
    await opened.text();
    Object.assign(headers, { 'mcp-session-id': opened.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' });
    await (await fetch(server.url, { method: 'POST', headers, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' })).text();
    const body = '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"exact","arguments":{}}}';
    const answer = await (await fetch(server.url, { method: 'POST', headers, body })).text();
    expect(answer).toContain(
      'data: {"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"n: 9007199254740993"}],' +
        '"structuredContent":{"big":9007199254740993,"neg":-0,"one":1.0,"hundred":1E+2}}}\n\n',
    );
  });

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

  it('passes a result on byte for byte as the HTTP upstream wrote it (integers above 2^53, -0, 1.0, 1E+2)', async () => {
    // the upstream: another proxy serving the fake server over HTTP, which answers as that server wrote (above)
    const fake = join(__dirname, '../helpers/fake-upstream.mjs');
    const inner = await httpServer(['mcp', 'proxy', '--http', '--', NODE, fake], mcpEnv(join(root, 'store')));
    children.push(inner.child);
    const args = ['mcp', 'proxy', '--url', inner.url, '--header', `Authorization: Bearer ${inner.token}`];
    const outer = spawn(NODE, [BIN, ...args], { env: mcpEnv(join(root, 'store-url')), stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(outer);
    let out = '';
    const line = (id: number) =>
      new Promise<string>((done) => {
        const look = () => {
          const l = out.split('\n').find((x) => x.includes(`"id":${id},`));
          if (l !== undefined && out.includes(`${l}\n`)) done(l);
          else outer.stdout!.once('data', look);
        };
        look();
      });
    outer.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    outer.stdin!.write(`${INITIALIZE}\n`); // as a client does, the rest only once it is answered
    await line(1);
    outer.stdin!.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    outer.stdin!.write('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"exact","arguments":{}}}\n');
    expect(await line(7)).toBe(
      '{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"n: 9007199254740993"}],' +
        '"structuredContent":{"big":9007199254740993,"neg":-0,"one":1.0,"hundred":1E+2}}}',
    );
    // `_meta` after `content`: the SDK's schema makes an object with `_meta` first, the same answer still
    outer.stdin!.write('{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"exact_meta","arguments":{}}}\n');
    expect(await line(8)).toBe(
      '{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"n: 9007199254740993"}],' +
        '"_meta":{"big":9007199254740993},"structuredContent":{"big":9007199254740993,"one":1.0}}}',
    );
    outer.stdin!.end();
  });

  it('an HTTP upstream answering a 9 MB string: the result is offloaded and the session goes on', { tags: ['soak'] }, async () => {
    // (a regex over the answer's text overflowed V8's stack on such a string: the session ended)
    const fake = join(__dirname, '../helpers/fake-upstream.mjs');
    const inner = await httpServer(['mcp', 'proxy', '--http', '--', NODE, fake], mcpEnv(join(root, 'store')));
    children.push(inner.child);
    const args = ['mcp', 'proxy', '--url', inner.url, '--header', `Authorization: Bearer ${inner.token}`];
    const { client, stderr } = await stdioClient(args, mcpEnv(join(root, 'store-url-big')));
    clients.push(client);
    const big = await client.callTool({ name: 'big_exact', arguments: { bytes: 9_500_000 } }, undefined, { timeout: 120_000 });
    expect(big.isError, stderr()).toBeFalsy();
    const id = /\bid: ([0-9A-Z]{26})\b/.exec(textOf(big))?.[1];
    expect(id, textOf(big).slice(0, 500)).toBeDefined();
    expect(textOf(await client.callTool({ name: 'exact', arguments: {} }))).toBe('n: 9007199254740993'); // still up
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
