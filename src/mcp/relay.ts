// `lro mcp proxy`: a relay of JSON-RPC messages between a client (downstream) and an MCP server (upstream), both
// SDK transports. Every message passes through unchanged and with its id, in both directions: requests,
// notifications (progress, cancellation, logging, list changes) and the server's own requests to the client
// (sampling, roots, elicitation). Only these are touched: the initialize result (a tools capability added when the
// upstream has none), tools/list results (tool-list.ts), calls of lro's own tools (answered here, never
// forwarded, never offloaded), and results of the upstream's tools (offload-result.ts), including a task's result.
// A message it does not change goes on as the upstream wrote it (raw-json.ts); no answer passes that is over the
// size a client can take (result-cap.ts), and no call waits on the upstream longer than --call-timeout.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { formatBytes, formatDuration } from '../units.js';
import type { ToolCall } from './calls.js';
import type { McpTools } from './tool-pool.js';
import type { CallResult, ResultOffloader } from './offload-result.js';
import { messageJson } from './raw-json.js';
import { errorResult } from './result.js';
import { MAX_RELAYED_BYTES, type ResultCap } from './result-cap.js';
import { mergeToolList } from './tool-list.js';
import type { Upstream } from './upstream.js';

type Id = string | number;
type Message = { jsonrpc: '2.0'; id?: Id; method?: string; params?: Record<string, any>; result?: Record<string, any>; error?: unknown };

/** A request sent upstream and not answered yet. */
interface Pending {
  method: string;
  /** tools/call and tasks/result of an upstream tool: the call, for offloading its result. */
  call?: ToolCall;
  /** A tools/call's --call-timeout. */
  timer?: NodeJS.Timeout;
}

/** What bounds a relay: each upstream call's time, each answer's size, and the wait for answers at the end. */
export interface RelayLimits {
  /** An upstream tools/call not answered in this time is cancelled and answered with an error. */
  callSeconds: number;
  /** Answers over the size a client can take are stored or refused; null: no cap (tests of other things). */
  cap: ResultCap | null;
  /** After the client closed stdin: how long answers still being made are waited for. */
  finishSeconds: number;
}

/** By default: --call-timeout's default, no cap, and a few seconds for the last answers. */
export const DEFAULT_RELAY_LIMITS: RelayLimits = { callSeconds: 300, cap: null, finishSeconds: 5 };

/** JSON-RPC "internal error", for requests the upstream can no longer answer. */
const INTERNAL_ERROR = -32603;

const isRequest = (m: Message) => m.method !== undefined && m.id !== undefined;
const isResponse = (m: Message) => m.method === undefined && m.id !== undefined;

/** One client connected to one upstream. */
export class Relay {
  /** Resolves when the relay has ended: with the reason when the upstream ended it, null when the client did. */
  readonly ended: Promise<string | null>;
  private end!: (reason: string | null) => void;
  private closing = false;
  private readonly pending = new Map<Id, Pending>();
  /** Calls of lro's own tools being answered here. */
  private readonly local = new Map<Id, Promise<void>>();
  /** Tasks started by a tools/call (task-augmented): their result is that call's result. */
  private readonly tasks = new Map<string, ToolCall>();
  /** progressToken -> the request it reports on (an HTTP client gets it on that request's stream). */
  private readonly progress = new Map<Id, Id>();
  /** Messages from the upstream being processed (a result being stored): delivered even if the upstream ends. */
  private readonly inflight = new Set<Promise<void>>();
  private upstreamHasTools = true;
  private readonly warned = new Set<string>();

  constructor(
    private readonly down: Transport,
    private readonly up: Upstream,
    private readonly tools: McpTools,
    private readonly offloader: ResultOffloader,
    private readonly warn: (message: string) => void,
    private readonly limits: RelayLimits = DEFAULT_RELAY_LIMITS,
  ) {
    this.ended = new Promise((resolve) => (this.end = resolve));
  }

  /** Connects both sides (the upstream is already started). */
  async start(): Promise<void> {
    this.down.onmessage = (m) => this.fromClient(m as Message);
    this.up.transport.onmessage = (m) => {
      const done = this.fromServer(m as Message);
      this.inflight.add(done);
      void done.finally(() => this.inflight.delete(done));
    };
    this.down.onclose = () => void this.close(null);
    this.up.transport.onclose = () => void this.upstreamGone(`the upstream MCP server (${this.up.label}) ${this.up.ending() ?? 'closed the connection'}`);
    this.up.transport.onerror = (e) => {
      if (this.up.fatal(e)) void this.upstreamGone(`the upstream MCP server (${this.up.label}) went away: ${e.message}`);
    };
    this.down.onerror = () => undefined; // a bad message from the client is answered by the transport itself
    await this.down.start();
  }

  /**
   * Ends the relay once every request in flight has been answered (the client closed its side of stdio), or when
   * finishSeconds have passed: a client that has gone does not keep the proxy and its upstream running.
   */
  async finish(): Promise<void> {
    const until = Date.now() + this.limits.finishSeconds * 1000;
    const waiting = () => this.pending.size > 0 || this.local.size > 0 || this.inflight.size > 0;
    while (!this.closing && waiting() && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await this.close(null);
  }

  /** Ends the relay: both sides closed (the upstream process stopped). */
  async close(reason: string | null = null): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    for (const p of this.pending.values()) clearTimeout(p.timer); // nobody is waiting for those answers now
    await Promise.allSettled([this.up.transport.close(), this.down.close()]);
    this.end(reason);
  }

  private fromClient(m: Message): void {
    if (isRequest(m)) {
      const id = m.id!;
      const token = m.params?._meta?.progressToken;
      if (token !== undefined) this.progress.set(token, id);
      let call: ToolCall | undefined;
      if (m.method === 'tools/list' && !this.upstreamHasTools) {
        void this.toClient({ jsonrpc: '2.0', id, result: { tools: this.tools.list() } });
        return;
      }
      let timer: NodeJS.Timeout | undefined;
      if (m.method === 'tools/call') {
        const name = String(m.params?.name);
        if (this.tools.has(name)) return this.callLocal(id, name, m.params?.arguments);
        call = { tool: name, arguments: (m.params?.arguments as Record<string, unknown>) ?? {} };
        timer = setTimeout(() => void this.timedOut(id, name), this.limits.callSeconds * 1000);
      }
      if (m.method === 'tasks/result') call = this.tasks.get(String(m.params?.taskId));
      this.pending.set(id, { method: m.method!, ...(call ? { call } : {}), ...(timer ? { timer } : {}) });
    } else if (m.method === 'notifications/cancelled') {
      if (this.local.has(m.params?.requestId)) return; // the upstream never saw that request
      this.settle(m.params?.requestId); // a cancelled request gets no answer
    }
    this.up.transport.send(m as JSONRPCMessage).catch((e: Error) => {
      if (isRequest(m)) void this.answerFailed(m.id!, `lro: could not send the request to the upstream MCP server: ${e.message}`);
    });
  }

  private async fromServer(m: Message): Promise<void> {
    if (!isResponse(m)) {
      // the server's requests and notifications: on the stream of the request they belong to, when it can be told
      const token = m.method === 'notifications/progress' ? m.params?.progressToken : undefined;
      const related = token !== undefined ? this.progress.get(token) : [...this.pending.keys()].at(-1);
      return this.toClient(m, related);
    }
    const p = this.settle(m.id!);
    if (p && m.result) {
      try {
        const result = await this.adjust(p, m.result);
        if (result !== m.result) m = { ...m, result }; // unchanged, it goes on as the upstream wrote it
      } catch (e) {
        // never lose an answer to a failure here: pass it on as it came
        this.warn(`could not process the result of ${p.call?.tool ?? p.method}: ${(e as Error).message}`);
      }
    }
    for (const [token, id] of this.progress) if (id === m.id) this.progress.delete(token);
    return this.toClient(this.withinCap(m, p));
  }

  /** The request a response or a cancellation ends, taken from those waiting (its timer stopped). */
  private settle(id: Id): Pending | undefined {
    const p = this.pending.get(id);
    this.pending.delete(id);
    clearTimeout(p?.timer);
    return p;
  }

  /** An answer other than a tool result over the size a client takes: an error in its place (results: adjust). */
  private withinCap(m: Message, p: Pending | undefined): Message {
    if (!this.limits.cap || p?.call) return m;
    let size: number;
    try {
      size = Buffer.byteLength(messageJson(m));
    } catch {
      size = Infinity; // longer than a string can be
    }
    if (size <= MAX_RELAYED_BYTES) return m;
    const what = `the upstream's answer to ${p?.method ?? 'a request'} is ${formatBytes(size)}`;
    const over = `more than the ${formatBytes(MAX_RELAYED_BYTES)} a message through lro may carry`;
    const message = `lro: ${what}, ${over}: ask for less`;
    return { jsonrpc: '2.0', id: m.id, error: { code: INTERNAL_ERROR, message } };
  }

  /** An upstream call past --call-timeout: cancelled upstream, answered with an error. */
  private async timedOut(id: Id, tool: string): Promise<void> {
    const reason = `no answer within ${formatDuration(this.limits.callSeconds)} (--call-timeout)`;
    const cancel = { jsonrpc: '2.0' as const, method: 'notifications/cancelled', params: { requestId: id, reason } };
    this.up.transport.send(cancel).catch(() => undefined);
    const what = `lro: the upstream MCP server (${this.up.label}) gave ${tool} ${reason}; the call was cancelled`;
    const message = `${what}: retry with a smaller request, or raise --call-timeout`;
    await this.answerFailed(id, message);
  }

  /** What the proxy changes in a result. */
  private async adjust(p: Pending, result: Record<string, any>): Promise<Record<string, any>> {
    switch (p.method) {
      case 'initialize': {
        if (typeof result.protocolVersion === 'string') this.up.transport.setProtocolVersion?.(result.protocolVersion);
        if (result.capabilities?.tools) return result;
        this.upstreamHasTools = false;
        return { ...result, capabilities: { ...result.capabilities, tools: {} } };
      }
      case 'tools/list':
        return mergeToolList(result, this.tools.list(), (t) => this.offloader.offloads(t), (w) => this.warnOnce(w));
      case 'tools/call':
        if (result.task?.taskId !== undefined && p.call) {
          this.tasks.set(String(result.task.taskId), p.call); // its result comes from tasks/result
          return result;
        }
        return p.call ? this.toolResult(result as CallResult, p.call) : result;
      case 'tasks/result':
        return p.call && Array.isArray(result.content) ? this.toolResult(result as CallResult, p.call) : result;
      default:
        return result;
    }
  }

  /**
   * An upstream tool's result: offloaded, then within the size a client takes (an --exclude'd tool's, an image's,
   * whatever the offload left).
   */
  private async toolResult(result: CallResult, call: ToolCall): Promise<CallResult> {
    const out = await this.offloader.apply(result, call);
    return this.limits.cap ? this.limits.cap.apply(out, call) : out;
  }

  private callLocal(id: Id, name: string, args: unknown): void {
    const done = this.tools
      .call(name, args)
      .then((result) => this.toClient({ jsonrpc: '2.0', id, result }))
      .finally(() => this.local.delete(id));
    this.local.set(id, done);
  }

  /** Sends to the client; a message for a request stream that has closed goes on the general stream instead. */
  private async toClient(m: Message, related?: Id): Promise<void> {
    if (this.closing) return;
    try {
      await this.down.send(m as JSONRPCMessage, related !== undefined ? { relatedRequestId: related } : undefined);
    } catch (e) {
      if (related !== undefined) return this.toClient(m);
      this.warnOnce(`could not send a message to the client: ${(e as Error).message}`);
    }
  }

  /** Answers a request the upstream will not: an error result for a tool call, a JSON-RPC error otherwise. */
  private async answerFailed(id: Id, message: string): Promise<void> {
    const p = this.settle(id);
    if (!p) return;
    if (p.method === 'tools/call' || p.method === 'tasks/result') await this.toClient({ jsonrpc: '2.0', id, result: errorResult(message) });
    else await this.toClient({ jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message } } as Message);
  }

  /** The upstream has gone: every call waiting on it is answered with an error at once, then the relay ends. */
  private async upstreamGone(reason: string): Promise<void> {
    if (this.closing) return;
    await Promise.all([...this.pending.keys()].map((id) => this.answerFailed(id, `lro: ${reason} before answering`)));
    // answers already received, and lro's own calls (they do not need the upstream), still get through
    await Promise.allSettled([...this.inflight, ...this.local.values()]);
    await this.close(reason);
  }

  private warnOnce(message: string): void {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    this.warn(message);
  }
}
