// `offload`: input in, passthrough or a stored result with its descriptor out (CONTRACT section 3).
//   1. Read until the input is known to be above the threshold (bytes decide without a tokenizer while the input
//      is at most `threshold` bytes, since every token covers at least one byte; then an upper bound of its tokens
//      that needs no rank table; then tokens are counted exactly).
//   2. At or below: hand the input back unchanged. Above (or --force): detect the content type, stream the input
//      through its encoder into an atomic writer, hashing and counting tokens on the way, then write the header.
//   3. If the store cannot be written (or a setting is unusable): hand back the input truncated to the threshold,
//      with a warning; or, when that store holds the same output already, its descriptor.
//   The decision needs only this module, the input reader and the byte and token counts: what stores a result
//   (offload-store.ts: the store, the encoders, the hash, the analysis worker and what they load) is loaded once
//   the input is known to be stored, so a small input passes through without loading any of it.
import { checkSession } from './store/session.js';
import { tokenBound } from './tokens/token-bound.js';
import { getTokenizer, type Encoding } from './tokens/tokenizer.js';
import { TokenMeter } from './tokens/token-meter.js';
import {
  DEFAULT_THRESHOLD,
  InputSource,
  settingWarning,
  type OffloadInput,
  type OffloadOptions,
  type OffloadResult,
} from './offload-input.js';

export { DEFAULT_THRESHOLD, DEFAULT_TTL_SECONDS } from './offload-input.js';
export type { InputFormat, OffloadInput, OffloadOptions, OffloadResult } from './offload-input.js';

/**
 * How far, in thresholds of bytes, an input is read to try an upper bound of its tokens before counting them
 * (bin/passthrough.js decides as this does, before any bundle is read: a test checks that they agree).
 */
export const BOUND_BYTES = 3;

/**
 * Whether an output held whole is at most `threshold` tokens: the same decision offload() makes (bytes, then the
 * bound, then the exact count), for the shell prefix's resident helper (commands/resident.ts).
 */
export function fitsThreshold(bytes: Buffer, threshold: number, encoding: Encoding = 'o200k_base'): boolean {
  if (bytes.length <= threshold) return true;
  if (bytes.length <= threshold * BOUND_BYTES && tokenBound(bytes.toString('utf8'), encoding, threshold) <= threshold) return true;
  const meter = new TokenMeter(getTokenizer(encoding));
  meter.push(bytes);
  return !meter.exceeds(threshold) && meter.end() <= threshold;
}

/** Offloads an input: passthrough at or below the threshold, else a stored result and its descriptor. */
export async function offload(input: OffloadInput, options: OffloadOptions = {}): Promise<OffloadResult> {
  if (options.session != null) checkSession(options.session, 'session');
  const threshold = options.threshold ?? DEFAULT_THRESHOLD;
  const redaction = options.redact ? new (await import('./secrets/redact.js')).Redaction() : null;
  const src = new InputSource(input, options.onProgress, redaction);
  const passthrough = (): OffloadResult => ({
    offloaded: false,
    truncated: false,
    content: Buffer.concat(src.head),
    ...(options.settingError ? { warning: settingWarning(options.settingError) } : {}),
  });

  // 1. Bytes decide while they can: every token covers at least one byte. Then an upper bound of the tokens, found
  //    without the rank table (tokens/token-bound.ts; about a third of a log's bytes), for an input that ends
  //    within BOUND_BYTES thresholds of bytes.
  while (!src.eof && src.headBytes <= threshold) await src.readAhead();
  if (src.eof && src.headBytes <= threshold && !options.force) return passthrough();
  if (!options.force) {
    while (!src.eof && src.headBytes <= threshold * BOUND_BYTES) await src.readAhead();
    const encoding = options.encoding ?? 'o200k_base';
    if (src.eof && src.headBytes <= threshold * BOUND_BYTES && tokenBound(Buffer.concat(src.head).toString('utf8'), encoding, threshold) <= threshold) {
      return passthrough();
    }
  }

  // 2. Tokens decide (exactly) above that.
  const tokenizer = getTokenizer(options.encoding ?? 'o200k_base');
  // (with --force nothing is decided here, but a small input is still counted exactly below: the meter counts its
  // exact part only when asked, and is not asked for a large input)
  const meter = new TokenMeter(tokenizer);
  for (const b of src.head) meter.push(b);
  while (!options.force && !src.eof && !meter.exceeds(threshold)) {
    const b = await src.readAhead();
    if (b) meter.push(b);
  }
  if (src.eof && !options.force && meter.end() <= threshold) return passthrough();

  // 3. Store it (offload-store.ts, loaded only now).
  return (await import('./offload-store.js')).storeInput(options, src, tokenizer, meter, threshold);
}
