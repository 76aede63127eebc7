// End-to-end: `lro mcp` spawned by the SDK's own Client over stdio, every tool called as a client calls it: the
// same output as the CLI command it runs, budgets whose continuation is the next tool call (followed to the end,
// every record once), descriptors that name tool calls, and bad calls that are error results with the CLI's own
// message while the server keeps serving.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { INITIALIZE, mcpEnv, stdioClient, textOf } from '../helpers/mcp.js';

const CORPUS = resolve(__dirname, '../../fixtures/corpus');
const HDFS = readFileSync(join(CORPUS, 'loghub/HDFS_2k.log'), 'utf8');
const EVENTS = readFileSync(join(CORPUS, 'json-docs/github_events.json'), 'utf8');

type Result = { content: { type: string; text?: string }[]; structuredContent?: Record<string, any>; isError?: boolean };

let root: string;
let store: string;
let client: Client;
let close: () => Promise<void>;
let logId: string;
let eventsId: string;

const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as Result;
/** The CLI's own run of the same command, for comparison. */
const cli = (args: string[]) => lro(args, { env: { LRO_DIR: store } });

beforeAll(async () => {
  root = tempDir();
  store = join(root, 'store');
  const c = await stdioClient(['mcp'], mcpEnv(store));
  client = c.client;
  close = () => c.client.close();
  await client.listTools(); // the Client validates structuredContent against the listed outputSchemas from now on
});
afterAll(async () => {
  await close();
  cleanup(root);
});

describe('lro mcp: the tools', () => {
  it('lists every tool with a description and an input schema, and an outputSchema unless the text says it', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['lro_read', 'lro_grep', 'lro_jq', 'lro_where', 'lro_count', 'lro_diff', 'lro_info', 'lro_ls', 'lro_offload']);
    for (const t of tools) {
      expect(t.description!.length, t.name).toBeGreaterThan(50);
      expect(t.inputSchema.type).toBe('object');
    }
    // the records tools' structuredContent ({output, exit_code, next}) is said once, in lro_read's description
    const withOutputSchema = tools.filter((t) => t.outputSchema?.type === 'object').map((t) => t.name);
    expect(withOutputSchema).toEqual(['lro_info', 'lro_ls', 'lro_offload']);
    expect(tools[0].description).toContain('structuredContent {output, exit_code');
    const grep = tools.find((t) => t.name === 'lro_grep')!;
    expect(grep.inputSchema.required).toEqual(['id', 'pattern']);
    expect(Object.keys(grep.inputSchema.properties!)).toContain('max_tokens');
    expect(client.getInstructions()).toMatch(/lro_read, lro_grep, lro_jq/);
  });

  it("opencode, which shows a tool as '<server>_<tool>', is listed the names without lro_, so the model sees lro_read", async () => {
    // opencode 1.18 named lro's tools lro_lro_read, and no call a result printed (lro_read {…}) matched one
    const oc = await stdioClient(['mcp'], mcpEnv(store), {}, 'opencode');
    try {
      const { tools } = await oc.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['read', 'grep', 'jq', 'where', 'count', 'diff', 'info', 'ls', 'offload']);
      const stored = (await oc.client.callTool({ name: 'offload', arguments: { content: HDFS } })) as Result;
      const id = (stored.structuredContent as { id: string }).id;
      expect(textOf(stored)).toContain(`lro_read {"id":"${id}"`); // as opencode shows it under the entry lro
      const read = (await oc.client.callTool({ name: 'read', arguments: { id, records: '1:1' } })) as Result;
      expect(textOf(read).trimEnd()).toBe(`1: ${HDFS.split('\n')[0]}`.trimEnd());
      // the full name is taken too (a model may write it from a result)
      const again = (await oc.client.callTool({ name: 'lro_read', arguments: { id, records: '1:1' } })) as Result;
      expect(textOf(again)).toBe(textOf(read));
    } finally {
      await oc.client.close();
    }
  });

  it('lro_offload stores text and returns the descriptor, whose next steps are tool calls', async () => {
    const r = await call('lro_offload', { content: HDFS, operation: 'hdfs' });
    expect(r.isError).toBeFalsy();
    logId = r.structuredContent!.id;
    const text = textOf(r);
    expect(text).toMatch(/^Output offloaded: 2,000 lines of text \(~96,898 tokens, 288 kB\)\./);
    expect(text).toContain(`Next: \`lro_grep {"id":"${logId}","pattern":"exception","ignore_case":true,"context":2}\``);
    expect(text).toContain(`lro_jq {"id":"${logId}","filter":"select(test(`);
    expect(text).not.toMatch(/\blro (grep|read|jq|info) /); // no shell commands
    expect(r.structuredContent!.jq_recipes[0].call).toEqual({ tool: 'lro_jq', arguments: expect.objectContaining({ id: logId, raw_output: true }) });
    expect((await cli(['cat', logId])).out).toBe(HDFS); // stored exactly
  });

  it('lro_offload: JSON becomes records; small content comes back unchanged and is not stored, unless forced', async () => {
    const r = await call('lro_offload', { content: EVENTS, operation: 'events' });
    eventsId = r.structuredContent!.id;
    expect(r.structuredContent!.summary).toMatchObject({ count: 30, content_type: 'json' });
    const small = await call('lro_offload', { content: 'small output\n' });
    expect(textOf(small)).toBe('small output\n');
    expect(small.structuredContent).toEqual({ offloaded: false, content: 'small output\n' });
    const forced = await call('lro_offload', { content: 'small output\n', force: true, ttl: '1h', meta: { k: 'v' } });
    expect(forced.structuredContent!.offloaded).toBe(true);
    const header = JSON.parse((await cli(['info', forced.structuredContent!.id, '--header'])).out);
    expect([header.ttl_seconds, header.meta]).toEqual([3600, { k: 'v' }]);
  });

  it('lro_read prints what lro read prints; a cut output ends with the next call, and following them shows every record once', async () => {
    const r = await call('lro_read', { id: logId, records: '10:12' });
    expect(textOf(r)).toBe((await cli(['read', logId, '--records', '10:12'])).out);
    const seen: number[] = [];
    let next: { tool: string; arguments: Record<string, unknown> } | undefined = { tool: 'lro_read', arguments: { id: logId, records: '1:40', max_tokens: 200 } };
    let parts = 0;
    while (next) {
      expect(next.tool).toBe('lro_read');
      const part = await call(next.tool, next.arguments);
      const text = textOf(part);
      for (const m of text.matchAll(/^(\d+): /gm)) seen.push(Number(m[1]));
      next = part.structuredContent!.next;
      if (next) expect(text.trimEnd().split('\n').at(-1)).toBe(`[lro: showed records ${/^(\d+): /m.exec(text)![1]}-${seen.at(-1)} of 2,000 (max_tokens 200); next: lro_read ${JSON.stringify(next.arguments)}]`);
      parts++;
    }
    expect(parts).toBeGreaterThan(2);
    expect(seen).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  });

  it('lro_grep: matches as grep -n, context, counts; "nothing matched" is an answer, not an error', async () => {
    const r = await call('lro_grep', { id: logId, pattern: 'exception', ignore_case: true, max_count: 2, context: 1 });
    expect(textOf(r)).toBe((await cli(['grep', logId, 'exception', '-i', '-m', '2', '-C', '1'])).out);
    expect(r.structuredContent).toMatchObject({ exit_code: 0 });
    expect(textOf(await call('lro_grep', { id: logId, pattern: 'WARN', count: true }))).toBe('80\n');
    const none = await call('lro_grep', { id: logId, pattern: 'no such thing' });
    expect(none.isError).toBeFalsy();
    expect(textOf(none)).toBe('No records matched.');
    expect(none.structuredContent).toEqual({ output: '', exit_code: 1 });
    const cut = await call('lro_grep', { id: logId, pattern: 'WARN', max_tokens: 100 });
    expect(cut.structuredContent!.next).toEqual({ tool: 'lro_grep', arguments: { id: logId, pattern: 'WARN', max_tokens: 100, records: expect.stringMatching(/^\d+:$/) } });
  });

  it('lro_grep with id "*" searches every result as lro grep --all; its continuation is a call that goes on', async () => {
    const all = await call('lro_grep', { id: '*', pattern: 'exception', ignore_case: true, max_count: 1 });
    expect(textOf(all)).toBe((await cli(['grep', '--all', '-i', '-m', '1', 'exception'])).out);
    expect(textOf(all)).toMatch(new RegExp(`^== ${logId}  `, 'm'));
    expect(all.structuredContent).toMatchObject({ exit_code: 0 });
    const seen: string[] = [];
    let next: { tool: string; arguments: Record<string, unknown> } | undefined = { tool: 'lro_grep', arguments: { id: '*', pattern: 'WARN', max_tokens: 800 } };
    let parts = 0;
    while (next && parts < 100) {
      expect(next).toMatchObject({ tool: 'lro_grep', arguments: { id: '*', pattern: 'WARN' } });
      const part = await call(next.tool, next.arguments);
      for (const m of textOf(part).matchAll(/^(\d+):/gm)) seen.push(m[1]);
      next = part.structuredContent!.next;
      parts++;
    }
    expect(parts).toBeGreaterThan(2);
    const whole = (await cli(['grep', '--all', 'WARN', '--max-tokens', '0'])).out;
    expect(seen).toEqual([...whole.matchAll(/^(\d+):/gm)].map((m) => m[1]));
  });

  it('lro_diff compares two results as lro diff does; exit_code 1 when they differ; a cut output continues as a call', async () => {
    const rows = (n: number, bad: number) => Array.from({ length: 200 }, (_, i) => ({ id: i + n, status: (i + n) % bad === 0 ? 'error' : 'ok' }));
    const a = await call('lro_offload', { content: JSON.stringify(rows(1, 40)), force: true });
    const b = await call('lro_offload', { content: JSON.stringify(rows(2, 30)), force: true });
    const [ida, idb] = [a.structuredContent!.id as string, b.structuredContent!.id as string];
    const d = await call('lro_diff', { a: ida, b: idb });
    expect(textOf(d)).toBe((await cli(['diff', ida, idb])).out);
    expect(textOf(d)).toMatch(/^different: records: \d+ changed, 1 added, 1 removed \(matched by \.id\)$/m);
    expect(d.structuredContent).toMatchObject({ exit_code: 1 });
    const same = await call('lro_diff', { a: idb, b: idb });
    expect(same.structuredContent).toMatchObject({ exit_code: 0 });
    // (records changed alike are one item: 190 tokens hold the summary and the first group, not the rest)
    const cut = await call('lro_diff', { a: ida, b: idb, max_tokens: 190 });
    const next = cut.structuredContent!.next;
    expect(next).toEqual({ tool: 'lro_diff', arguments: { a: ida, b: idb, max_tokens: 190, from: expect.any(Number) } });
    const body = (text: string) => text.split('\n').filter((l) => !l.startsWith('[lro: ')).join('\n');
    const part = await cli(['diff', ida, idb, '--max-tokens', '190', '--from', String(next.arguments.from)]);
    expect(body(textOf(await call(next.tool, next.arguments)))).toBe(body(part.out));
  });

  it("lro_read and lro_grep take stream (lro run's stderr apart), lro_grep strings (a binary result's)", async () => {
    const run = await cli(['run', '--force', '--', 'sh', '-c', 'echo out1; echo err1 >&2; echo out2; echo err2 >&2']);
    expect(run.code, run.stderr).toBe(0);
    const id = JSON.parse(run.out).id as string;
    expect(textOf(await call('lro_read', { id, stream: 'stderr' }))).toBe((await cli(['read', id, '--stream', 'stderr'])).out);
    expect(textOf(await call('lro_read', { id, stream: 'stderr' }))).toMatch(/^\d: err1\n\d: err2\n/); // as the pipes delivered them
    expect(textOf(await call('lro_grep', { id, pattern: '1', stream: 'stdout' }))).toBe('1:out1\n');
    const bin = await lro(['offload', '--force'], { input: Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]), Buffer.from('\0hidden needle here\0')]), env: { LRO_DIR: store } });
    const binId = JSON.parse(bin.out).id as string;
    const found = await call('lro_grep', { id: binId, pattern: 'needle', strings: true });
    expect(textOf(found)).toBe((await cli(['grep', binId, 'needle', '--strings'])).out);
    expect(textOf(found)).toContain('hidden needle here');
  });

  it('lro_jq: filters, slurp, variables; the header', async () => {
    const r = await call('lro_jq', { id: eventsId, filter: 'select(.type == $t) | .id', arg: { t: 'IssuesEvent' }, raw_output: true });
    expect(textOf(r)).toBe('1652857694\n');
    const s = await call('lro_jq', { id: eventsId, filter: 'length > $n', slurp: true, argjson: { n: 29 } });
    expect(textOf(s)).toBe('true\n');
    const h = await call('lro_jq', { id: eventsId, filter: '{count, content_type}', header: true, compact_output: true });
    expect(textOf(h)).toBe('{"count":30,"content_type":"json"}\n');
  });

  it('lro_where and lro_count: conditions as a list, by as a list; the same output as the CLI; continuation as a call', async () => {
    const w = await call('lro_where', { id: eventsId, condition: ['type=PushEvent', 'actor.login~^j'], fields: 'id,type' });
    expect(w.isError).toBeFalsy();
    expect(textOf(w)).toBe((await cli(['where', eventsId, 'type=PushEvent', 'actor.login~^j', '--fields', 'id,type'])).out);
    expect(textOf(await call('lro_where', { id: eventsId, condition: ['type=PushEvent'], count: true }))).toBe('13\n');
    const none = await call('lro_where', { id: eventsId, condition: ['type=NoSuchEvent'] });
    expect(none.isError).toBeFalsy();
    const cutW = await call('lro_where', { id: eventsId, condition: ['type!=WatchEvent'], max_tokens: 300 });
    expect(cutW.structuredContent!.next).toMatchObject({ tool: 'lro_where', arguments: { id: eventsId, condition: ['type!=WatchEvent'], max_tokens: 300 } });
    const c = await call('lro_count', { id: eventsId, by: ['type'] });
    expect(textOf(c)).toBe((await cli(['count', eventsId, '--by', 'type'])).out);
    expect(textOf(c)).toMatch(/^\s*13\s+1\s+PushEvent$/m);
    const t = await call('lro_count', { id: logId, by: ['level'] });
    expect(textOf(t)).toBe((await cli(['count', logId, '--by', 'level'])).out);
    const bad = await call('lro_where', { id: eventsId, condition: ['no_such_field=1'] });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toBe((await cli(['where', eventsId, 'no_such_field=1'])).stderr.replace(/\n$/, ''));
    expect((await call('lro_where', { id: eventsId, condition: [] })).isError).toBe(true);
  });

  it('lro_count takes conditions (optional) and distinct, as lro count does', async () => {
    const c = await call('lro_count', { id: eventsId, by: ['type'], condition: ['type!=PushEvent'], distinct: true });
    expect(c.isError).toBeFalsy();
    expect(textOf(c)).toBe((await cli(['count', eventsId, '--by', 'type', 'type!=PushEvent', '--distinct'])).out);
    expect(textOf(await call('lro_count', { id: eventsId, condition: ['type=PushEvent'] }))).toBe('13\n');
    expect(textOf(await call('lro_count', { id: eventsId, condition: [] }))).toBe('30\n');
  });

  it('lro_info gives the descriptor again (tool calls in it), or the header; lro_ls lists the results', async () => {
    const d = await call('lro_info', { id: eventsId });
    expect(textOf(d)).toMatch(/^Output offloaded: 30 records of json/);
    expect(textOf(d)).toMatch(/lro_where takes a list of conditions .*; lro_jq \{"id":"[0-9A-Z]{26}","filter":"FILTER"\} for the rest\./);
    expect(textOf(d)).not.toMatch(/\blro (jq|read|grep|where|count|info) /);
    expect(textOf(d)).not.toMatch(/\blro (grep|read|jq|info) | -s\b/); // no shell commands or flags left
    expect(textOf(d)).toContain(`lro_jq {"id":"${eventsId}","filter":"select(.type == \\"IssuesEvent\\")","compact_output":true}`);
    // a log's templates line names its tool call too, not the shell's lro count
    const log = textOf(await call('lro_info', { id: logId }));
    expect(log).toContain(`lines (lro_count {"id":"${logId}","by":["template"]}):`);
    expect(log).not.toMatch(/\blro (jq|read|grep|where|count|info) /);
    const full = await call('lro_info', { id: eventsId, full: true });
    expect(full.structuredContent!.fields.length).toBeGreaterThan(d.structuredContent!.fields.length);
    const h = await call('lro_info', { id: eventsId, header: true });
    expect(h.structuredContent).toMatchObject({ type: 'lro_header', id: eventsId, count: 30 });
    const list = await call('lro_ls', { operation: 'events' });
    expect(list.structuredContent!.results).toEqual([expect.objectContaining({ id: eventsId, operation: 'events', records: 30, session: null })]);
    expect(textOf(list).split('\n')[0]).toBe('id\toperation\trecords\ttokens\tbytes\ttimestamp\texpires_at\tsession');
  });
});

describe('lro mcp: a client that closes stdin right after its requests', () => {
  it('still gets every answer, then lro exits 0', async () => {
    const messages = [
      INITIALIZE,
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'lro_offload', arguments: { content: HDFS, operation: 'piped' } } }),
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'lro_ls', arguments: { operation: 'piped' } } }),
    ];
    const r = await lro(['mcp'], { input: `${messages.join('\n')}\n`, env: { LRO_DIR: join(root, 'piped') } });
    expect(r.code, r.stderr).toBe(0);
    const answers = r.out.trim().split('\n').map((l) => JSON.parse(l));
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2, 3]);
    expect(answers.find((a) => a.id === 2).result.structuredContent.summary.count).toBe(2000);
  });
});

describe('lro mcp: bad calls are error results with the CLI message, and the server stays up', () => {
  const errorOf = async (name: string, args: Record<string, unknown>) => {
    const r = await call(name, args);
    expect(r.isError, JSON.stringify(r)).toBe(true);
    return textOf(r);
  };

  it('an unknown id, a bad regex, a jq compile error and a jq runtime error say what the CLI says', async () => {
    const missing = '01ABCDEFGHJKMNPQRSTVWXYZ00';
    // as the CLI says it, but for the store's absolute path (a client is told "the store") and the command it
    // sends the user to, its tool call
    const said = (await cli(['read', missing])).stderr.trim().split(store).join('the store');
    expect(await errorOf('lro_read', { id: missing })).toBe(said.replace('see lro ls', 'see lro_ls {}'));
    expect(await errorOf('lro_grep', { id: logId, pattern: '(unclosed' })).toBe((await cli(['grep', logId, '(unclosed'])).stderr.trim());
    const compile = await cli(['jq', eventsId, '.[']);
    expect(compile.code).toBe(3);
    expect(await errorOf('lro_jq', { id: eventsId, filter: '.[' })).toBe(compile.stderr.trim());
    const runtime = await cli(['jq', eventsId, '.type + 1']);
    expect(runtime.code).toBe(5);
    expect(await errorOf('lro_jq', { id: eventsId, filter: '.type + 1' })).toBe(`${runtime.out}${runtime.stderr}`.trim());
    expect(await errorOf('lro_read', { id: logId, records: '5000:' })).toBe((await cli(['read', logId, '--records', '5000:'])).stderr.trim());
  });

  it('arguments of the wrong type or name, a missing one, an unknown tool', async () => {
    expect(await errorOf('lro_read', {})).toBe('lro: invalid arguments for lro_read: id is required');
    expect(await errorOf('lro_read', { id: logId, max_tokens: 'lots' })).toBe('lro: invalid arguments for lro_read: max_tokens must be a whole number, 0 or more (got "lots")');
    expect(await errorOf('lro_read', { id: logId, lines: '1:3' })).toMatch(/^lro: invalid arguments for lro_read: unknown argument lines: it takes id, records, /);
    expect(await errorOf('lro_grep', { id: logId, pattern: 'x', ignore_case: 'yes' })).toBe('lro: invalid arguments for lro_grep: ignore_case must be true or false (got "yes")');
    expect(await errorOf('lro_nope', {})).toMatch(/^lro: unknown tool lro_nope: the tools are lro_read, /);
    // still serving
    expect(textOf(await call('lro_read', { id: logId, head: 1 }))).toBe((await cli(['read', logId, '--head', '1'])).out);
  });
});
