// Counts the tokens of a stream: exactly for the first `exactBytes` (so the offload threshold is decided
// exactly; counted only when asked for), then on evenly spread samples, extrapolated by bytes. Text is cut only
// where the tokenizer's pre-tokenizer would also cut (see safeCut), so the exact part equals a count of the
// whole text; a run with no such place is cut every MAX_PENDING characters.
// Past the exact part, the stream is cut in blocks at fixed places: 32 blocks of 128 KB, then 32 of 256 KB, and so on
// (about 3 MB counted of 200 MB). One window from the middle of each block is counted, and the block is estimated
// at the window's tokens per byte; a last, shorter block by its end. The same input gets the same estimate however
// its reads were cut: a sample taken from each chunk pushed estimated one 1.6 MB input at 586,010 to 593,760 tokens
// (exactly 585,043) as the pipe delivered it.
import { StringDecoder } from 'node:string_decoder';
import { isHighSurrogate, type Tokenizer } from './tokenizer.js';

const DEFAULT_EXACT_BYTES = 1 << 20;
const MAX_PENDING = 1 << 20;
const SAMPLE_WINDOW = 16 << 10;
/** The first blocks' size, and how many blocks of each size before the size doubles (see above). */
const FIRST_BLOCK = 128 << 10;
const BLOCKS_PER_SIZE = 32;
/** exceeds() counts pending text in slices of about this many characters. */
const SLICE = 16 << 10;

export class TokenMeter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private exactTokens = 0;
  private exactBytesSeen = 0;
  private extraBytes = 0; // bytes past the exact part
  /** The tokens estimated for the blocks done; the block being pushed: its size, the bytes of it so far. */
  private estimated = 0;
  private blockSize = FIRST_BLOCK;
  private blocksOfSize = 0;
  private inBlock = 0;
  /** The window of the block being pushed, and the last SAMPLE_WINDOW bytes pushed (for a last, shorter block). */
  private readonly window = Buffer.alloc(SAMPLE_WINDOW);
  private readonly last = Buffer.alloc(SAMPLE_WINDOW);
  private lastFill = 0;

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
   * Whether the text pushed so far has more than `limit` tokens, counting the exact part only as far as that
   * takes (an offload's threshold: a 1 MB first read is not counted whole to learn it is past 6,400 tokens); past
   * the exact part, by the estimate so far (a threshold above the exact part's tokens: the text is not held whole
   * to learn it).
   */
  exceeds(limit: number): boolean {
    while (this.exactTokens <= limit && this.pending.length > SLICE) {
      const cut = safeCut(this.pending.slice(0, SLICE));
      if (cut <= 0) break;
      this.exactTokens += this.tokenizer.count(this.pending.slice(0, cut));
      this.pending = this.pending.slice(cut);
    }
    if (this.exactTokens > limit) return true;
    if (!this.exactDone) {
      this.countSafePrefix(); // what is left is short, or has no cut in a slice
      return this.exactTokens > limit;
    }
    this.countRestOfExact(); // nothing more joins it
    const perByte = this.exactBytes > 0 ? this.exactTokens / this.exactBytes : 1; // the block being pushed, until its window is counted
    return this.exactTokens + this.estimated + this.inBlock * perByte > limit;
  }

  /** Counts what is left of the exact part, whole: it is complete (or the input ended). */
  private countRestOfExact(): void {
    this.pending += this.decoder.end();
    if (this.pending) this.exactTokens += this.tokenizer.count(this.pending);
    this.pending = '';
  }

  /** Whether the exact part has been pushed whole. */
  private get exactDone(): boolean {
    return this.exactBytesSeen >= this.exactBytes;
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
    while (chunk.length > 0) {
      const n = Math.min(chunk.length, this.blockSize - this.inBlock);
      // the part of [inBlock, inBlock + n) in the block's window
      const at = (this.blockSize - SAMPLE_WINDOW) / 2;
      const from = Math.max(this.inBlock, at);
      const to = Math.min(this.inBlock + n, at + SAMPLE_WINDOW);
      if (from < to) this.window.set(chunk.subarray(from - this.inBlock, to - this.inBlock), from - at);
      this.keepLast(chunk.subarray(0, n));
      this.inBlock += n;
      this.extraBytes += n;
      chunk = chunk.subarray(n);
      if (this.inBlock === this.blockSize) {
        this.estimated += this.perByte(this.window) * this.blockSize;
        this.inBlock = 0;
        if (++this.blocksOfSize === BLOCKS_PER_SIZE) {
          this.blockSize *= 2;
          this.blocksOfSize = 0;
        }
      }
    }
  }

  /** Keeps the last SAMPLE_WINDOW bytes pushed. */
  private keepLast(bytes: Uint8Array): void {
    const W = SAMPLE_WINDOW;
    if (bytes.length >= W) {
      this.last.set(bytes.subarray(bytes.length - W));
      this.lastFill = W;
      return;
    }
    const keep = Math.min(this.lastFill, W - bytes.length);
    this.last.copyWithin(0, this.lastFill - keep, this.lastFill);
    this.last.set(bytes, keep);
    this.lastFill = keep + bytes.length;
  }

  /** The estimate for everything pushed. */
  end(): number {
    this.countRestOfExact();
    if (this.inBlock > 0) {
      const tail = Math.min(this.lastFill, this.inBlock);
      this.estimated += this.perByte(this.last.subarray(this.lastFill - tail, this.lastFill)) * this.inBlock;
      this.inBlock = 0;
    }
    return Math.round(this.exactTokens + this.estimated);
  }

  private countSafePrefix(): void {
    const p = this.pending;
    let cut = safeCut(p);
    if (cut <= 0 && p.length > MAX_PENDING) cut = p.length - 1 - (isHighSurrogate(p.charCodeAt(p.length - 2)) ? 1 : 0);
    if (cut <= 0) return;
    this.exactTokens += this.tokenizer.count(p.slice(0, cut));
    this.pending = p.slice(cut);
  }

  /** Tokens per byte of a window, counted from its first line start to its last line end where it has them. */
  private perByte(buf: Buffer): number {
    const firstNl = buf.indexOf(0x0a);
    const start = firstNl >= 0 && firstNl < buf.length - 1 ? firstNl + 1 : 0;
    const lastNl = buf.lastIndexOf(0x0a);
    const end = lastNl >= start ? lastNl + 1 : buf.length;
    return end > start ? this.tokenizer.count(buf.toString('utf8', start, end)) / (end - start) : 0;
  }
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/**
 * The last place where s can be cut without changing how it pre-tokenizes (0 if none): after a "\n" followed by
 * a character that is neither whitespace nor "/", or by spaces and tabs and then a character that is not
 * whitespace (an indented line: the piece holding the "\n" ends there, since both `\s*[\r\n]+` and the
 * punctuation piece's `[\r\n/]*` stop at a space); or before a "\n" that follows a letter or digit. Without the
 * indented line, pretty-printed JSON (every line indented, ending in punctuation) had no place to cut at all.
 */
export function safeCut(s: string): number {
  for (let i = s.lastIndexOf('\n', s.length - 2); i > 0; i = s.lastIndexOf('\n', i - 1)) {
    const next = s[i + 1];
    if (next !== '/' && !/\s/.test(next)) return i + 1;
    if (LETTER_OR_DIGIT.test(s[i - 1])) return i;
    if (next === ' ' || next === '\t') {
      let j = i + 2;
      while (j < s.length && (s[j] === ' ' || s[j] === '\t')) j++;
      if (j < s.length && !/\s/.test(s[j])) return i + 1;
    }
  }
  return 0;
}
