// The server `lro mcp proxy` sits in front of: a command it starts (stdio) or a URL (Streamable HTTP), as an SDK
// client transport, plus what the proxy needs to say when it goes away (how the process ended).
import type { ChildProcess } from 'node:child_process';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { spawnError } from '../commands/run.js';
import { shellQuote } from '../describe/shell.js';
import { UsageError } from '../errors.js';
import type { IO } from '../io.js';
import { MAX_UPSTREAM_MESSAGE, useLineReadBuffer } from './read-buffer.js';

/** Where the upstream is: a command line, or a URL with extra request headers. */
export type UpstreamTarget = { command: string[] } | { url: string; headers: Record<string, string> };

/** A started upstream: its transport, and why it ended (read once onclose has fired). */
export interface Upstream {
  transport: Transport;
  /** The command line or URL, for messages. */
  label: string;
  /** How it ended, e.g. "exited with code 1"; null while it runs or when it cannot be told. */
  ending(): string | null;
  /** Whether a transport error means the upstream is gone (an HTTP stream cut mid-answer). */
  fatal(error: Error): boolean;
}

/** The stdio client transport with a linear read buffer and the child's exit status kept. */
class StdioUpstream extends StdioClientTransport {
  exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;

  override async start(): Promise<void> {
    await super.start();
    // the SDK keeps the child private and drops its status; it is there once start() has resolved
    const child = (this as unknown as { _process?: ChildProcess })._process;
    child?.once('exit', (code, signal) => (this.exit = { code, signal }));
  }
}

/** Starts the upstream; a command that cannot be started is an LroError (127 not found, 126 otherwise). */
export async function startUpstream(target: UpstreamTarget, io: IO): Promise<Upstream> {
  if ('url' in target) {
    let url: URL;
    try {
      url = new URL(target.url);
    } catch {
      throw new UsageError(`invalid --url '${target.url}': expected an http(s) URL such as http://127.0.0.1:8931/mcp`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`invalid --url '${target.url}': only http and https are supported`);
    const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: target.headers } });
    await transport.start();
    return {
      transport,
      label: target.url,
      ending: () => null,
      // a response stream cut before its answer (the server went away) is not resumed by the SDK: the call would wait forever
      fatal: (e) => /SSE stream disconnected|fetch failed|ECONNREFUSED|ECONNRESET|terminated/i.test(e.message),
    };
  }
  const [file, ...args] = target.command;
  if (!file) throw new UsageError('no upstream server: lro mcp proxy [options] -- CMD [ARGS...], or --url URL');
  const transport = useLineReadBuffer(
    new StdioUpstream({ command: file, args, env: io.env as Record<string, string>, stderr: 'pipe', maxBufferSize: MAX_UPSTREAM_MESSAGE }),
    MAX_UPSTREAM_MESSAGE,
  );
  // the server's own diagnostics go to lro's stderr as they come
  transport.stderr?.on('data', (d: Buffer) => void io.stderr.write(d).catch(() => undefined));
  try {
    await transport.start();
  } catch (e) {
    throw spawnError(file, e as NodeJS.ErrnoException);
  }
  return {
    transport,
    label: target.command.map(shellQuote).join(' '),
    ending: () => {
      const x = transport.exit;
      if (!x) return null;
      return x.signal ? `was killed by ${x.signal}` : `exited with code ${x.code}`;
    },
    fatal: () => false,
  };
}
