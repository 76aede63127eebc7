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
 * An MCP server offering lro's tools; errors are tool results, so a bad call never stops it. `idle()` resolves
 * once no call is running (a client that closes stdin right after its requests still gets the answers).
 */
export function lroServer(tools: McpTools): { server: Server; idle: () => Promise<void> } {
  const server = new Server({ name: 'lro', version: VERSION }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  let running = 0;
  let wake: (() => void) | null = null;
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.list() }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    running++;
    try {
      return await tools.call(req.params.name, req.params.arguments);
    } finally {
      // the SDK sends the answer once this handler has returned: wake the waiter only after that
      if (--running === 0) setImmediate(() => running === 0 && wake?.());
    }
  });
  const idle = () => (running === 0 ? Promise.resolve() : new Promise<void>((resolve) => (wake = resolve)));
  return { server, idle };
}
