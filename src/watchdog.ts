// Stopping a regular expression that backtracks for hours, or a jq filter that loops forever, on the thread that
// runs it. Neither can be interrupted from JavaScript, but V8 can stop any running script, even inside a regex
// or WebAssembly: Node's vm module does that for a script given a `timeout`. So watched work runs as a call from
// a tiny script with a timeout; about 0.1 ms a call, so callers run work in slices of tens of milliseconds and
// give each slice the whole allowance: a slice that takes that long is work that made no progress.
// (Before, such work ran in a worker thread watched from the main thread: 30-60 ms to start on every call.)
import { Script } from 'node:vm';
import { LroError } from './errors.js';

/** How long guarded work may go without progress, unless --timeout says otherwise. */
export const DEFAULT_STALL_SECONDS = 10;

/** Watched work that ran past its allowance (it was stopped). */
export class Stalled extends LroError {}

const SLOT = Symbol.for('lro.watched');
let script: Script | null = null;

/**
 * Runs f, stopping it if it takes more than `seconds`: then it throws Stalled with `message`. Anything f leaves
 * half done when stopped (a jq engine mid-call) must not be used again.
 */
export function runWatched<T>(f: () => T, seconds: number, message: string): T {
  script ??= new Script(`globalThis[Symbol.for('lro.watched')]()`, { filename: 'lro-watchdog' });
  const g = globalThis as unknown as Record<symbol, (() => T) | undefined>;
  g[SLOT] = f;
  try {
    return script.runInThisContext({ timeout: Math.max(1, Math.round(seconds * 1000)) }) as T;
  } catch (e) {
    if ((e as NodeJS.ErrnoException)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new Stalled(message);
    throw e;
  } finally {
    g[SLOT] = undefined;
  }
}

/** Watched work is cut into slices of about this long (a slice that takes the whole allowance made no progress). */
const SLICE_MS = 200;
/** ...and at most this many outputs kept from a slice. */
const SLICE_OUTPUTS = 256;

/**
 * `step` over each item, the outputs that are not undefined yielded in order. With `seconds`, the items are
 * taken in watched slices (see runWatched) and a slice's outputs are yielded after it: an output must then not
 * refer to memory the iterator reuses (copy it in `step`). Without, it runs unwatched, one item at a time.
 */
export function* watchedMap<T, U>(items: Iterator<T>, step: (item: T) => U | undefined, seconds: number | undefined, message: string): Generator<U> {
  if (seconds === undefined) {
    for (let r = items.next(); !r.done; r = items.next()) {
      const u = step(r.value);
      if (u !== undefined) yield u;
    }
    return;
  }
  const sliceMs = Math.min(SLICE_MS, (seconds * 1000) / 4);
  let done = false;
  const slice = (): U[] => {
    const out: U[] = [];
    const started = performance.now();
    for (let i = 1; out.length < SLICE_OUTPUTS; i++) {
      const r = items.next();
      if (r.done) {
        done = true;
        break;
      }
      const u = step(r.value);
      if (u !== undefined) out.push(u);
      if ((i & 63) === 0 && performance.now() - started > sliceMs) break;
    }
    return out;
  };
  while (!done) yield* runWatched(slice, seconds, message);
}
