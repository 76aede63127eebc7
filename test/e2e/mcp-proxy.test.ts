// End-to-end: `lro mcp proxy` in front of two real servers from npm, with the SDK's Client (which validates
// structuredContent against the listed outputSchema). server-filesystem: a 288 kB log is stored and replaced by
// its descriptor, a small file comes back byte for byte, JSON is stored as JSON (an MCP envelope unwrapped), and
// lro's tools read what was stored. server-everything: every tool, prompt and resource still works through the
// proxy, with progress, sampling, elicitation, roots, an image, structured content and a task.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, lro, ls, tempDir } from '../helpers/cli.js';
import { directClient, EVERYTHING, FILESYSTEM, mcpEnv, NODE, progressPrefix, stdioClient, textOf } from '../helpers/mcp.js';

const CORPUS = resolve(__dirname, '../../fixtures/corpus');
type Result = { content: { type: string; text?: string; data?: string }[]; structuredContent?: Record<string, any>; isError?: boolean };

let root: string;
let store: string;
let files: string;
const clients: Client[] = [];

beforeAll(() => {
  root = tempDir();
  store = join(root, 'store');
  files = join(root, 'files');
  mkdirSync(files);
  copyFileSync(join(CORPUS, 'loghub/HDFS_2k.log'), join(files, 'HDFS_2k.log'));
  copyFileSync(join(CORPUS, 'json-docs/github_events.json'), join(files, 'events.json'));
  writeFileSync(join(files, 'small.txt'), 'a small file\r\nwith CRLF, a tab\tand ünïcode — kept as is\n');
  // a file holding what some servers return as text: a serialized MCP result around JSON
  writeFileSync(join(files, 'envelope.json'), JSON.stringify({ content: [{ type: 'text', text: readFileSync(join(CORPUS, 'json-docs/github_events.json'), 'utf8') }] }));
});
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  cleanup(root);
});

/** Waits until the server lists a tool: server-everything registers its tools just after initialization. */
async function toolsListed(c: Client, name: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await c.listTools()).tools.some((t) => t.name === name)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${name} never listed`);
}

const cli = (args: string[]) => lro(args, { env: { LRO_DIR: store } });
const idIn = (text: string) => /\bid: ([0-9A-Z]{26})\b/.exec(text)![1];

describe('lro mcp proxy -- server-filesystem', () => {
  let proxy: Client;
  let direct: Client;
  const read = async (c: Client, path: string) => (await c.callTool({ name: 'read_text_file', arguments: { path: join(files, path) } })) as Result;

  beforeAll(async () => {
    proxy = (await stdioClient(['mcp', 'proxy', '--', NODE, FILESYSTEM, files], mcpEnv(store))).client;
    direct = await directClient(NODE, [FILESYSTEM, files]);
    clients.push(proxy, direct);
  });

  it("lists the server's tools and lro's retrieval tools after them", async () => {
    const names = (await proxy.listTools()).tools.map((t) => t.name);
    const upstream = (await direct.listTools()).tools.map((t) => t.name);
    expect(names).toEqual([...upstream, 'lro_read', 'lro_grep', 'lro_jq', 'lro_where', 'lro_count', 'lro_diff', 'lro_info', 'lro_ls']);
  });

  it('stores a 288 kB log and gives the descriptor instead, in content and in structuredContent', async () => {
    const r = await read(proxy, 'HDFS_2k.log');
    const text = textOf(r);
    expect(text).toMatch(/^Result of read_text_file offloaded: 2,000 lines of text \(~96,898 tokens, 288 kB\)\./);
    expect(text).toContain(`source: MCP tool call read_text_file {"path":"${join(files, 'HDFS_2k.log')}"}`);
    expect(text).toMatch(/Next: `lro_grep \{"id":"[0-9A-Z]{26}","pattern":"exception","ignore_case":true,"context":2\}`/);
    expect(r.structuredContent).toEqual({ content: text }); // validated by the Client against read_text_file's outputSchema
    expect(JSON.stringify(r).length).toBeLessThan(8000); // the whole log is nowhere in the result
    const id = idIn(text);
    expect((await cli(['cat', id])).stdout.equals(readFileSync(join(files, 'HDFS_2k.log')))).toBe(true);
    const header = JSON.parse((await cli(['info', id, '--header'])).out);
    expect([header.operation, header.source]).toEqual([
      'read_text_file',
      { command: `read_text_file {"path":"${join(files, 'HDFS_2k.log')}"}`, exit_code: null, tool: 'read_text_file', arguments: { path: join(files, 'HDFS_2k.log') } },
    ]);
    // the model looks inside with lro's tools, answered by the proxy
    const hits = (await proxy.callTool({ name: 'lro_grep', arguments: { id, pattern: 'exception', ignore_case: true, max_count: 3 } })) as Result;
    expect(textOf(hits)).toBe((await cli(['grep', id, 'exception', '-i', '-m', '3'])).out);
    const info = (await proxy.callTool({ name: 'lro_info', arguments: { id } })) as Result;
    expect(textOf(info)).toContain(`id: ${id}`);
  });

  it('passes a small file through unchanged, byte for byte, and stores nothing', async () => {
    const before = ls(store).length;
    const r = await read(proxy, 'small.txt');
    expect(r).toEqual(await read(direct, 'small.txt'));
    expect(textOf(r)).toBe(readFileSync(join(files, 'small.txt'), 'utf8'));
    expect(ls(store).length).toBe(before);
  });

  it('stores JSON text as JSON records, and unwraps an MCP envelope around it', async () => {
    for (const name of ['events.json', 'envelope.json']) {
      const id = idIn(textOf(await read(proxy, name)));
      const header = JSON.parse((await cli(['info', id, '--header'])).out);
      expect([header.content_type, header.count], name).toEqual(['json', 30]);
      const jq = (await proxy.callTool({ name: 'lro_jq', arguments: { id, filter: 'select(.type == "IssuesEvent") | .actor.login', raw_output: true } })) as Result;
      expect(textOf(jq)).toBe('imsky\n');
    }
  });

  it('a result it stores starts gc now and then: an expired result goes without cron', async () => {
    const own = join(root, 'tmp-gc');
    const gcStore = join(root, 'store-gc');
    mkdirSync(own);
    const old = await lro(['offload', '--force', '--ttl', '1s', '--descriptor', 'json'], { input: 'x\n'.repeat(10), env: { LRO_DIR: gcStore } });
    const id = JSON.parse(old.out).id as string;
    await new Promise((r) => setTimeout(r, 1100));
    const c = (await stdioClient(['mcp', 'proxy', '--', NODE, FILESYSTEM, files], mcpEnv(gcStore, { TMPDIR: own }))).client;
    clients.push(c);
    expect(textOf(await read(c, 'HDFS_2k.log'))).toMatch(/^Result of read_text_file offloaded/);
    let left = true;
    for (let i = 0; i < 100 && left; i++) {
      await new Promise((r) => setTimeout(r, 100));
      left = ls(gcStore).some((f) => f.includes(id));
    }
    expect(left).toBe(false);
  });

  it('--exclude passes a tool through whatever its size; --threshold-for sets one tool its own threshold', async () => {
    const c = (await stdioClient(['mcp', 'proxy', '--exclude', 'read_text_file', '--threshold-for', 'read_file=5', '--', NODE, FILESYSTEM, files], mcpEnv(store))).client;
    clients.push(c);
    expect(await read(c, 'HDFS_2k.log')).toEqual(await read(direct, 'HDFS_2k.log'));
    const small = (await c.callTool({ name: 'read_file', arguments: { path: join(files, 'small.txt') } })) as Result;
    expect(textOf(small)).toMatch(/^Result of read_file offloaded: 2 lines of text/);
  });
});

describe('lro mcp proxy -- server-everything: everything still works', () => {
  let proxy: Client;
  let direct: Client;
  const capabilities = { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } };
  const logs: string[] = [];

  /** What a client answers when the server asks (sampling, elicitation, roots). */
  function answer(c: Client, who: string): void {
    c.setRequestHandler(CreateMessageRequestSchema, async (r) => ({
      model: 'test-model',
      role: 'assistant',
      content: { type: 'text', text: `${who} sampled: ${(r.params.messages[0].content as { text: string }).text}` },
    }));
    c.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: {} }));
    c.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///srv/project', name: 'project' }] }));
  }

  beforeAll(async () => {
    const p = await stdioClient(['mcp', 'proxy', '--', NODE, EVERYTHING, 'stdio'], mcpEnv(store), capabilities);
    proxy = p.client;
    direct = await directClient(NODE, [EVERYTHING, 'stdio'], capabilities);
    clients.push(proxy, direct);
    answer(proxy, 'client');
    answer(direct, 'client');
    await Promise.all([toolsListed(proxy, 'simulate-research-query'), toolsListed(direct, 'simulate-research-query')]);
    proxy.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => void logs.push(JSON.stringify(n.params.data)));
  });

  it('initialize: the same server, capabilities and instructions', async () => {
    expect(proxy.getServerVersion()).toEqual(direct.getServerVersion());
    expect(proxy.getServerCapabilities()).toEqual(direct.getServerCapabilities());
    expect(proxy.getInstructions()).toEqual(direct.getInstructions());
  });

  it('prompts, resources, templates, completion, logging level and ping pass through unchanged', async () => {
    expect(await proxy.listPrompts()).toEqual(await direct.listPrompts());
    expect(await proxy.getPrompt({ name: 'args-prompt', arguments: { city: 'Lyon', state: 'Rhône' } })).toEqual(await direct.getPrompt({ name: 'args-prompt', arguments: { city: 'Lyon', state: 'Rhône' } }));
    const resources = await direct.listResources();
    expect(await proxy.listResources()).toEqual(resources);
    expect(await proxy.readResource({ uri: resources.resources[0].uri })).toEqual(await direct.readResource({ uri: resources.resources[0].uri }));
    expect(await proxy.listResourceTemplates()).toEqual(await direct.listResourceTemplates());
    const ref = { ref: { type: 'ref/prompt' as const, name: 'completable-prompt' }, argument: { name: 'department', value: 'E' } };
    expect(await proxy.complete(ref)).toEqual(await direct.complete(ref));
    expect(await proxy.setLoggingLevel('debug')).toEqual({});
    expect(await proxy.ping()).toEqual({});
  });

  it('every tool gives what it gives without the proxy (progress, sampling, elicitation, roots, an image, structured content)', async () => {
    const { tools } = await direct.listTools();
    const listed = (await proxy.listTools()).tools;
    expect(listed.map((t) => t.name)).toEqual([...tools.map((t) => t.name), 'lro_read', 'lro_grep', 'lro_jq', 'lro_where', 'lro_count', 'lro_diff', 'lro_info', 'lro_ls']);
    const args: Record<string, Record<string, unknown>> = {
      echo: { message: 'hello through the proxy' },
      'get-sum': { a: 2, b: 40 },
      'get-structured-content': { location: 'Chicago' },
      'get-resource-links': { count: 3 },
      'get-annotated-message': { messageType: 'error', includeImage: true },
      'trigger-long-running-operation': { duration: 1, steps: 3 },
      'trigger-sampling-request': { prompt: 'say hi' },
      'gzip-file-as-resource': { name: 'hello.gz', data: 'data:text/plain;base64,aGVsbG8=' },
    };
    // time of day in texts, and the environment each process was started with, differ between two servers
    const normal = (r: unknown) => JSON.parse(JSON.stringify(r).replace(/\d{1,2}:\d\d:\d\d\s?[AP]M/g, 'TIME'));
    const checked: string[] = [];
    for (const t of tools) {
      if (t.execution?.taskSupport === 'required') continue; // a task: below
      const a = args[t.name] ?? {};
      const progress: unknown[] = [];
      const viaProxy = await proxy.callTool({ name: t.name, arguments: a }, undefined, { onprogress: (p) => void progress.push(p), timeout: 60_000 });
      const without = await direct.callTool({ name: t.name, arguments: a }, undefined, { timeout: 60_000 });
      if (t.name === 'get-env') expect(textOf(viaProxy)).toContain('"LRO_DIR"'); // the proxy's environment reached it
      else expect(normal(viaProxy), t.name).toEqual(normal(without));
      if (t.name === 'trigger-long-running-operation') expect(progressPrefix(progress, 3), JSON.stringify(progress)).toBe(true);
      checked.push(t.name);
    }
    expect(checked).toEqual(expect.arrayContaining(['get-tiny-image', 'trigger-elicitation-request', 'get-roots-list', 'toggle-simulated-logging']));
    const image = (await proxy.callTool({ name: 'get-tiny-image', arguments: {} })) as Result;
    expect(image.content.find((b) => b.type === 'image')!.data).toBe(((await direct.callTool({ name: 'get-tiny-image', arguments: {} })) as Result).content.find((b) => b.type === 'image')!.data);
    expect(textOf(await proxy.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'say hi' } }))).toContain('client sampled:');
    expect(textOf(await proxy.callTool({ name: 'get-roots-list', arguments: {} }))).toContain('file:///srv/project');
  });

  it('a tool that runs as a task: created, polled, its result (offloaded when large, as any result)', async () => {
    const run = async (c: Client) => {
      const kinds: string[] = [];
      let result: Result | undefined;
      for await (const m of c.experimental.tasks.callToolStream({ name: 'simulate-research-query', arguments: { topic: 'MCP proxies' } })) {
        kinds.push(m.type);
        if (m.type === 'result') result = m.result as Result;
      }
      return { kinds, result: result! };
    };
    const [p, d] = await Promise.all([run(proxy), run(direct)]);
    expect(p.kinds[0]).toBe('taskCreated');
    expect(p.kinds.at(-1)).toBe('result');
    expect(textOf(p.result)).toBe(textOf(d.result));
    const low = (await stdioClient(['mcp', 'proxy', '--threshold-for', 'simulate-research-query=50', '--', NODE, EVERYTHING, 'stdio'], mcpEnv(store))).client;
    clients.push(low);
    await toolsListed(low, 'simulate-research-query');
    const offloaded = await run(low);
    expect(textOf(offloaded.result)).toMatch(/^Result of simulate-research-query offloaded: /);
  });

  it('structured content above the threshold is replaced by what the listed outputSchema allows', async () => {
    const low = (await stdioClient(['mcp', 'proxy', '--threshold-for', 'get-structured-content=5', '--', NODE, EVERYTHING, 'stdio'], mcpEnv(store))).client;
    clients.push(low);
    await toolsListed(low, 'get-structured-content'); // the Client validates against the schema listed
    const r = (await low.callTool({ name: 'get-structured-content', arguments: { location: 'Chicago' } })) as Result;
    const id = idIn(textOf(r));
    expect(r.structuredContent).toEqual({ lro_offloaded: { id, tool: 'get-structured-content', note: expect.stringContaining(id) } });
    const jq = (await low.callTool({ name: 'lro_jq', arguments: { id, filter: '.conditions', raw_output: true } })) as Result;
    expect(textOf(jq)).toMatch(/^\S.*\n$/);
  });

  it("passes the server's own notifications (logging) and a cancellation", async () => {
    await proxy.callTool({ name: 'toggle-simulated-logging', arguments: {} });
    // the server logs every few seconds once toggled on: wait for one (no timing asserted, only that it arrives)
    for (let i = 0; i < 300 && logs.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(logs.length).toBeGreaterThan(0);
    await proxy.callTool({ name: 'toggle-simulated-logging', arguments: {} });
    const abort = new AbortController();
    const long = proxy.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 30, steps: 30 } }, undefined, {
      signal: abort.signal,
      onprogress: () => abort.abort('enough'),
    });
    await expect(long).rejects.toThrow();
    expect(textOf(await proxy.callTool({ name: 'echo', arguments: { message: 'still here' } }))).toBe('Echo: still here');
  });
});
