// The JSON of an HTTP request's body, parsed off the main thread when it is large. Over HTTP, one process serves
// every client session: the SDK's transport decodes and parses each body on the main thread, and 20 clients'
// 10 MB lro_offload uploads at once held another client's lro_ls for 2.1 s (decode and JSON.parse, 2.8 s of the
// main thread's time, measured with --cpu-prof), long enough for kept-alive connections to be dropped under the
// clients. A large body's bytes are moved (not copied) to one parser thread, which hands back the value; a small
// body, the usual request, is parsed where it is, as a thread's round trip would cost it more than the parse.
import { Worker } from 'node:worker_threads';

/** Bodies up to this size are parsed on the main thread (about a millisecond of parsing). */
const INLINE_BYTES = 256 * 1024;

/** The parser thread's whole program: bytes in, a value (or the parse error's message) out, in turn. */
const PARSER = `
const { parentPort } = require('node:worker_threads');
const text = new TextDecoder();
parentPort.on('message', ({ id, bytes }) => {
  let value, error;
  try { value = JSON.parse(text.decode(bytes)); } catch (e) { error = String(e && e.message); }
  parentPort.postMessage({ id, value, error });
});`;

/** A body that is not JSON. */
export class BodyNotJson extends Error {}

type Answer = { id: number; value?: unknown; error?: string };

/** One parser thread, started at the first large body and not keeping the process alive while idle. */
export class BodyParser {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, { done: (v: unknown) => void; fail: (e: Error) => void }>();
  private last = 0;

  /** The body's JSON value; rejects with BodyNotJson. */
  parse(parts: Buffer[], size: number): Promise<unknown> {
    if (size <= INLINE_BYTES) {
      try {
        return Promise.resolve(JSON.parse(Buffer.concat(parts, size).toString('utf8')));
      } catch (e) {
        return Promise.reject(new BodyNotJson((e as Error).message));
      }
    }
    // one buffer of its own, so that it can be moved to the thread rather than copied
    const bytes = new Uint8Array(size);
    let at = 0;
    for (const p of parts) at += (bytes.set(p, at), p.length);
    const id = ++this.last;
    return new Promise((done, fail) => {
      this.waiting.set(id, { done, fail });
      const worker = this.thread();
      worker.ref(); // a body being parsed keeps the process up
      worker.postMessage({ id, bytes }, [bytes.buffer]);
    });
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
