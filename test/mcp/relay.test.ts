// The relay with the SDK's own Server upstream and Client downstream, linked in memory: the cases no npm server
// shows. An upstream with no tools (lro adds the capability and answers tools/list), an upstream tool named as one
// of lro's (hidden, with a warning), tools/list over several pages (lro's tools on the last), and a large result
// of a paged tool list's tool.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListPromptsRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LroTools } from '../../src/mcp/lro-tools.js';
import { ResultOffloader } from '../../src/mcp/offload-result.js';
import { Relay } from '../../src/mcp/relay.js';
import { cleanup, tempDir } from '../helpers/cli.js';

let root: string;
let tools: LroTools;

beforeAll(async () => {
  root = tempDir();
  tools = await LroTools.load({ LRO_DIR: join(root, 'store') }, (t) => !t.serverOnly);
});
afterAll(() => cleanup(root));

/** A client talking through a relay to `server`; returns the client and the relay's warnings. */
async function through(server: Server): Promise<{ client: Client; warnings: string[]; relay: Relay }> {
  const [serverSide, upSide] = InMemoryTransport.createLinkedPair();
  const [clientSide, downSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await upSide.start();
  const warnings: string[] = [];
  const offloader = new ResultOffloader({ options: { dir: join(root, 'store'), env: {} }, thresholdFor: new Map(), exclude: new Set(), descriptor: 'text', calls: tools.calls });
  const relay = new Relay(downSide, { transport: upSide, label: 'test server', ending: () => null, fatal: () => false }, tools, offloader, (w) => void warnings.push(w));
  await relay.start();
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientSide);
  return { client, warnings, relay };
}

const LRO_TOOLS = ['lro_read', 'lro_grep', 'lro_jq', 'lro_where', 'lro_count', 'lro_diff', 'lro_info', 'lro_ls'];

describe('Relay', () => {
  it('an upstream without tools: the capability is added, tools/list answered by lro, prompts still the upstream', async () => {
    const server = new Server({ name: 'prompts-only', version: '1' }, { capabilities: { prompts: {} } });
    server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: [{ name: 'hello' }] }));
    const { client, relay } = await through(server);
    expect(client.getServerCapabilities()).toEqual({ prompts: {}, tools: {} });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(LRO_TOOLS);
    expect((await client.listPrompts()).prompts).toEqual([{ name: 'hello' }]);
    const r = await client.callTool({ name: 'lro_ls', arguments: {} });
    expect(r.isError).toBeFalsy();
    await relay.close();
  });

  it("hides an upstream tool named as one of lro's, with a warning, and adds lro's tools on the last page only", async () => {
    const server = new Server({ name: 'paged', version: '1' }, { capabilities: { tools: {} } });
    const page = (names: string[]) => names.map((name) => ({ name, inputSchema: { type: 'object' as const } }));
    server.setRequestHandler(ListToolsRequestSchema, async (req) =>
      req.params?.cursor === 'two' ? { tools: page(['c', 'lro_read']) } : { tools: page(['a', 'b']), nextCursor: 'two' },
    );
    server.setRequestHandler(CallToolRequestSchema, async (req) => ({ content: [{ type: 'text', text: `${req.params.name}: ${'many words here '.repeat(3000)}` }] }));
    const { client, warnings, relay } = await through(server);
    const first = await client.listTools();
    expect(first.tools.map((t) => t.name)).toEqual(['a', 'b']);
    const second = await client.listTools({ cursor: first.nextCursor });
    expect(second.tools.map((t) => t.name)).toEqual(['c', ...LRO_TOOLS]);
    expect(warnings).toEqual(["the upstream's tool lro_read is hidden: lro's own tool of that name takes its place"]);
    // a call of lro_read is lro's, never the upstream's
    const text = (r: unknown) => (r as { content: { text: string }[] }).content[0].text;
    const own = await client.callTool({ name: 'lro_read', arguments: { id: 'last', head: 1 } });
    expect([own.isError, text(own)]).toEqual([true, expect.stringMatching(/^lro: no results in .*: offload something first/)]);
    const big = await client.callTool({ name: 'c', arguments: {} });
    expect(text(big)).toMatch(/^Result of c offloaded: /);
    expect(text(await client.callTool({ name: 'lro_read', arguments: { id: 'last', head: 1, columns: '0:9' } }))).toBe('1:[0-9/48003] c: many w\n');
    await relay.close();
  });
});
