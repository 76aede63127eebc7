// The server `lro mcp proxy` sits in front of: a command it starts (stdio) or a URL (Streamable HTTP), as an SDK
// client transport, plus what the proxy needs to say when it goes away (how the process ended).
import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import {
  getDefaultEnvironment,
  StdioClientTransport,
  type StdioServerParameters,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { spawnError } from '../commands/run.js';
import { shellQuote } from '../shell-quote.js';
import { UsageError } from '../errors.js';
import type { IO } from '../io.js';
import { HttpTextKeeper, TextKeepingReadBuffer } from './raw-json.js';
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

/** How long a stopping upstream gets after its stdin is closed, then after SIGTERM, before SIGKILL. */
const STOP_GRACE_MS = 2000;

/** The SDK's private parts of a StdioClientTransport that starting the process touches. */
interface SdkStdioFields {
  _process?: ChildProcess;
  _serverParams: StdioServerParameters;
  _readBuffer: { append(chunk: Buffer): void; clear(): void };
  _stderrStream: PassThrough | null;
  processReadBuffer(): void;
}

const wait = (ms: number, done: Promise<unknown>) =>
  Promise.race([done, new Promise((r) => setTimeout(r, ms).unref())]);

/** Whether any process of a group is alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // gone already
  }
}

/**
 * The stdio client transport with a linear read buffer (keeping each message's text), the child's exit status
 * kept, and the server in a process group of its own: stopping it stops what it started too (`npx` and the
 * server under it, a shell's children), which the SDK's close (one kill of the direct child) leaves running.
 */
class StdioUpstream extends StdioClientTransport {
  exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private child: ChildProcess | null = null;

  /** The SDK's start, with the process detached into its own group (the SDK's spawn takes no such option). */
  override start(): Promise<void> {
    const self = this as unknown as SdkStdioFields;
    if (self._process) throw new Error('StdioClientTransport already started');
    const p = self._serverParams;
    return new Promise((resolve, reject) => {
      const child = spawn(p.command, p.args ?? [], {
        env: { ...getDefaultEnvironment(), ...p.env },
        stdio: ['pipe', 'pipe', p.stderr ?? 'inherit'],
        cwd: p.cwd,
        detached: true,
      });
      self._process = this.child = child;
      child.on('error', (e) => (reject(e), this.onerror?.(e)));
      child.on('spawn', () => resolve());
      child.once('exit', (code, signal) => (this.exit = { code, signal }));
      child.on('close', () => ((self._process = undefined), this.onclose?.()));
      child.stdin?.on('error', (e) => this.onerror?.(e));
      child.stdout?.on('data', (chunk: Buffer) => {
        try {
          self._readBuffer.append(chunk);
          self.processReadBuffer();
        } catch (e) {
          this.onerror?.(e as Error);
          void this.close().catch(() => undefined);
        }
      });
      child.stdout?.on('error', (e) => this.onerror?.(e));
      if (self._stderrStream && child.stderr) child.stderr.pipe(self._stderrStream);
    });
  }

  /** Stops the server: stdin closed, then SIGTERM to its group, then SIGKILL, each after a grace period. */
  override async close(): Promise<void> {
    const child = this.child;
    const self = this as unknown as SdkStdioFields;
    this.child = null;
    if (child?.pid !== undefined) {
      const over = child.exitCode !== null || child.signalCode !== null;
      const exited = new Promise((r) => (over ? r(null) : child.once('exit', r)));
      child.stdin?.end();
      await wait(STOP_GRACE_MS, exited);
      const pgid = child.pid;
      if (groupAlive(pgid)) {
        signalGroup(pgid, 'SIGTERM');
        await wait(STOP_GRACE_MS, exited);
        for (let i = 0; i < 10 && groupAlive(pgid); i++) await new Promise((r) => setTimeout(r, STOP_GRACE_MS / 10));
        signalGroup(pgid, 'SIGKILL');
      }
    }
    self._readBuffer.clear();
  }
}

/** Has each message the transport hands on carry the text the keeper noted for it (whoever sets onmessage). */
function adoptingTexts(transport: Transport, keeper: HttpTextKeeper): void {
  let handler: Transport['onmessage'];
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => handler,
    set: (h: Transport['onmessage']) => {
      handler = h && ((message, extra) => {
        keeper.adopt(message);
        h(message, extra);
      });
    },
  });
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
    const keeper = new HttpTextKeeper();
    const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: target.headers }, fetch: keeper.fetch });
    adoptingTexts(transport, keeper);
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
    new TextKeepingReadBuffer(MAX_UPSTREAM_MESSAGE),
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
