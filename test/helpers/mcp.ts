// MCP parts for the end-to-end tests, all real: the SDK's Client, the built `lro mcp` spawned as a client would
// spawn it, the two upstream servers installed from npm, and raw HTTP requests for what a client would not send.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { BIN } from './cli.js';

const ROOT = resolve(__dirname, '../..');
/** The upstream servers of the tests (devDependencies). */
export const EVERYTHING = resolve(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM = resolve(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
export const NODE = process.execPath;

/** The environment of a spawned lro: a store, and nothing else from the test's environment but PATH and HOME. */
export function mcpEnv(store: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', LRO_DIR: store, NO_COLOR: '1', ...extra };
}

/** A client connected to `lro ARGS` over stdio; `stderr()` is what lro has written there so far. */
export async function stdioClient(args: string[], env: Record<string, string>, capabilities: Record<string, unknown> = {}, name = 'lro-test') {
  const transport = new StdioClientTransport({ command: NODE, args: [BIN, ...args], env, stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name, version: '1.0.0' }, { capabilities });
  await client.connect(transport);
  return { client, transport, stderr: () => err };
}

/** A client connected directly to an upstream server (to compare with what comes through the proxy). */
export async function directClient(command: string, args: string[], capabilities: Record<string, unknown> = {}) {
  const transport = new StdioClientTransport({ command, args, stderr: 'pipe' });
  const client = new Client({ name: 'lro-test', version: '1.0.0' }, { capabilities });
  await client.connect(transport);
  return client;
}

/** `lro ARGS` spawned by the test itself (its pid and exit status known), with a Client on its stdio. */
export async function spawnedClient(args: string[], env: Record<string, string>) {
  const child = spawn(NODE, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.once('exit', (code, signal) => done({ code, signal })));
  // the SDK's stdio transport is symmetric: reading the child's stdout, writing its stdin
  const client = new Client({ name: 'lro-test', version: '1.0.0' });
  await client.connect(new StdioServerTransport(child.stdout, child.stdin));
  return { client, child, exited, stderr: () => err };
}

/** `lro ARGS` serving HTTP: its URL and token as it printed them on stderr. */
export async function httpServer(args: string[], env: Record<string, string>): Promise<{ url: string; token: string; child: ChildProcess; stderr: () => string }> {
  const child = spawn(NODE, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  const line = await new Promise<RegExpExecArray>((done, fail) => {
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /serving MCP at (\S+) \(Authorization: Bearer (\S+)\)/.exec(err);
      if (m) done(m);
    });
    child.once('exit', (code) => fail(new Error(`lro ${args.join(' ')} exited (${code}) before serving:\n${err}`)));
  });
  return { url: line[1], token: line[2], child, stderr: () => err };
}

/** A client over Streamable HTTP with the token. */
export async function httpClient(url: string, token: string, capabilities: Record<string, unknown> = {}) {
  const client = new Client({ name: 'lro-test', version: '1.0.0' }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

/** A raw HTTP request, with whatever Host and Origin the test wants. */
export function rawRequest(url: string, headers: Record<string, string>, body?: string, method = 'POST'): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = request(url, { method, headers, setHost: !('Host' in headers) }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => done({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', fail);
    req.end(body);
  });
}

/** An initialize request as a client sends it first. */
export const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** The pids of a process's children (from /proc: no ps needed). */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid ...: the command name may hold spaces and parentheses, so read after the last ')'
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** The text of a result's text blocks. */
export function textOf(result: unknown): string {
  return ((result as { content: { type: string; text?: string }[] }).content ?? [])
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
}

/**
 * Whether progress notifications are the first of the expected ones, in order (at least one). The SDK's client
 * runs notification handlers a microtask later but responses at once, so the last progress can be dropped when it
 * arrives in the same read as the response (modelcontextprotocol/typescript-sdk issue 2580), with a proxy or not.
 */
export function progressPrefix(seen: unknown[], total: number): boolean {
  const expected = Array.from({ length: total }, (_, i) => ({ progress: i + 1, total }));
  return seen.length > 0 && JSON.stringify(seen) === JSON.stringify(expected.slice(0, seen.length));
}
