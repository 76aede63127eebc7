// `lro mcp` and `lro mcp proxy`: lro for agents that speak the Model Context Protocol and have no shell. The MCP
// SDK loads only when one of them runs (src/mcp/serve.ts, a bundle of its own): the help, the completion and the
// man page read these declarations without it.
import { offloadOptionDefs } from '../commands/offload.js';
import type { CommandDef, OptionDef } from '../commands/command.js';
import { UsageError } from '../errors.js';
import type { McpOptions, ProxyOptions } from '../mcp/serve.js';
import MCP_PROXY_HELP from 'help:mcp proxy';
import MCP_HELP from 'help:mcp';

/** The options both commands serve with. */
const SERVE_OPTIONS: OptionDef[] = [
  { flags: '--http', description: 'serve Streamable HTTP instead of stdio (every request needs the bearer token)', manual: "Every request must carry Authorization: Bearer TOKEN; the SDK's DNS-rebinding protection refuses a Host or Origin header that does not name the bound address (or an --allowed-host). The URL, and the token when lro made it up, are printed once on stderr. SIGINT, SIGTERM and SIGHUP stop the server (exit 0)." },
  { flags: '--host <address>', description: 'address to bind with --http (default: 127.0.0.1)', manual: '0.0.0.0 binds every interface; any address but a loopback one is served with a warning on stderr.' },
  { flags: '--port <n>', description: 'port to bind with --http (default: any free port, printed on stderr)' },
  {
    flags: '--token-file <file>',
    description: 'the bearer token clients must send, at least 32 characters (default: a new random token, printed on stderr)',
    complete: 'file',
  },
  {
    flags: '--allowed-host <name>',
    description: 'another host name clients may use to reach the server with --http (repeatable)',
    repeatable: true,
  },
  {
    flags: '--allow-dir <dir>',
    description: 'also serve result files under this directory when a call gives a path as its id (repeatable)',
    manual: 'Without it a client reads only the results of the store (and its sessions): an id that is a path outside the store is refused.',
    complete: 'dir',
    repeatable: true,
  },
  {
    flags: '--call-timeout <duration>',
    description: 'stop a tool call that runs longer, with an error result (default: 5m)',
    manual:
      "lro's own tools run on worker threads, each call with this time and 1 GB of heap, so one client's slow call never holds up another's; through the proxy, an upstream call not answered in this time is cancelled.",
  },
  { flags: '--max-sessions <n>', description: 'client sessions open at once with --http; more are refused (default: 32)' },
  { flags: '--idle-timeout <duration>', description: 'close a --http client session after this long without a request (default: 30m)' },
];

/** `lro mcp proxy`. */
const proxyCommand: CommandDef<ProxyOptions & { command: string[] }> = {
  name: 'proxy',
  description:
    "start an MCP server (stdio) or reach one (--url) and sit between it and the client: large tool results are stored and replaced by a descriptor; lro's retrieval tools are added",
  arguments: [{ name: 'command', variadic: true, optional: true, description: 'the upstream server command and its arguments (put -- before it)', complete: 'command' }],
  passThrough: true,
  usage: '[options] -- <command> [args...]   or   [options] --url <url>',
  options: [
    ...offloadOptionDefs('the tool name', ['--json', '--operation', '--query', '--descriptor']),
    ...SERVE_OPTIONS,
    { flags: '--descriptor <form>', description: 'how the descriptor replaces a result', choices: ['text', 'json'], default: 'text' },
    { flags: '--exclude <tool>', description: "pass this tool's results through whatever their size (repeatable)", repeatable: true },
    { flags: '--threshold-for <tool=n>', description: 'the threshold in tokens for one tool (repeatable)', repeatable: true },
    { flags: '--url <url>', description: 'reach the upstream server over Streamable HTTP at this URL instead of starting a command' },
    { flags: '--header <header>', description: "a header sent to the --url server, 'Name: value' (repeatable)", repeatable: true },
    {
      flags: '--no-tools',
      description:
        "add none of lro's tools: the client has them from lro's own server (lro mcp), so they are listed once " +
        '(lro init --wrap writes this)',
    },
  ],
  examples: [
    'lro mcp proxy -- npx -y @modelcontextprotocol/server-filesystem ~/projects',
    'lro mcp proxy --threshold 2000 --exclude read_media_file -- npx -y @modelcontextprotocol/server-filesystem .',
    "lro mcp proxy --url https://mcp.example.com/mcp --header 'Authorization: Bearer XYZ'",
    'lro mcp proxy --http --port 8931 --token-file ~/.config/lro/token -- uvx mcp-server-fetch',
  ],
  notes: MCP_PROXY_HELP,
  run: async ({ command, ...opts }, io) => {
    const { runMcpProxy } = await import('../mcp/serve.js');
    return runMcpProxy(command, opts, io);
  },
};

/** `lro mcp`, with `proxy` under it. */
export const mcpCommand: CommandDef<McpOptions> = {
  name: 'mcp',
  description:
    'serve lro as an MCP server on stdio (tools lro_offload, lro_read, lro_grep, lro_jq, lro_where, lro_count, lro_diff, lro_info, lro_ls); see also lro mcp proxy',
  options: [{ flags: '--dir <dir>', description: 'store directory (default: $LRO_DIR, else ${TMPDIR:-/tmp}/lro-<uid>)', complete: 'dir' }, ...SERVE_OPTIONS],
  examples: [
    'lro mcp                                   an MCP server on stdio, for a client\'s config: {"command": "lro", "args": ["mcp"]}',
    'lro mcp --http --port 8931                Streamable HTTP at http://127.0.0.1:8931/mcp; the token is printed on stderr',
    'lro mcp proxy -- npx -y @modelcontextprotocol/server-filesystem ~/projects',
  ],
  notes: MCP_HELP,
  subcommands: [proxyCommand],
  beforeSubcommand: (given) => {
    // `lro mcp --http proxy` would serve stdio: the proxy's options come after "proxy"
    if (given.length > 0) throw new UsageError("options of lro mcp proxy go after 'proxy': lro mcp proxy [options] -- CMD");
  },
  run: async (opts, io) => {
    const { runMcpServer } = await import('../mcp/serve.js');
    return runMcpServer(opts, io);
  },
};
