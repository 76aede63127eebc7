// Running a search or a jq filter where it can be stopped. A regular expression can backtrack for hours and a
// jq filter can loop forever, and neither can be interrupted on the thread that runs it; so such work runs in a
// worker thread that ticks a shared counter as it makes progress, and the main thread terminates it when the
// counter stands still for too long. Output comes back in messages, with flow control so memory stays bounded.
import type { Worker } from 'node:worker_threads';
import { LroError } from '../errors.js';
import { workerScript } from './worker-script.js';

/** What a guarded worker does (see src/worker.ts). */
export type GuardedTask =
  | { task: 'grep'; path: string; pattern: string; options: Record<string, unknown>; env: Record<string, string | undefined> }
  | { task: 'jq'; path: string; filter: string; options: Record<string, unknown>; env: Record<string, string | undefined> }
  | { task: 'where' | 'count'; path: string; args: string[]; options: Record<string, unknown>; env: Record<string, string | undefined> };

/** Shared state: [0] progress ticks, [1] bytes sent by the worker, [2] bytes written by the main thread. */
const TICKS = 0;
const SENT = 1;
const WRITTEN = 2;
/** The worker waits while this much of its output is not written yet. */
const MAX_UNWRITTEN = 8 << 20;

/** How long a guarded task may go without progress, unless --timeout says otherwise. */
export const DEFAULT_STALL_SECONDS = 10;

type FromWorker = { out: string } | { err: string } | { done: number } | { error: { message: string; exitCode: number } };

/**
 * Runs a guarded task in a worker; forwards its output to `write`; returns its exit code. Without the built
 * worker (tests running from sources) the caller should run the task in-process instead: then `fallback` runs.
 */
export async function runGuarded(
  task: GuardedTask,
  write: (s: string) => Promise<void>,
  writeErr: (s: string) => Promise<void>,
  what: 'grep' | 'jq',
  fallback: () => Promise<number>,
  stallSeconds: number = DEFAULT_STALL_SECONDS,
): Promise<number> {
  const script = workerScript();
  if (!script) return fallback();
  const { Worker } = await import('node:worker_threads');
  const shared = new Int32Array(new SharedArrayBuffer(12));
  const worker: Worker = new Worker(script, { workerData: { ...task, shared } });
  const limit = Math.max(0.1, stallSeconds) * 1000;
  return new Promise<number>((resolve, reject) => {
    let lastTicks = -1;
    let stalledSince = Date.now();
    let finished = false;
    let writing = Promise.resolve();
    const finish = (f: () => void) => {
      if (finished) return;
      finished = true;
      clearInterval(watchdog);
      // The worker is stopped however the output went: after a write failed (a closed stdout) it would wait
      // for the reader forever, and keep the process alive.
      void writing.then(
        () => {
          void worker.terminate();
          f();
        },
        (e: unknown) => {
          void worker.terminate();
          reject(e);
        },
      );
    };
    const watchdog = setInterval(() => {
      const t = Atomics.load(shared, TICKS);
      if (t !== lastTicks) {
        lastTicks = t;
        stalledSince = Date.now();
      } else if (Date.now() - stalledSince > limit) {
        finished = true;
        clearInterval(watchdog);
        void worker.terminate();
        const where = what === 'grep' ? `the pattern made no progress for ${limit / 1000} s (catastrophic backtracking?)` : `the jq filter ran ${limit / 1000} s without finishing (an endless loop?)`;
        const hint = what === 'grep' ? 'simplify the pattern, or use -F for a fixed string' : 'check the filter, or narrow the input first with --records or lro grep';
        reject(new LroError(`${where}: ${hint}`));
      }
    }, Math.min(1000, limit / 4));
    worker.on('message', (m: FromWorker) => {
      if ('out' in m) {
        const n = Buffer.byteLength(m.out);
        writing = writing.then(async () => {
          await write(m.out);
          Atomics.store(shared, WRITTEN, (Atomics.load(shared, WRITTEN) + n) | 0);
          Atomics.notify(shared, WRITTEN);
        });
        writing.catch((e: unknown) => finish(() => reject(e)));
      } else if ('err' in m) {
        writing = writing.then(() => writeErr(m.err));
      } else if ('done' in m) finish(() => resolve(m.done));
      else finish(() => reject(new LroError(m.error.message, m.error.exitCode)));
    });
    worker.on('error', (e) => finish(() => reject(e)));
    worker.on('exit', (code) => finish(() => reject(new LroError(`the ${what} worker stopped unexpectedly (exit ${code})`))));
  });
}

/** The worker side: posts output with flow control, ticks progress, reports the end. */
export class GuardChannel {
  private readonly shared: Int32Array;
  private sent = 0;

  constructor(
    shared: Int32Array,
    private readonly post: (m: FromWorker) => void,
  ) {
    this.shared = shared;
  }

  tick = (): void => {
    Atomics.add(this.shared, TICKS, 1);
  };

  write = (s: string): void => {
    this.sent = (this.sent + Buffer.byteLength(s)) | 0; // both counters wrap at 2^31 alike
    Atomics.store(this.shared, SENT, this.sent);
    this.post({ out: s });
    // wait while the main thread is far behind
    for (;;) {
      const written = Atomics.load(this.shared, WRITTEN);
      if (((this.sent - written) | 0) <= MAX_UNWRITTEN) break;
      Atomics.wait(this.shared, WRITTEN, written, 1000);
      this.tick(); // waiting on the reader is not a stall
    }
  };

  writeErr = (s: string): void => {
    this.post({ err: s });
  };

  done(code: number): void {
    this.post({ done: code });
  }

  fail(e: unknown): void {
    const exitCode = e instanceof LroError ? e.exitCode : 2;
    this.post({ error: { message: e instanceof Error ? e.message : String(e), exitCode } });
  }
}
