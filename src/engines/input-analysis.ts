// Facts about the raw input that do not depend on how it is encoded: its sha256, its token estimate and, for
// text, the descriptor's line statistics and how much of it is terminal noise (tokens and statistics are of the
// text as a terminal shows it; see format/terminal.ts). For a large input they are computed in a worker thread,
// in parallel with the encoding on the main thread (two cores: one encodes, writes, hashes and counts; one
// describes; see WorkerAnalysis).
import { createHash, type Hash } from 'node:crypto';
import type { Worker } from 'node:worker_threads';
import { JsonlRecordFeeder, RecordAnalyzer, type RecordStats } from '../describe/record-stats.js';
import { TextAnalyzer, type TextStats } from '../describe/text-stats.js';
import { TerminalRenderer } from '../format/terminal.js';
import { maskSecrets, PREVIEW_MASK } from '../secrets/mask.js';
import { SecretScanner } from '../secrets/stream.js';
import { getTokenizer, type Encoding } from '../tokens/tokenizer.js';
import { TokenMeter } from '../tokens/token-meter.js';
import { workerScript } from './worker-script.js';

export interface InputFacts {
  sha256: string;
  tokens: number;
  /** Line statistics, when asked for (the input looked like text). */
  text: TextStats | null;
  /** Record statistics, when asked for (the input looked like JSONL). */
  records: RecordStats | null;
  /** Text: bytes of terminal noise (0 when none, or for other content). */
  noiseBytes: number;
  /** Likely secrets seen, per rule (empty when not looked for); see SECRETS_SAMPLE. */
  possibleSecrets: Record<string, number>;
}

/**
 * What of the input the secret scan looks at (without --redact, which scans everything): all of the first 1 MB,
 * then the first 256 KB of every 32 MB. The count is a warning; the scan runs at about 100 MB/s, slower than all
 * the rest of the analysis, so a full scan would make every large offload several times slower; 1 MB of every
 * 32 MB still cost 0.3 s of a 1 GB text offload's 2.9 s (the worker's profile), this costs under 0.1 s. The
 * previews are masked whatever the sample saw.
 */
export const SECRETS_SAMPLE = { full: 1 << 20, every: 32 << 20, take: 256 << 10 };

/** Which statistics to gather besides the hash and the tokens. */
export type StatsKind = 'text' | 'jsonl' | null;

/** Sees every input chunk in order; push may ask the caller to wait (a promise); the chunk stays the caller's. */
export interface InputAnalysis {
  push(chunk: Buffer): void | Promise<void>;
  end(): Promise<InputFacts>;
  /** Stops without a result (the offload failed). */
  cancel(): void;
}

/** The analysis on the calling thread. */
export class LocalAnalysis implements InputAnalysis {
  /** Null when the caller hashes the input itself (the worker's, for JSONL: see WorkerAnalysis). */
  private readonly hash: Hash | null;
  private readonly meter: TokenMeter | null;
  private readonly text: TextAnalyzer | null;
  private readonly records: JsonlRecordFeeder | null;
  /** Text: the input as a terminal shows it, which is what is counted and described. */
  private readonly renderer: TerminalRenderer | null;
  /** Looks for likely secrets in the bytes (as written: escapes can sit inside a token's colouring only). */
  private readonly secrets: SecretScanner | null;

  /**
   * `tokens`: the count when the caller already has it (then the text is not counted again); the caller must
   * know the text holds no terminal noise (see mayHoldNoise), since tokens of text are counted rendered. In the
   * worker, 0 when the main thread counts them (see WorkerAnalysis). `hash`: false when the caller hashes the
   * input (the facts then say '' for the sha256).
   */
  constructor(
    encoding: Encoding,
    stats: StatsKind,
    private readonly tokens: number | null = null,
    secrets = false,
    hash = true,
  ) {
    this.hash = hash ? createHash('sha256') : null;
    this.meter = tokens === null ? new TokenMeter(getTokenizer(encoding)) : null;
    this.text = stats === 'text' ? new TextAnalyzer(PREVIEW_MASK) : null;
    this.records = stats === 'jsonl' ? new JsonlRecordFeeder(new RecordAnalyzer(maskSecrets)) : null;
    this.secrets = secrets ? new SecretScanner({ sample: SECRETS_SAMPLE }) : null;
    this.renderer =
      stats === 'text'
        ? new TerminalRenderer((piece) => {
            this.meter?.push(piece);
            this.text!.push(piece);
          })
        : null;
  }

  push(chunk: Buffer): void {
    this.secrets?.push(chunk);
    this.hash?.update(chunk);
    if (this.renderer) this.renderer.push(chunk);
    else this.meter?.push(chunk);
    this.records?.push(chunk);
  }

  end(): Promise<InputFacts> {
    return Promise.resolve(this.endSync());
  }

  endSync(): InputFacts {
    this.renderer?.end();
    this.secrets?.end();
    return {
      noiseBytes: this.renderer?.noiseBytes ?? 0,
      possibleSecrets: this.secrets?.counts ?? {},
      sha256: this.hash?.digest('hex') ?? '',
      tokens: this.meter ? this.meter.end() : this.tokens!,
      text: this.text?.end() ?? null,
      records: this.records?.end() ?? null,
    };
  }

  cancel(): void {}
}

/**
 * The hand-over to the worker: a ring of SLOTS slots of SLOT bytes in shared memory, and a control array:
 * [0] slots written, [1] slots read, then each slot's length (-1: the end of the input). The main thread copies
 * each chunk into the next free slot (a memcpy, about 0.1 ms a MB); the worker waits for slots and reads them in
 * order. Nothing is allocated per chunk and nothing waits for garbage collection, so memory stays at the ring's
 * size: transferring each chunk instead left up to tens of MB of spent chunks in the worker's heap, and cost a
 * message each.
 */
const SLOT = 1 << 20;
const SLOTS = 8;
// Atomics.waitAsync is in Node 20 (V8), not yet in TypeScript's ES2023 library.
declare global {
  interface Atomics {
    waitAsync(array: Int32Array, index: number, value: number, timeout?: number): { async: false; value: string } | { async: true; value: Promise<string> };
  }
}
const WRITTEN = 0;
const READ = 1;
const LENGTHS = 2;

/**
 * The analysis in a worker thread (dist/worker.cjs), fed through a ring in shared memory; each thread takes what
 * keeps the two busy alike (CPU time per thread of a 200 MB offload, main/worker, on a busy machine):
 *   - text: the main thread escapes the lines, counts the tokens and hashes, the worker describes. With the hash
 *     in the worker, the worker was busy throughout and this thread idle over half of the time (cpuprofile of a
 *     200 MB offload); 1 GB took 3.14 s against 2.85 s with it here (medians of 5, alternating);
 *   - JSONL: the main thread validates the lines and hashes, the worker counts and describes (with both in the
 *     worker, 900/1,500 ms; with both here, 1,300/850);
 *   - other content (JSON, whose records this thread parses and describes; binary): the worker hashes and counts.
 */
export class WorkerAnalysis implements InputAnalysis {
  /**
   * The tokens, when they are counted on this thread: fed the same pieces as the worker's ring (the estimate
   * samples each piece), so the count is the one the worker would make; of text as a terminal shows it.
   */
  private readonly tokens: { meter: TokenMeter; renderer: TerminalRenderer | null } | null;
  /** The hash, when it is taken on this thread (with the tokens). */
  private readonly hash: Hash | null;
  private written = 0;
  private readonly ring: Uint8Array;
  private readonly control: Int32Array;
  private failure: Error | null = null;
  private result: ((f: InputFacts) => void) | null = null;

  private constructor(
    private readonly worker: Worker,
    ring: SharedArrayBuffer,
    control: SharedArrayBuffer,
    /** What this thread does: count the tokens (of text, rendered), hash the input. */
    here: { tokens: Encoding | null; rendered: boolean; hash: boolean },
  ) {
    if (here.tokens) {
      const meter = new TokenMeter(getTokenizer(here.tokens));
      this.tokens = { meter, renderer: here.rendered ? new TerminalRenderer((piece) => meter.push(piece)) : null };
    } else this.tokens = null;
    this.hash = here.hash ? createHash('sha256') : null;
    this.ring = new Uint8Array(ring);
    this.control = new Int32Array(control);
    worker.on('message', (m: { facts?: InputFacts }) => {
      if (m.facts) this.result?.(m.facts);
    });
    worker.on('error', (e) => {
      this.failure = e;
    });
  }

  /** Starts the worker, or returns null when the built worker script is not there (running from sources). */
  static async start(encoding: Encoding, stats: StatsKind, secrets: boolean): Promise<WorkerAnalysis | null> {
    const script = workerScript();
    if (!script) return null;
    const { Worker } = await import('node:worker_threads'); // loaded only for large inputs
    const ring = new SharedArrayBuffer(SLOT * SLOTS);
    const control = new SharedArrayBuffer(4 * (LENGTHS + SLOTS));
    // The worker makes short-lived strings at a high rate (a region's text, token pieces); left to itself V8 lets
    // its young generation grow to about 30 MB of RSS. 4 MB keeps a 1 GB offload near 100 MB, at no measured cost.
    const resourceLimits = { maxYoungGenerationSizeMb: 4 };
    const here = { tokens: stats === 'text' ? encoding : null, rendered: stats === 'text', hash: stats !== null };
    const theirs = { tokens: !here.tokens, hash: !here.hash };
    const workerData = { task: 'analysis', encoding, stats, secrets, ...theirs, ring, control };
    const worker = new Worker(script, { resourceLimits, workerData });
    return new WorkerAnalysis(worker, ring, control, here);
  }

  async push(chunk: Buffer): Promise<void> {
    for (let at = 0; at < chunk.length; at += SLOT) {
      const piece = chunk.subarray(at, Math.min(chunk.length, at + SLOT));
      const slot = await this.freeSlot();
      this.ring.set(piece, slot * SLOT);
      this.publish(slot, piece.length);
      // once the worker has the piece: the two run at once
      this.hash?.update(piece);
      if (this.tokens?.renderer) this.tokens.renderer.push(piece);
      else this.tokens?.meter.push(piece);
    }
  }

  /** The next slot, once the worker has read it (waiting without blocking the event loop). */
  private async freeSlot(): Promise<number> {
    for (;;) {
      if (this.failure) throw this.failure;
      const read = Atomics.load(this.control, READ);
      if (this.written - read < SLOTS) return this.written % SLOTS;
      // a pending wait does not keep Node running; the worker does, and a timeout notices its failure
      const w = Atomics.waitAsync(this.control, READ, read, 1000);
      if (w.async) await w.value;
    }
  }

  private publish(slot: number, length: number): void {
    Atomics.store(this.control, LENGTHS + slot, length);
    Atomics.store(this.control, WRITTEN, ++this.written);
    // the worker waits only once it has read every slot written before this one; a wait that starts after the
    // store above returns at once (Atomics.wait checks the value)
    if (Atomics.load(this.control, READ) >= this.written - 1) Atomics.notify(this.control, WRITTEN);
  }

  async end(): Promise<InputFacts> {
    const facts = new Promise<InputFacts>((resolve, reject) => {
      this.result = (f) => {
        void this.worker.terminate();
        resolve(f);
      };
      this.worker.once('error', reject);
    });
    this.publish(await this.freeSlot(), -1);
    // while the worker finishes
    this.tokens?.renderer?.end();
    const tokens = this.tokens?.meter.end();
    const sha256 = this.hash?.digest('hex');
    const f = await facts;
    return { ...f, tokens: tokens ?? f.tokens, sha256: sha256 ?? f.sha256 };
  }

  cancel(): void {
    void this.worker.terminate();
  }
}

/** The worker's side of the ring: hands each chunk to `take` in order, until the end; blocks while it is empty. */
export function readRing(ring: SharedArrayBuffer, control: SharedArrayBuffer, take: (chunk: Buffer) => void): void {
  const c = new Int32Array(control);
  for (let read = 0; ; ) {
    while (Atomics.load(c, WRITTEN) === read) Atomics.wait(c, WRITTEN, read);
    const slot = read % SLOTS;
    const length = Atomics.load(c, LENGTHS + slot);
    if (length < 0) return;
    take(Buffer.from(ring, slot * SLOT, length));
    Atomics.store(c, READ, ++read);
    // the main thread waits only while every slot is full (see WorkerAnalysis.freeSlot)
    if (Atomics.load(c, WRITTEN) - (read - 1) >= SLOTS) Atomics.notify(c, READ);
  }
}
