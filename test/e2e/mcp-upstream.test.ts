// End-to-end: the proxy when its upstream fails (killed mid-call, exiting at start, not there at all), when it is
// used wrongly, and under many concurrent calls (each answered, each result stored exactly once).
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { childPids, EVERYTHING, FILESYSTEM, INITIALIZE, mcpEnv, NODE, spawnedClient, stdioClient, textOf } from '../helpers/mcp.js';

const CORPUS = resolve(__dirname, '../../fixtures/corpus');
type Result = { content: { type: string; text?: string }[]; isError?: boolean };

let root: string;
const clients: Client[] = [];

beforeAll(() => {
  root = tempDir();
});
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  cleanup(root);
});

describe('lro mcp proxy: the upstream fails', () => {
  it('killed mid-call: the call gets an error result at once, and lro exits 2 saying so', async () => {
    const p = await spawnedClient(['mcp', 'proxy', '--', NODE, EVERYTHING, 'stdio'], mcpEnv(join(root, 'store-a')));
    let firstProgress!: () => void;
    const progressed = new Promise<void>((r) => (firstProgress = r));
    const pending = p.client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 120, steps: 120 } }, undefined, {
      onprogress: () => firstProgress(),
      timeout: 300_000,
    });
    await progressed; // the call is running upstream now
    const upstream = childPids(p.child.pid!);
    expect(upstream).toHaveLength(1);
    process.kill(upstream[0], 'SIGKILL');
    const r = (await pending) as Result;
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(`lro: the upstream MCP server (${NODE} ${EVERYTHING} stdio) was killed by SIGKILL before answering`);
    expect(await p.exited).toEqual({ code: 2, signal: null });
    expect(p.stderr().split('\n').filter(Boolean).at(-1)).toBe(`lro: the upstream MCP server (${NODE} ${EVERYTHING} stdio) was killed by SIGKILL`);
  });

  it('exiting before it answers initialize: the client is told, lro exits 2', async () => {
    const args = ['mcp', 'proxy', '--', NODE, '-e', 'process.exit(3)'];
    const p = spawnedClient(args, mcpEnv(join(root, 'store-b')));
    await expect(p).rejects.toThrow(/the upstream MCP server \(.*\) exited with code 3 before answering/);
  });

  it('a command that is not there: one line, exit 127, as lro run', async () => {
    const r = await lro(['mcp', 'proxy', '--', 'lro-no-such-server', '--stdio'], { env: { LRO_DIR: join(root, 'store-c') } });
    expect(r.code).toBe(127);
    expect(r.stderr).toBe('lro: command not found: lro-no-such-server: check the name, or that it is on PATH\n');
  });

  it('usage errors: one line, exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['mcp', 'proxy'], /^lro: no upstream server: lro mcp proxy \[options\] -- CMD/],
      [['mcp', 'proxy', '--url', 'http://127.0.0.1:9/mcp', '--', 'x'], /^lro: give an upstream command after --, or --url, not both/],
      [['mcp', 'proxy', '--url', 'ftp://x/mcp'], /^lro: invalid --url 'ftp:\/\/x\/mcp': only http and https/],
      [['mcp', 'proxy', '--threshold-for', 'read_file', '--', 'x'], /^lro: invalid --threshold-for 'read_file': use TOOL=TOKENS/],
      [['mcp', '--http', 'proxy', '--', 'x'], /^lro: options of lro mcp proxy go after 'proxy'/],
      [['mcp', '--port', '8080'], /^lro: --port, --host and --token-file go with --http/],
      [['mcp', '--http', '--port', '70000'], /^lro: invalid --port '70000': at most 65535/],
      [['mcp', '--http', '--token-file', join(root, 'missing-token')], /^lro: cannot read --token-file .*missing-token: ENOENT/],
    ];
    for (const [args, message] of cases) {
      const r = await lro(args, { env: { LRO_DIR: join(root, 'store-d') } });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(r.stderr.split('\n')).toHaveLength(2); // one line
    }
  });
});

describe('lro mcp proxy: a client that closes stdin right after its requests', () => {
  it('still gets every answer, then the upstream is stopped and lro exits 0', async () => {
    const messages = [
      INITIALIZE,
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'lro_ls', arguments: {} } }),
      JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'ping' }),
    ];
    const r = await lro(['mcp', 'proxy', '--', NODE, EVERYTHING, 'stdio'], { input: `${messages.join('\n')}\n`, env: { LRO_DIR: join(root, 'store-e') } });
    expect(r.code, r.stderr).toBe(0);
    const answers = r.out.trim().split('\n').map((l) => JSON.parse(l)).filter((m) => m.id !== undefined);
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2, 3, 4]);
    expect(answers.find((a) => a.id === 2).result.tools.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(['lro_read', 'lro_ls']));
  });
});

describe('lro mcp proxy: many concurrent calls', () => {
  it('answers each, and stores each large result exactly once', { tags: ['soak'] }, async () => {
    const files = join(root, 'files');
    mkdirSync(files);
    copyFileSync(join(CORPUS, 'loghub/HDFS_2k.log'), join(files, 'HDFS_2k.log'));
    const store = join(root, 'store-many');
    const proxy = (await stdioClient(['mcp', 'proxy', '--', NODE, FILESYSTEM, files], mcpEnv(store))).client;
    clients.push(proxy);
    const n = 24;
    const reads = Array.from({ length: n }, (_, i) =>
      proxy.callTool({ name: 'read_text_file', arguments: { path: join(files, 'HDFS_2k.log'), head: 1000 + i } }, undefined, { timeout: 300_000 }),
    );
    // lro's own tools answered meanwhile
    const lists = Array.from({ length: 6 }, () => proxy.callTool({ name: 'lro_ls', arguments: {} }, undefined, { timeout: 300_000 }));
    const results = (await Promise.all(reads)) as Result[];
    await Promise.all(lists);
    const ids = results.map((r) => /\bid: ([0-9A-Z]{26})\b/.exec(textOf(r))?.[1]);
    expect(ids.every(Boolean)).toBe(true);
    expect(new Set(ids).size).toBe(n);
    expect(readdirSync(store).filter((f) => f.endsWith('.jsonl'))).toHaveLength(n);
    for (let i = 0; i < n; i++) {
      const header = JSON.parse((await lro(['info', ids[i]!, '--header'], { env: { LRO_DIR: store } })).out);
      expect([header.count, header.source.arguments.head]).toEqual([1000 + i, 1000 + i]); // its own result
    }
  });
});
