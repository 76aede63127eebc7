// `lro mcp`: lro's tools behind the SDK's MCP server, on any transport (stdio, or one per HTTP session).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { VERSION } from '../version.js';
import type { McpTools } from './tool-pool.js';

/** What a client may show the model about the server as a whole. */
export const INSTRUCTIONS =
  'lro keeps large outputs out of the context: lro_offload stores one and returns a descriptor with its id; ' +
  'lro_read, lro_grep, lro_jq, lro_where, lro_count, lro_info and lro_ls look inside stored results by id; ' +
  'lro_diff compares two. A cut output names the call for the rest.';

/**
 * Clients that show a server's tool as `<server>_<tool>` (opencode: `lro_` + `lro_grep` made `lro_lro_grep`, a
 * name the `lro_read {…}` calls lro's results print never matched). They are listed the tools without lro's own
 * `lro_`, so that under the server entry `lro` (what `lro init` writes) the model sees `lro_grep`, the name every
 * result prints; a call by either name is taken.
 */
const PREFIXING_CLIENTS = new Set(['opencode']);

/** The tool names a client is listed: without `lro_` for a client that puts the server's name before each. */
export function namesFor(client: string | undefined): (name: string) => string {
  return client !== undefined && PREFIXING_CLIENTS.has(client) ? (name) => name.replace(/^lro_/, '') : (name) => name;
}

/**
 * An MCP server offering lro's tools; errors are tool results, so a bad call never stops it. `idle()` resolves
 * once no call is running (a client that closes stdin right after its requests still gets the answers).
 */
export function lroServer(tools: McpTools): { server: Server; idle: () => Promise<void> } {
  const server = new Server({ name: 'lro', version: VERSION }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  let running = 0;
  let wake: (() => void) | null = null;
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const name = namesFor(server.getClientVersion()?.name);
    return { tools: tools.list().map((t) => ({ ...t, name: name(t.name) })) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    running++;
    try {
      const name = req.params.name;
      return await tools.call(tools.has(name) || !tools.has(`lro_${name}`) ? name : `lro_${name}`, req.params.arguments);
    } finally {
      // the SDK sends the answer once this handler has returned: wake the waiter only after that
      if (--running === 0) setImmediate(() => running === 0 && wake?.());
    }
  });
  const idle = () => (running === 0 ? Promise.resolve() : new Promise<void>((resolve) => (wake = resolve)));
  return { server, idle };
}
