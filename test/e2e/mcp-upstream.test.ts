// End-to-end: the proxy when its upstream fails (killed mid-call, exiting at start, not there at all, hanging), when
// it is used wrongly, and under many concurrent calls (each answered, each result stored exactly once); what it
// passes on unchanged is byte for byte what the upstream sent, and what is too large for a message is refused.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanup, lro, tempDir } from '../helpers/cli.js';
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
      [['mcp', '--port', '8080'], /^lro: --port, --host, --token-file, --max-sessions and --idle-timeout go with --http/],
      [['mcp', '--http', '--port', '70000'], /^lro: invalid --port '70000': at most 65535/],
      [['mcp', '--http', '--token-file', join(root, 'missing-token')], /^lro: cannot read --token-file .*missing-token: ENOENT/],
      [['mcp', '--http', '--token-file', join(root, 'short-token')], /^lro: --token-file .*short-token holds a token of 31 characters, fewer than 32: make a longer one, e\.g\. openssl rand -hex 32 > /],
      [['mcp', '--http', '--call-timeout', '0'], /^lro: invalid --call-timeout '0': must be more than 0/],
      [['mcp', '--http', '--max-sessions', '0'], /^lro: invalid --max-sessions '0': at least 1/],
    ];
    writeFileSync(join(root, 'short-token'), `${'x'.repeat(31)}\n`);
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

const FAKE = resolve(__dirname, '../helpers/fake-upstream.mjs');

/** The JSON-RPC lines a client sends to start, then `more`. */
const session = (...more: object[]) =>
  [INITIALIZE, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), ...more.map((m) => JSON.stringify(m))].join('\n') + '\n';

describe('lro mcp proxy: what passes through is what the upstream sent', () => {
  it('a small result reaches the client byte for byte: integers above 2^53, -0, 1.0 and 1E+2 kept', async () => {
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'exact', arguments: {} } };
    const r = await lro(['mcp', 'proxy', '--', NODE, FAKE], { input: session(call), env: { LRO_DIR: join(root, 'store-exact') } });
    expect(r.code, r.stderr).toBe(0);
    const line = r.out.split('\n').find((l) => l.includes('"id":7'));
    expect(line).toBe(
      '{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"n: 9007199254740993"}],' +
        '"structuredContent":{"big":9007199254740993,"neg":-0,"one":1.0,"hundred":1E+2}}}',
    );
  });
});

describe('lro mcp proxy: limits', () => {
  it('an image over the message cap (of an --exclude\'d tool too) is stored whole and refused; the session goes on', { tags: ['soak'] }, async () => {
    const store = join(root, 'store-image');
    const p = await spawnedClient(['mcp', 'proxy', '--exclude', 'image', '--', NODE, FAKE], mcpEnv(store));
    const big = (await p.client.callTool({ name: 'image', arguments: { bytes: 5_000_000 } })) as Result;
    expect(big.isError).toBe(true);
    const m = /^lro: the result of image is 5\.0 MB \(1 image block\), more than the 4\.2 MB a message through lro may carry; it is stored whole as lro result ([0-9A-Z]{26}) \(as JSON\): see what it holds with lro_info \{"id":"\1"\}$/.exec(textOf(big));
    expect(m, textOf(big)).not.toBeNull();
    const length = await p.client.callTool({ name: 'lro_jq', arguments: { id: m![1], filter: 'select(.type == "image") | .data | length' } });
    expect(textOf(length)).toMatch(/^5000000\n/);
    const small = (await p.client.callTool({ name: 'image', arguments: { bytes: 1000 } })) as Result;
    expect(small.content[0].type).toBe('image'); // under the cap: untouched
    await p.client.close();
  });

  it('an upstream call past --call-timeout is answered with an error and cancelled; the session goes on', async () => {
    const p = await spawnedClient(['mcp', 'proxy', '--call-timeout', '1s', '--', NODE, FAKE], mcpEnv(join(root, 'store-hang')));
    const started = Date.now();
    const r = (await p.client.callTool({ name: 'hang', arguments: {} }, undefined, { timeout: 60_000 })) as Result;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(
      `lro: the upstream MCP server (${NODE} ${FAKE}) gave hang no answer within 1s (--call-timeout); the call was cancelled: retry with a smaller request, or raise --call-timeout`,
    );
    expect(textOf(await p.client.callTool({ name: 'exact', arguments: {} }))).toBe('n: 9007199254740993');
    await p.client.close();
  });

  it('the client closes stdin while an upstream call hangs: lro stops the upstream and what it started, and exits', { tags: ['soak'] }, async () => {
    const pidFile = join(root, 'stubborn-child.pid');
    const child = spawn(NODE, [BIN, 'mcp', 'proxy', '--', NODE, FAKE, '--stubborn', '--child-pid', pidFile], {
      env: mcpEnv(join(root, 'store-stubborn')),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    let out = '';
    const answered = new Promise<void>((done) => child.stdout.on('data', (d: Buffer) => ((out += d.toString()), out.includes('"id":1') && done())));
    child.stdin.write(session({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'hang', arguments: {} } }));
    await answered;
    const upstream = childPids(child.pid!);
    expect(upstream).toHaveLength(1);
    for (let i = 0; i < 100 && !existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 50));
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    child.stdin.end();
    // 5 s for answers still coming, then 2 s after its stdin is closed, 2 s after SIGTERM, then SIGKILL
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('still running after 30 s'), 30_000))]);
    expect(code).toBe(0);
    for (const pid of [upstream[0], grandchild]) expect(alive(pid), `pid ${pid}`).toBe(false);
  });
});

/** Whether a process is alive (a zombie, dead but not yet reaped by its parent, is not). */
function alive(pid: number): boolean {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
