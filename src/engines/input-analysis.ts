// Facts about the raw input that do not depend on how it is encoded: its sha256, its token estimate and, for
// text, the descriptor's line statistics and how much of it is terminal noise (tokens and statistics are of the
// text as a terminal shows it; see format/terminal.ts). For a large input they are computed in a worker thread,
// in parallel with the encoding on the main thread (two cores: one encodes and writes, one hashes and counts).
import { createHash } from 'node:crypto';
import type { Worker } from 'node:worker_threads';
import { JsonlRecordFeeder, RecordAnalyzer, type RecordStats } from '../describe/record-stats.js';
import { TextAnalyzer, type TextStats } from '../describe/text-stats.js';
import { TerminalRenderer } from '../format/terminal.js';
import { maskSecrets, PREVIEW_MASK } from '../secrets/mask.js';
import { SecretScanner } from '../secrets/stream.js';
import { getTokenizer, type Encoding } from './tokenizer.js';
import { TokenMeter } from './token-meter.js';
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
 * then the first 1 MB of every 32 MB. The count is a warning; the scan costs about as much CPU per byte as all the
 * rest of the analysis, so a full scan would make every large offload a third slower; this keeps it to a few
 * percent past 100 MB. The previews are masked whatever the sample saw.
 */
export const SECRETS_SAMPLE = { full: 1 << 20, every: 32 << 20, take: 1 << 20 };

/** Which statistics to gather besides the hash and the tokens. */
export type StatsKind = 'text' | 'jsonl' | null;

/** Sees every input chunk in order; push may ask the caller to wait (a promise) and may take the chunk's memory. */
export interface InputAnalysis {
  push(chunk: Buffer): void | Promise<void>;
  end(): Promise<InputFacts>;
  /** Stops without a result (the offload failed). */
  cancel(): void;
}

/** The analysis on the calling thread. */
export class LocalAnalysis implements InputAnalysis {
  private readonly hash = createHash('sha256');
  private readonly meter: TokenMeter | null;
  private readonly text: TextAnalyzer | null;
  private readonly records: JsonlRecordFeeder | null;
  /** Text: the input as a terminal shows it, which is what is counted and described. */
  private readonly renderer: TerminalRenderer | null;
  /** Looks for likely secrets in the bytes (as written: escapes can sit inside a token's colouring only). */
  private readonly secrets: SecretScanner | null;

  /**
   * `tokens`: the count when the caller already has it (then the text is not counted again); the caller must
   * know the text holds no terminal noise (see mayHoldNoise), since tokens of text are counted rendered.
   */
  constructor(
    encoding: Encoding,
    stats: StatsKind,
    private readonly tokens: number | null = null,
    secrets = false,
  ) {
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
    this.hash.update(chunk);
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
      sha256: this.hash.digest('hex'),
      tokens: this.meter ? this.meter.end() : this.tokens!,
      text: this.text?.end() ?? null,
      records: this.records?.end() ?? null,
    };
  }

  cancel(): void {}
}

const IN_FLIGHT = 8;

/** The analysis in a worker thread (dist/worker.js). Chunks are transferred, not copied, when possible. */
export class WorkerAnalysis implements InputAnalysis {
  private inFlight = 0;
  private wake: (() => void) | null = null;
  private failure: Error | null = null;
  private result: ((f: InputFacts) => void) | null = null;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (m: { ack?: true; facts?: InputFacts }) => {
      if (m.ack) {
        this.inFlight--;
        this.wake?.();
        this.wake = null;
      } else if (m.facts) this.result?.(m.facts);
    });
    worker.on('error', (e) => {
      this.failure = e;
      this.wake?.();
    });
  }

  /** Starts the worker, or returns null when the built worker script is not there (running from sources). */
  static async start(encoding: Encoding, stats: StatsKind, secrets: boolean): Promise<WorkerAnalysis | null> {
    const script = workerScript();
    if (!script) return null;
    const { Worker } = await import('node:worker_threads'); // loaded only for large inputs
    return new WorkerAnalysis(new Worker(script, { workerData: { task: 'analysis', encoding, stats, secrets } }));
  }

  async push(chunk: Buffer): Promise<void> {
    if (this.failure) throw this.failure;
    const ab = chunk.buffer as ArrayBuffer;
    // transfer a buffer this chunk owns alone; copy a small or pooled one
    const own = chunk.byteOffset === 0 && ab.byteLength <= chunk.length * 2 && ab.byteLength >= 65536;
    this.inFlight++;
    if (own) this.worker.postMessage(chunk, [ab]);
    else this.worker.postMessage(Buffer.from(chunk));
    while (this.inFlight > IN_FLIGHT && !this.failure) await new Promise<void>((r) => (this.wake = r));
    if (this.failure) throw this.failure;
  }

  end(): Promise<InputFacts> {
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      this.result = (f) => {
        void this.worker.terminate();
        resolve(f);
      };
      this.worker.once('error', reject);
      this.worker.postMessage({ end: true });
    });
  }

  cancel(): void {
    void this.worker.terminate();
  }
}
