// `lro mcp` and `lro mcp proxy`: lro for agents that speak the Model Context Protocol and have no shell. The MCP
// SDK loads only when one of them runs (src/mcp/serve.ts): the help and completion read these definitions
// without it.
import { Command, Option } from 'commander';
import type { Context } from '../cli.js';
import { UsageError } from '../errors.js';
import { addOffloadOptions } from './offload.js';

const repeatable = (v: string, acc: string[] = []) => [...acc, v];

/** The options both commands serve with. */
function addServeOptions(cmd: Command): Command {
  return cmd
    .option('--http', 'serve Streamable HTTP instead of stdio (every request needs the bearer token)')
    .option('--host <address>', 'address to bind with --http (default: 127.0.0.1)')
    .option('--port <n>', 'port to bind with --http (default: any free port, printed on stderr)')
    .option('--token-file <file>', 'the bearer token clients must send (default: a new random token, printed on stderr)')
    .option('--allowed-host <name>', 'another host name clients may use to reach the server with --http (repeatable)', repeatable);
}

/** `lro mcp proxy`. */
function proxyCommand(ctx: Context): Command {
  const cmd = new Command('proxy')
    .description("start an MCP server (stdio) or reach one (--url) and sit between it and the client: large tool results are stored and replaced by a descriptor; lro's retrieval tools are added")
    .argument('[command...]', 'the upstream server command and its arguments (put -- before it)')
    .passThroughOptions()
    .usage('[options] -- <command> [args...]   or   [options] --url <url>');
  addOffloadOptions(cmd, 'the tool name', ['--json', '--operation', '--query', '--descriptor']);
  return addServeOptions(cmd)
    .addOption(new Option('--descriptor <form>', 'how the descriptor replaces a result').choices(['text', 'json']).default('text'))
    .option('--exclude <tool>', "pass this tool's results through whatever their size (repeatable)", repeatable)
    .option('--threshold-for <tool=n>', 'the threshold in tokens for one tool (repeatable)', repeatable)
    .option('--url <url>', 'reach the upstream server over Streamable HTTP at this URL instead of starting a command')
    .option('--header <header>', "a header sent to the --url server, 'Name: value' (repeatable)", repeatable)
    .addHelpText(
      'after',
      `
Examples:
  lro mcp proxy -- npx -y @modelcontextprotocol/server-filesystem ~/projects
  lro mcp proxy --threshold 2000 --exclude read_media_file -- npx -y @modelcontextprotocol/server-filesystem .
  lro mcp proxy --url https://mcp.example.com/mcp --header 'Authorization: Bearer XYZ'
  lro mcp proxy --http --port 8931 --token-file ~/.config/lro/token -- uvx mcp-server-fetch

Everything passes through unchanged (tools, prompts, resources, notifications, progress, cancellation, sampling,
elicitation), except: a tool result whose text is above the threshold is stored and replaced by its descriptor,
whose next steps are calls of lro's tools (lro_read, lro_grep, lro_jq, lro_info, lro_ls), which are added to
the tool list and answered by lro itself. JSON text is stored as JSON; images, audio and resources pass through.
If the upstream server exits, calls waiting on it get an error result and lro exits with status 2.`,
    )
    .action(async (command: string[], opts) => {
      const { runMcpProxy } = await import('../mcp/serve.js');
      ctx.exitCode = await runMcpProxy(command, opts, ctx.io);
    });
}

/** `lro mcp`, with `proxy` under it. */
export function mcpCommand(ctx: Context): Command {
  const mcp = addServeOptions(
    new Command('mcp')
      .description('serve lro as an MCP server on stdio (tools lro_offload, lro_read, lro_grep, lro_jq, lro_info, lro_ls); see also lro mcp proxy')
      .option('--dir <dir>', 'store directory (default: $LRO_DIR, else ${TMPDIR:-/tmp}/lro-<uid>)'),
  )
    .enablePositionalOptions() // so proxy can pass its command's options through
    .addHelpText(
      'after',
      `
Examples:
  lro mcp                                   an MCP server on stdio, for a client's config: {"command": "lro", "args": ["mcp"]}
  lro mcp --http --port 8931                Streamable HTTP at http://127.0.0.1:8931/mcp; the token is printed on stderr
  lro mcp proxy -- npx -y @modelcontextprotocol/server-filesystem ~/projects

Tools run the CLI's commands: the same output budgets (max_tokens, default 2000), and where the CLI prints
"next: lro read ...", the result names the next tool call. Errors are results with isError and the CLI's message.`,
    )
    .action(async (opts) => {
      const { runMcpServer } = await import('../mcp/serve.js');
      ctx.exitCode = await runMcpServer(opts, ctx.io);
    });
  mcp.hook('preSubcommand', (self) => {
    // `lro mcp --http proxy` would serve stdio: the proxy's options come after "proxy"
    const given = Object.keys(self.opts()).filter((k) => self.getOptionValueSource(k) === 'cli');
    if (given.length > 0) throw new UsageError("options of lro mcp proxy go after 'proxy': lro mcp proxy [options] -- CMD");
  });
  return mcp.addCommand(proxyCommand(ctx));
}
