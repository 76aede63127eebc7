// The JSON of an HTTP request's body, parsed off the main thread when it is large. Over HTTP, one process serves
// every client session: the SDK's transport decodes and parses each body on the main thread, and 20 clients'
// 10 MB lro_offload uploads at once held another client's lro_ls for 2.1 s (decode and JSON.parse, 2.8 s of the
// main thread's time, measured with --cpu-prof), long enough for kept-alive connections to be dropped under the
// clients. A small body, the usual request, is parsed where it is, as a thread's round trip would cost it more
// than the parse. A large one goes to one parser thread as it arrives, a chunk at a time (copying a whole 10 MB
// body at its end took 10-20 ms of the main thread each, and 20 bodies end together), and its long strings come
// back as shared memory (sharedStrings): a 10 MB lro_offload content is never copied into the main thread's heap
// and out again to the tool's worker (20 ms to receive and 10 ms to send, each, on a loaded machine). The
// worker that runs the call turns them back into strings (withStrings).
import { Worker } from 'node:worker_threads';

/** Bodies up to this size are parsed on the main thread (about a millisecond of parsing). */
const INLINE_BYTES = 256 * 1024;

/** A string of a tool call's arguments at least this long comes from the parser thread as shared memory. */
export const SHARED_CHARS = 64 * 1024;

/**
 * The parser thread's whole program: a body's chunks in, then its end; out, its value (or the parse error's
 * message). With `share`, each string of a tools/call's arguments of SHARED_CHARS or more is replaced by its UTF-8
 * bytes in a SharedArrayBuffer: one no client can send in JSON, so nothing else is taken for one.
 */
const PARSER = `
const { parentPort } = require('node:worker_threads');
const bodies = new Map();
const text = new TextDecoder();
const SHARED = ${SHARED_CHARS};
const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
function shared(v, depth) {
  if (typeof v === 'string') {
    if (v.length < SHARED) return v;
    const sab = new SharedArrayBuffer(Buffer.byteLength(v));
    Buffer.from(sab).write(v);
    return sab;
  }
  if (typeof v !== 'object' || v === null || depth > 64) return v;
  for (const k of Object.keys(v)) v[k] = shared(v[k], depth + 1);
  return v;
}
function share(m) {
  if (isObject(m) && m.method === 'tools/call' && isObject(m.params) && isObject(m.params.arguments)) shared(m.params.arguments, 0);
}
parentPort.on('message', ({ id, chunk, drop, share: sharing }) => {
  if (drop) return void bodies.delete(id);
  if (chunk) {
    const parts = bodies.get(id);
    if (parts) parts.push(chunk); else bodies.set(id, [chunk]);
    return;
  }
  const parts = bodies.get(id) ?? [];
  bodies.delete(id);
  let value, error;
  try {
    value = JSON.parse(text.decode(parts.length === 1 ? parts[0] : Buffer.concat(parts)));
    parts.length = 0;
    if (sharing) for (const m of Array.isArray(value) ? value : [value]) share(m);
  } catch (e) { error = String(e && e.message); }
  parentPort.postMessage({ id, value, error });
});`;

/** A body that is not JSON. */
export class BodyNotJson extends Error {}

type Answer = { id: number; value?: unknown; error?: string };

/** One body being read: its chunks as they come, then its value. */
export interface Body {
  add(chunk: Buffer): void;
  /** The body's JSON value; rejects with BodyNotJson. */
  end(): Promise<unknown>;
  /** The body will not be read to its end (too large, or the client went away). */
  drop(): void;
}

/** One parser thread, started at the first large body and not keeping the process alive while idle. */
export class BodyParser {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, { done: (v: unknown) => void; fail: (e: Error) => void }>();
  private last = 0;

  /** With `share`, long strings of tools/call arguments come back as shared memory (see the top). */
  constructor(private readonly share = false) {}

  /** A body to read: parsed here while small, sent to the parser thread from the chunk that makes it large. */
  body(): Body {
    const parts: Buffer[] = [];
    let size = 0;
    let id = 0; // on the thread from the first chunk past INLINE_BYTES
    let on: Worker | null = null; // that thread: a body whose thread stopped under it fails
    const send = (chunk: Buffer): void => {
      if (!on || on !== this.worker) return;
      // a chunk of its own (a socket's chunk may be a view of a larger buffer), moved rather than copied again
      const own = new Uint8Array(chunk);
      on.ref(); // a body being read keeps the process up
      on.postMessage({ id, chunk: own }, [own.buffer]);
    };
    return {
      add: (chunk) => {
        size += chunk.length;
        if (id) return send(chunk);
        parts.push(chunk);
        if (size <= INLINE_BYTES) return;
        id = ++this.last;
        on = this.thread();
        for (const p of parts.splice(0)) send(p);
      },
      end: () => {
        if (!id) {
          try {
            return Promise.resolve(JSON.parse(Buffer.concat(parts, size).toString('utf8')));
          } catch (e) {
            return Promise.reject(new BodyNotJson((e as Error).message));
          }
        }
        if (on !== this.worker) return Promise.reject(new Error('the body parser stopped'));
        return new Promise((done, fail) => {
          this.waiting.set(id, { done, fail });
          on!.postMessage({ id, end: true, share: this.share });
        });
      },
      drop: () => {
        parts.length = 0;
        if (!id || on !== this.worker) return;
        on!.postMessage({ id, drop: true });
        if (this.waiting.size === 0) on!.unref();
      },
    };
  }

  /** Ends the thread; bodies still being parsed are refused. */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    this.failAll(new Error('the server is stopping'));
    await w?.terminate();
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(PARSER, { eval: true });
    worker.on('message', ({ id, value, error }: Answer) => {
      const w = this.waiting.get(id);
      this.waiting.delete(id);
      if (this.waiting.size === 0) worker.unref();
      if (error !== undefined) w?.fail(new BodyNotJson(error));
      else w?.done(value);
    });
    // a thread that fails (out of memory on a huge body) fails the bodies it had; the next body starts another
    worker.on('error', (e) => this.failAll(e));
    worker.once('exit', () => {
      if (this.worker === worker) this.worker = null;
      this.failAll(new Error('the body parser stopped'));
    });
    this.worker = worker;
    return worker;
  }

  private failAll(e: Error): void {
    for (const w of this.waiting.values()) w.fail(e);
    this.waiting.clear();
  }
}

/** A tool call's arguments with the strings the parser thread shared (see the top) made strings again. */
export function withStrings<T>(value: T, depth = 0): T {
  if (value instanceof SharedArrayBuffer) return Buffer.from(value).toString('utf8') as T;
  if (typeof value !== 'object' || value === null || depth > 64) return value;
  const v = value as Record<string, unknown>;
  for (const k of Object.keys(v)) v[k] = withStrings(v[k], depth + 1);
  return value;
}
