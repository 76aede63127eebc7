// Counts the tokens of a stream: exactly for the first `exactBytes` (so the offload threshold is decided
// exactly; counted only when asked for), then on evenly spread samples, extrapolated by bytes. Text is cut only
// where the tokenizer's pre-tokenizer would also cut (see safeCut), so the exact part equals a count of the
// whole text; a run with no such place is cut every MAX_PENDING characters.
import { StringDecoder } from 'node:string_decoder';
import { isHighSurrogate, type Tokenizer } from './tokenizer.js';

const DEFAULT_EXACT_BYTES = 1 << 20;
const MAX_PENDING = 1 << 20;
const SAMPLE_WINDOW = 16 << 10;
/** exceeds() counts pending text in slices of about this many characters. */
const SLICE = 16 << 10;
/** Sampled bytes kept near min(4 MB, 16 kB + an eighth of the input beyond the exact part). */
const sampleTarget = (bytes: number) => Math.min(4 << 20, (16 << 10) + bytes / 8);

export class TokenMeter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private exactTokens = 0;
  private exactBytesSeen = 0;
  private sampledTokens = 0;
  private sampledBytes = 0;
  private extraBytes = 0; // bytes past the exact part, sampled or not

  constructor(
    private readonly tokenizer: Tokenizer,
    private readonly exactBytes = DEFAULT_EXACT_BYTES,
  ) {}

  /** Tokens counted exactly so far (not counting text after the last safe cut). */
  get exact(): number {
    this.countSafePrefix();
    return this.exactTokens;
  }

  /**
   * Whether the exact part so far has more than `limit` tokens, counting the text pushed so far only as far as
   * that takes (an offload's threshold: a 1 MB first read is not counted whole to learn it is past 6,400 tokens).
   */
  exceeds(limit: number): boolean {
    while (this.exactTokens <= limit && this.pending.length > SLICE) {
      const cut = safeCut(this.pending.slice(0, SLICE));
      if (cut <= 0) break;
      this.exactTokens += this.tokenizer.count(this.pending.slice(0, cut));
      this.pending = this.pending.slice(cut);
    }
    if (this.exactTokens <= limit) this.countSafePrefix(); // what is left is short, or has no cut in a slice
    return this.exactTokens > limit;
  }

  push(chunk: Uint8Array): void {
    if (this.exactBytesSeen < this.exactBytes) {
      const take = Math.min(chunk.length, this.exactBytes - this.exactBytesSeen);
      this.exactBytesSeen += take;
      // counted when asked for (exact, end): an input found to be large is never counted here (the analysis
      // beside its encoding counts it), which saves the main thread about 100 ms a MB
      this.pending += this.decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, take));
      if (take === chunk.length) return;
      chunk = chunk.subarray(take);
    }
    this.extraBytes += chunk.length;
    if (this.sampledBytes < sampleTarget(this.extraBytes)) this.sample(chunk);
  }

  /** The estimate for everything pushed. */
  end(): number {
    this.pending += this.decoder.end();
    if (this.pending) this.exactTokens += this.tokenizer.count(this.pending);
    this.pending = '';
    if (this.extraBytes === 0 || this.sampledBytes === 0) return this.exactTokens;
    const perByte = this.sampledTokens / this.sampledBytes;
    return Math.round(this.exactTokens + this.sampledTokens + perByte * (this.extraBytes - this.sampledBytes));
  }

  private countSafePrefix(): void {
    const p = this.pending;
    let cut = safeCut(p);
    if (cut <= 0 && p.length > MAX_PENDING) cut = p.length - 1 - (isHighSurrogate(p.charCodeAt(p.length - 2)) ? 1 : 0);
    if (cut <= 0) return;
    this.exactTokens += this.tokenizer.count(p.slice(0, cut));
    this.pending = p.slice(cut);
  }

  /** Counts one window of a chunk, from a line start to a line end where possible. */
  private sample(chunk: Uint8Array): void {
    const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    let start = 0;
    let end = buf.length;
    if (end > SAMPLE_WINDOW) {
      const mid = buf.indexOf(0x0a, (buf.length - SAMPLE_WINDOW) >> 1);
      start = mid >= 0 && mid < buf.length - 1 ? mid + 1 : 0;
      end = Math.min(buf.length, start + SAMPLE_WINDOW);
      const lastNl = buf.lastIndexOf(0x0a, end - 1);
      if (lastNl > start) end = lastNl + 1;
    }
    const text = buf.toString('utf8', start, end);
    this.sampledTokens += this.tokenizer.count(text);
    this.sampledBytes += end - start;
  }
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/**
 * The last place where s can be cut without changing how it pre-tokenizes (0 if none): after a "\n" followed by
 * a character that is neither whitespace nor "/", or before a "\n" that follows a letter or digit.
 */
function safeCut(s: string): number {
  for (let i = s.lastIndexOf('\n', s.length - 2); i > 0; i = s.lastIndexOf('\n', i - 1)) {
    const next = s[i + 1];
    if (next !== '/' && !/\s/.test(next)) return i + 1;
    if (LETTER_OR_DIGIT.test(s[i - 1])) return i;
  }
  return 0;
}
