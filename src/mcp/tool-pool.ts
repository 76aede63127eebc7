// lro's tools run off the server's thread: each call goes to a worker thread of a small pool (tool-worker.ts),
// with a time limit and a memory limit of its own. One HTTP client's runaway lro_grep or lro_jq then occupies a
// worker, while another client's lro_ls is answered by another (before, one call of 10 s stalled every client);
// a call past its limits is stopped (its worker ended and replaced) and answered with an error result.
// Over HTTP each client session calls through a view of its own (forClient): waiting calls start in turn across
// clients, and no client runs calls on every worker, so one client's burst or runaway calls leave a worker and a
// place in line to the others. The tools whose work is bounded by their answer (lro_ls, lro_info, lro_read:
// `bounded` in tools.ts) have one more worker, the quick one, when every other worker is taken: an agent's look
// at a listing or a page is not queued behind runaway greps or 10 MB uploads. A call that runs past QUICK_MS
// there is stopped and queued again for the other workers, so the quick worker cannot be held.
import { availableParallelism } from 'node:os';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { oneLine } from '../errors.js';
import { formatDuration } from '../units.js';
import type { ListedTool } from './definitions.js';
import type { LroTools } from './lro-tools.js';
import { withStrings } from './body-parser.js';
import { errorResult, type ToolResult } from './result.js';
import { toolSpec } from './tools.js';

/** What the server needs of lro's tools: the listing, and calls (in-process, or on the pool). */
export interface McpTools {
  list(): ListedTool[];
  has(name: string): boolean;
  call(name: string, args: unknown): Promise<ToolResult>;
}

/** What a worker loads: the tools' environment (LRO_DIR), and whether they are the proxy's set. */
export interface WorkerSetup {
  env: NodeJS.ProcessEnv;
  proxy: boolean;
  /** --allow-dir: directories whose result files a call may name by path (confine.ts). */
  allowDirs: string[];
}

/** What a worker is given: the setup, and whether it runs its calls in the background (not the quick worker). */
export type WorkerData = WorkerSetup & { background: boolean };

/** The limits of the pool and of each call on it. */
export interface PoolLimits {
  /** Calls running at once (more wait their turn). */
  workers: number;
  /** A call running longer is stopped (--call-timeout). */
  callSeconds: number;
  /** A call whose heap grows past this is stopped (a worker's resourceLimits). */
  memoryMb: number;
  /**
   * The pool serves many clients (over HTTP): the quick worker starts with the first one, and the others run
   * their calls below the priority of the server's thread (tool-worker.ts). A stdio server's one client has no
   * other to wait for, and its calls run at the priority it gave lro.
   */
  shared?: boolean;
}

/** Workers by default: a few, so that a runaway call or two leave room for the others, on any machine. */
export const DEFAULT_WORKERS = Math.min(4, Math.max(2, availableParallelism()));
/** The heap a call may use: far above what a budgeted answer needs, far below what takes the machine down. */
export const CALL_MEMORY_MB = 1024;

/** The built worker entry (dist/mcp-worker.cjs, next to this bundle); null when running from sources. */
export function toolWorkerScript(): string | null {
  const script = fileURLToPath(new URL('./mcp-worker.cjs', import.meta.url));
  return existsSync(script) ? script : null;
}

/** The tools as one HTTP client session calls them: on a pool, a view that takes turns with other sessions. */
export function forClient(tools: McpTools): McpTools {
  return tools instanceof ToolPool ? tools.forClient() : tools;
}

/** A call on the quick worker running longer is stopped there and queued again for the others (it started again). */
const QUICK_MS = 2_000;

/** What to do about a call that was stopped. */
const NARROW = 'narrow the call (a fixed string, fewer records or columns, a smaller max_tokens)';

interface Job {
  name: string;
  args: unknown;
  done: (r: ToolResult) => void;
  /** The client session it came from (forClient); undefined: the one client of a stdio server. */
  client?: object;
  /** When it was queued, on the clock of starts (a session that never started a call waits from then). */
  queuedAt: number;
  /** It ran past QUICK_MS on the quick worker: it waits for one of the others now. */
  slow?: true;
}

/** Per client session: its calls running, and when it last had one started (a count of starts). */
interface Turns {
  running: number;
  lastStart: number;
}

/** Tool calls on worker threads; list() and has() answer from the tools loaded here. */
export class ToolPool implements McpTools {
  private readonly idle: Worker[] = [];
  private readonly busy = new Set<Worker>();
  /** The quick worker (see the top): started when the others are first all taken; busy while it runs a call. */
  private quick: Worker | null = null;
  private quickBusy = false;
  private readonly queue: Job[] = [];
  private readonly ready = new WeakMap<Worker, Promise<void>>();
  private readonly turns = new WeakMap<object, Turns>();
  private starts = 0;
  private closed = false;

  constructor(
    private readonly tools: LroTools,
    private readonly script: string,
    private readonly setup: WorkerSetup,
    private readonly limits: PoolLimits,
  ) {}

  list(): ListedTool[] {
    return this.tools.list();
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  /** Runs a call on a worker; never throws. An unknown tool is answered here (its error needs no worker). */
  call(name: string, args: unknown, client?: object): Promise<ToolResult> {
    if (!this.tools.has(name) || this.closed) return this.tools.call(name, withStrings(args));
    return new Promise((done) => {
      this.queue.push({ name, args, done, client, queuedAt: ++this.starts });
      this.next();
    });
  }

  /** The tools as one client session calls them: its calls take turns with other sessions' (see the top). */
  forClient(): McpTools {
    const client = {};
    return { list: () => this.list(), has: (name) => this.has(name), call: (name, args) => this.call(name, args, client) };
  }

  /**
   * Starts a worker ahead of the first call, while the client is still starting its session; for many clients
   * (`shared`), the quick worker too: started only once every worker was taken, it loaded its tools while a
   * loaded machine ran the calls that took them, and the first lro_ls to need it waited 0.15-0.5 s.
   */
  warm(): this {
    if (this.idle.length + this.busy.size === 0) {
      const worker = this.spawn();
      worker.unref();
      this.idle.push(worker);
    }
    if (this.limits.shared && !this.quick) (this.quick = this.spawn(true)).unref();
    return this;
  }

  /** Ends every worker (calls still running are answered with an error). */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.done(errorResult('lro: the server is stopping'));
    const quick = this.quick ? [this.quick] : [];
    await Promise.allSettled([...this.idle.splice(0), ...this.busy, ...quick].map((w) => w.terminate()));
  }

  /**
   * The queued job to start next: of the clients that may start one, the one whose last start is the oldest (a
   * session that never started one counts from when its call was queued, not from before everyone: 24 new
   * sessions went ahead of an established one that had been waiting), its first job. A client session may run
   * calls on all workers but one (a stdio server's one client on all).
   */
  private pick(): number {
    const most = Math.max(1, this.limits.workers - 1);
    let best = -1;
    let bestStart = Infinity;
    for (let i = 0; i < this.queue.length; i++) {
      const c = this.queue[i].client;
      if (c === undefined) {
        if (best < 0) return i; // the stdio server's one client: its jobs in order
        continue;
      }
      const t = this.turns.get(c);
      if (t && t.running >= most) continue;
      const last = t?.lastStart ?? this.queue[i].queuedAt;
      if (last < bestStart) [best, bestStart] = [i, last];
    }
    return best;
  }

  private next(): void {
    if (this.queue.length === 0 || this.closed) return;
    const at = this.pick();
    const worker = at < 0 ? null : (this.idle.pop() ?? (this.busy.size < this.limits.workers ? this.spawn() : null));
    // each waiting client runs all it may, or every worker is busy: the job waits, unless the quick worker takes it
    if (!worker) return this.nextQuick();
    const [job] = this.queue.splice(at, 1);
    if (job.client) {
      const t = this.turns.get(job.client) ?? { running: 0, lastStart: 0 };
      [t.running, t.lastStart] = [t.running + 1, ++this.starts];
      this.turns.set(job.client, t);
      const done = job.done;
      job.done = (r) => {
        t.running--;
        done(r);
      };
    }
    this.run(worker, job);
    // one worker kept ready while there is room: the next client's call does not wait for a worker to start
    if (this.idle.length === 0 && this.busy.size < this.limits.workers) {
      const spare = this.spawn();
      spare.unref();
      this.idle.push(spare);
    }
    // every worker taken: the quick one is made ready for the next bounded call
    if (this.busy.size >= this.limits.workers && !this.quick) (this.quick = this.spawn(true)).unref();
    this.next(); // more jobs may start: on another worker, or on the quick one
  }

  /** The oldest waiting call of a bounded tool, on the quick worker if it is free. */
  private nextQuick(): void {
    if (this.quickBusy) return;
    const at = this.queue.findIndex((j) => !j.slow && toolSpec(j.name)?.bounded);
    if (at < 0) return;
    const [job] = this.queue.splice(at, 1);
    const worker = this.quick ?? (this.quick = this.spawn(true));
    this.quickBusy = true;
    this.run(worker, job, true);
  }

  /** A worker; for many clients (`shared`), all but the quick one run in the background (tool-worker.ts). */
  private spawn(quick = false): Worker {
    const worker = new Worker(this.script, {
      workerData: { ...this.setup, background: !quick && this.limits.shared === true } satisfies WorkerData,
      resourceLimits: { maxOldGenerationSizeMb: this.limits.memoryMb },
    });
    worker.on('error', () => undefined); // reported to the call it ran (run)
    worker.once('exit', () => {
      const i = this.idle.indexOf(worker);
      if (i >= 0) this.idle.splice(i, 1); // an idle worker that went away is not given a call
      if (this.quick === worker && !this.quickBusy) this.quick = null;
    });
    // its first message says the tools are loaded: a call's time starts then, not while the worker starts
    this.ready.set(worker, new Promise((resolve) => worker.once('message', () => resolve())));
    return worker;
  }

  /** One call on one worker: its result, or an error result when it failed its limits (the worker is ended). */
  private run(worker: Worker, job: Job, quick = false): void {
    if (!quick) this.busy.add(worker);
    worker.ref();
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (result: ToolResult, healthy: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      this.busy.delete(worker);
      if (healthy && !this.closed) {
        worker.unref(); // an idle worker keeps no process alive
        if (!quick) this.idle.push(worker);
      } else {
        void worker.terminate();
        if (quick) this.quick = null;
      }
      if (quick) this.quickBusy = false;
      job.done(result);
      this.next();
    };
    // on the quick worker, a call past QUICK_MS goes back to the queue's front for the other workers
    const requeue = (): void => {
      if (settled) return;
      settled = true;
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      void worker.terminate();
      this.quick = null;
      this.quickBusy = false;
      this.queue.unshift({ ...job, slow: true });
      this.next();
    };
    const onMessage = (result: ToolResult) => finish(result, true);
    const onError = (e: Error & { code?: string }) => finish(errorResult(this.failure(job.name, e)), false);
    const onExit = (code: number) => finish(errorResult(`lro: ${job.name} stopped unexpectedly (exit ${code})`), false);
    worker.on('error', onError).on('exit', onExit);
    void this.ready.get(worker)!.then(() => {
      if (settled) return;
      const [limit, quickOnly] = [this.limits.callSeconds * 1000, quick && this.limits.callSeconds * 1000 > QUICK_MS];
      const overtime = () => finish(errorResult(this.overtime(job.name)), false);
      timer = setTimeout(quickOnly ? requeue : overtime, quickOnly ? QUICK_MS : limit);
      worker.on('message', onMessage);
      worker.postMessage({ name: job.name, args: job.args });
    });
  }

  private overtime(name: string): string {
    const took = formatDuration(this.limits.callSeconds);
    return `lro: ${name} ran longer than ${took} (--call-timeout) and was stopped: ${NARROW} or raise --call-timeout`;
  }

  private failure(name: string, e: Error & { code?: string }): string {
    if (e.code !== 'ERR_WORKER_OUT_OF_MEMORY') return `lro: ${name} failed: ${oneLine(e.message)}`;
    return `lro: ${name} needed more than ${this.limits.memoryMb} MB of memory and was stopped: ${NARROW}`;
  }
}
