// What `offload` takes and gives (its options, its result) and the input as it is read, shared by the decision
// (offload.ts: passthrough or store) and the storing (offload-store.ts).
import type { Encoding } from './tokens/tokenizer.js';
import type { Header, Source } from './format/header.js';
import type { Descriptor } from './describe/descriptor.js';
import type { StreamFields } from './format/streams.js';
import type { Redaction } from './secrets/redact.js';
import { oneLine } from './errors.js';

export const DEFAULT_THRESHOLD = 6400;
export const DEFAULT_TTL_SECONDS = 24 * 3600;

export type InputFormat = 'auto' | 'text' | 'json' | 'jsonl';

export interface OffloadOptions {
  /** Store directory; default $LRO_DIR, then ${TMPDIR:-/tmp}/lro-<uid>. */
  dir?: string;
  /** Environment for defaults (LRO_DIR, TMPDIR); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Tokens above which the input is stored; default 6400. */
  threshold?: number;
  /** Store whatever the size. */
  force?: boolean;
  operation?: string;
  query?: string | null;
  session?: string | null;
  meta?: Record<string, string>;
  ttlSeconds?: number;
  encoding?: Encoding;
  detail?: string;
  format?: InputFormat;
  previewTokens?: number;
  /**
   * What produced the input (`lro run`). A promise when it is only known after the input ends (an exit code): it is
   * awaited just before the header is written, so the header always holds the final value.
   */
  source?: Source | PromiseLike<Source>;
  /** Which records came from stderr (`lro run`), known once the input ends; awaited as `source` is. */
  streams?: PromiseLike<StreamFields | null>;
  /** Clock and id maker, injectable for tests. */
  now?: () => Date;
  newId?: () => string;
  /**
   * Hand back the result already stored for the same output (same bytes as stored, same options, same store and
   * session, not expired) instead of storing it again; default true.
   */
  dedupe?: boolean;
  /**
   * Replace secrets in the input by `[REDACTED:<rule>]` before anything else sees it (passthrough, stored result,
   * hash, counts); the header then says which rules replaced how many. Without it, likely secrets are only counted
   * (header possible_secrets) and masked in the descriptor's previews.
   */
  redact?: boolean;
  /** Called as input arrives (total bytes so far). */
  onProgress?: (bytes: number) => void;
  /** Notes worth telling the user (e.g. a forced format that did not fit). */
  warn?: (message: string) => void;
  /**
   * A setting that could not be used (a malformed LRO_* variable, see commands/offload.ts): nothing is stored. A
   * large input is cut to the threshold with a warning naming it, as when the store cannot be written; a small one
   * passes through with that warning beside it.
   */
  settingError?: Error;
}

export type OffloadResult =
  | { offloaded: false; truncated: false; content: Buffer; warning?: string }
  | { offloaded: true; id: string; path: string; header: Header; descriptor: Descriptor; deduplicated?: boolean }
  | {
      offloaded: false;
      truncated: true;
      content: Buffer;
      estimatedTokens: number;
      /** The one line to print: the output cut to the threshold, and why. */
      warning: string;
      /** Why it was not stored ("could not store the full result in DIR (reason)"), for a caller that prints it whole. */
      problem: string;
      error: Error;
    };

export type OffloadInput = AsyncIterable<Uint8Array> | Iterable<Uint8Array> | Uint8Array | string;

function toAsyncIterator(input: OffloadInput): AsyncIterator<Uint8Array> {
  if (typeof input === 'string') input = Buffer.from(input, 'utf8');
  if (input instanceof Uint8Array) input = [input];
  if (Symbol.asyncIterator in input) return (input as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  const it = (input as Iterable<Uint8Array>)[Symbol.iterator]();
  return { next: async () => it.next() };
}

const asBuffer = (c: Uint8Array): Buffer => (Buffer.isBuffer(c) ? c : Buffer.from(c.buffer, c.byteOffset, c.length));

/** The input: what has been read ahead (`head`) and the rest. */
export class InputSource {
  readonly head: Buffer[] = [];
  headBytes = 0;
  eof = false;
  private total = 0;
  private readonly it: AsyncIterator<Uint8Array>;

  constructor(
    input: OffloadInput,
    private readonly onProgress?: (bytes: number) => void,
    /** Redacts the input as it is read. */
    readonly redaction: Redaction | null = null,
  ) {
    const it = toAsyncIterator(input);
    this.it = redaction ? redaction.apply(it) : it;
  }

  /** The next chunk after the head, or null at the end. */
  async next(): Promise<Buffer | null> {
    for (;;) {
      const r = await this.it.next();
      if (r.done) {
        this.eof = true;
        return null;
      }
      if (r.value.length === 0) continue;
      const b = asBuffer(r.value);
      this.total += b.length;
      this.onProgress?.(this.total);
      return b;
    }
  }

  /** Reads one more chunk into the head (a copy: the source may reuse its buffer); null at the end. */
  async readAhead(): Promise<Buffer | null> {
    const read = await this.next();
    const b = read && Buffer.from(read);
    if (b) {
      this.head.push(b);
      this.headBytes += b.length;
    }
    return b;
  }
}
/** The warning beside a passthrough while a setting is unusable. */
export function settingWarning(e: Error): string {
  return `lro: ${oneLine(e.message)} (until then no output is stored: a large one is cut to the threshold)`;
}
