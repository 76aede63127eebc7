// Calls into the S3 worker (store/s3-worker.ts, built to dist/s3-worker.cjs) and waits for the answer: the store's
// code (resolve, scan, gc) is synchronous, as a local directory lets it be, so a remote store's requests are made
// on one worker thread, started on the first request, while this thread sleeps on a shared flag. A request that
// does not answer in its time is given up with a one-line error (the worker is stopped).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { MessagePort, Worker } from 'node:worker_threads';
import { LroError } from '../errors.js';
import { v8FlagsChanged } from '../v8-flags.js';
import type { S3Answer, S3Request } from './s3-worker.js';

/** A request that fails gets this error: `kind` says which (unreachable, credentials, bucket, throttled, …). */
export class S3Error extends LroError {
  constructor(
    message: string,
    readonly kind: string,
  ) {
    super(message);
  }
}

let current: { worker: Worker; port: MessagePort; envKey: string } | null = null;

/**
 * node:worker_threads, loaded on a remote store's first request: every command that reads a store imports this
 * module, and loading it at start-up cost a local `lro read` about 120 page faults (some 3 ms here) for nothing.
 */
let threadsModule: typeof import('node:worker_threads') | null = null;
const threads = (): typeof import('node:worker_threads') =>
  (threadsModule ??= createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads'));

function workerScript(): string {
  const script = fileURLToPath(new URL('./s3-worker.cjs', import.meta.url));
  if (!existsSync(script)) {
    throw new LroError('the S3 store needs the built lro (dist/s3-worker.cjs is missing): run npm run build');
  }
  return script;
}

/**
 * The worker's entry: bin/s3-worker.js, which loads the bundle through the code cache's loader, so that V8 takes the
 * SDK's compiled code from dist/code-cache/ (scripts/build-code-cache.cjs) instead of compiling it (not once lro has
 * set a V8 flag: the offload's secret rules, grep's budget; V8 would refuse the cache after reading it), and answers
 * every request with the cause when the bundle does not load. The bundle itself without bin/ (dist/ copied alone).
 */
function workerEntry(script: string): { entry: string; cache: boolean } {
  const wrapper = fileURLToPath(new URL('../bin/s3-worker.js', import.meta.url));
  return existsSync(wrapper) ? { entry: wrapper, cache: !v8FlagsChanged() } : { entry: script, cache: false };
}

function startWorker(env: NodeJS.ProcessEnv): { worker: Worker; port: MessagePort } {
  const envKey = JSON.stringify(env);
  if (current && current.envKey === envKey) return current;
  stopWorker();
  const { MessageChannel, Worker } = threads();
  const { port1, port2 } = new MessageChannel();
  // on Node 20 the SDK prints a warning about newer Node versions to come on every first use: not lro's output
  const workerEnv = { ...env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
  const { entry, cache } = workerEntry(workerScript());
  const options = { workerData: { port: port2, cache }, transferList: [port2], env: workerEnv, stderr: false };
  const worker = new Worker(entry, options);
  // a worker's failure reaches the caller as its request's answer (or timeout), in one line; not, after it, as an
  // unhandled error event's stack trace
  worker.on('error', () => undefined);
  worker.unref();
  port1.unref();
  current = { worker, port: port1, envKey };
  return current;
}

/**
 * Starts the worker now, for requests to come: its start (a thread, and the SDK loaded in it) then runs on another
 * core while this thread goes on (an offload's analysis), instead of in front of the first request.
 */
export function prepareWorker(env: NodeJS.ProcessEnv): void {
  startWorker(env);
}

/** Stops the worker (a request that timed out may still be running in it). */
export function stopWorker(): void {
  if (!current) return;
  void current.worker.terminate();
  current.port.close();
  current = null;
}

/** Runs one S3 request and returns its value; throws S3Error naming the cause. `timeoutMs` bounds the wait. */
export function s3Call<T>(q: S3Request, env: NodeJS.ProcessEnv, timeoutMs: number): T {
  const { worker, port } = startWorker(env);
  const flag = new Int32Array(new SharedArrayBuffer(4));
  worker.postMessage({ q, flag });
  const waited = Atomics.wait(flag, 0, 0, timeoutMs);
  const got = threads().receiveMessageOnPort(port);
  if (waited === 'timed-out' || !got) {
    stopWorker();
    const endpoint = env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || 'of AWS';
    throw new S3Error(`the S3 endpoint ${endpoint} did not answer within ${Math.round(timeoutMs / 1000)} s`, 'timeout');
  }
  const answer = got.message as S3Answer;
  if ('error' in answer) throw new S3Error(answer.error, answer.code);
  return answer.value as T;
}
