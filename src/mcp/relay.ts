// `lro mcp proxy`: a relay of JSON-RPC messages between a client (downstream) and an MCP server (upstream), both
// SDK transports. Every message passes through unchanged and with its id, in both directions: requests,
// notifications (progress, cancellation, logging, list changes) and the server's own requests to the client
// (sampling, roots, elicitation). Only these are touched: the initialize result (a tools capability added when the
// upstream has none), tools/list results (tool-list.ts), calls of lro's own tools (answered here, never
// forwarded, never offloaded), and results of the upstream's tools (offload-result.ts), including a task's result.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ToolCall } from './calls.js';
import type { LroTools } from './lro-tools.js';
import type { CallResult, ResultOffloader } from './offload-result.js';
import { errorResult } from './result.js';
import { mergeToolList } from './tool-list.js';
import type { Upstream } from './upstream.js';

type Id = string | number;
type Message = { jsonrpc: '2.0'; id?: Id; method?: string; params?: Record<string, any>; result?: Record<string, any>; error?: unknown };

/** A request sent upstream and not answered yet. */
interface Pending {
  method: string;
  /** tools/call and tasks/result of an upstream tool: the call, for offloading its result. */
  call?: ToolCall;
}

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
    private readonly tools: LroTools,
    private readonly offloader: ResultOffloader,
    private readonly warn: (message: string) => void,
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

  /** Ends the relay once every request in flight has been answered (the client closed its side of stdio). */
  async finish(): Promise<void> {
    while (!this.closing && (this.pending.size > 0 || this.local.size > 0 || this.inflight.size > 0)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await this.close(null);
  }

  /** Ends the relay: both sides closed (the upstream process stopped). */
  async close(reason: string | null = null): Promise<void> {
    if (this.closing) return;
    this.closing = true;
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
      if (m.method === 'tools/call') {
        const name = String(m.params?.name);
        if (this.tools.has(name)) return this.callLocal(id, name, m.params?.arguments);
        call = { tool: name, arguments: (m.params?.arguments as Record<string, unknown>) ?? {} };
      }
      if (m.method === 'tasks/result') call = this.tasks.get(String(m.params?.taskId));
      this.pending.set(id, { method: m.method!, ...(call ? { call } : {}) });
    } else if (m.method === 'notifications/cancelled') {
      if (this.local.has(m.params?.requestId)) return; // the upstream never saw that request
      this.pending.delete(m.params?.requestId); // a cancelled request gets no answer
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
    const p = this.pending.get(m.id!);
    this.pending.delete(m.id!);
    if (p && m.result) {
      try {
        m = { ...m, result: await this.adjust(p, m.result) };
      } catch (e) {
        // never lose an answer to a failure here: pass it on as it came
        this.warn(`could not process the result of ${p.call?.tool ?? p.method}: ${(e as Error).message}`);
      }
    }
    for (const [token, id] of this.progress) if (id === m.id) this.progress.delete(token);
    return this.toClient(m);
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
        return p.call ? this.offloader.apply(result as CallResult, p.call) : result;
      case 'tasks/result':
        return p.call && Array.isArray(result.content) ? this.offloader.apply(result as CallResult, p.call) : result;
      default:
        return result;
    }
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
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
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
