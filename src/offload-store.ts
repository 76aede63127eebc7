// `offload` of an input known to be stored (offload.ts decides): the result written, described and deduplicated
// (CONTRACT section 3); if the store cannot be written (or a setting is unusable), the input cut to the threshold
// with a warning, or the same output stored before.
import { createHash, randomFillSync } from 'node:crypto';
import { basename, join } from 'node:path';
import { monotonicFactory } from 'ulid';
import { describe, type Stats } from './describe/descriptor.js';
import { RecordAnalyzer } from './describe/record-stats.js';
import { statsForHeader, statsOfResult } from './describe/stored.js';
import { LocalAnalysis, WorkerAnalysis, type InputAnalysis, type InputFacts } from './engines/input-analysis.js';
import { openResultFile, type ResultFile } from './format/reader.js';
import type { Encoding, Tokenizer } from './tokens/tokenizer.js';
import { TokenMeter } from './tokens/token-meter.js';
import { BinaryRecordEncoder } from './format/content-binary.js';
import { JsonRecordEncoder } from './format/content-json.js';
import { JsonlRecordEncoder } from './format/content-jsonl.js';
import { TextRecordEncoder } from './format/content-text.js';
import { decodeRecords, splitRecords } from './format/decode.js';
import { detectContent, SNIFF_BYTES } from './format/detect.js';
import { mayHoldNoise } from './format/terminal.js';
import { EncodingRestart, type Encoder } from './format/encoder.js';
import { newHeader, serializeHeader, type ContentType, type Header, type Layout, type LineEnding, type Source } from './format/header.js';
import { sanitizeOperation, tempFileName } from './format/naming.js';
import { BLOCKS_ROOM } from './format/blocks.js';
import { storeKey } from './format/mac.js';
import { ResultWriter } from './format/writer.js';
import { streamFields } from './format/streams.js';
import { inStoreTerms, openResultDir, pinStore, type PinnedStore } from './store/dir.js';
import { storeFor } from './store/open.js';
import type { Store } from './store/store.js';
import { dedupeKey, findStored, takeClaim, writeRef, type Claim } from './store/dedupe.js';
import { maskSecrets } from './secrets/mask.js';
import type { Redaction } from './secrets/redact.js';
import { oneLine } from './errors.js';
import {
  DEFAULT_TTL_SECONDS,
  type InputFormat,
  type InputSource,
  type OffloadOptions,
  type OffloadResult,
} from './offload-input.js';

/**
 * ulid's random source: node:crypto's bytes, 64 at a time (what ulid itself falls back to without WebCrypto). Left
 * to choose, ulid loads WebCrypto (globalThis.crypto) besides node:crypto: 2.5 ms of every offload's start-up here.
 */
const randomBytes = new Uint8Array(64);
let randomAt = randomBytes.length;
const ulid = monotonicFactory(() => {
  if (randomAt === randomBytes.length) {
    randomFillSync(randomBytes);
    randomAt = 0;
  }
  return randomBytes[randomAt++] / 256;
});
/** The prefix of the input kept for the fallback (it needs at most `threshold` tokens of it). */
const FALLBACK_KEEP = 4 << 20;
/**
 * Room in line 1 for the descriptor's statistics (header `stats`): those of the corpus take 4 to 10 KB (previews of
 * 40 lines of up to 200 characters are most of it). Larger ones are left out and `lro info` computes them.
 */
const STATS_SLOT = 16 << 10;
const FEED_CHUNK = 1 << 20;
/** Inputs up to this size are hashed and counted on the main thread; larger ones in a worker. */
const LOCAL_ANALYSIS_MAX = 1 << 20;

/**
 * Stores the input whose head has been read and counted by `meter`: reads ahead enough to detect the type and
 * to know whether the input is small. A small input (up to the meter's exact part, 1 MB) is counted exactly, so
 * its count does not depend on how a pipe cut it.
 */
export async function storeInput(
  options: OffloadOptions,
  src: InputSource,
  tokenizer: Tokenizer,
  meter: TokenMeter,
  threshold: number,
): Promise<OffloadResult> {
  while (!src.eof && src.headBytes < Math.max(SNIFF_BYTES, LOCAL_ANALYSIS_MAX)) {
    const b = await src.readAhead();
    if (b) meter.push(b);
  }
  // All of a small input has been counted exactly already (text with terminal noise is counted again, rendered:
  // the threshold is decided on the bytes as they would pass through, the stored result on what a terminal shows).
  const counted = src.eof && !src.head.some((b) => mayHoldNoise(b)) ? meter.end() : null;
  return store(options, src, tokenizer, threshold, counted);
}

/** One attempt at a content type: its writer, encoder and record analyzer. */
interface Pipeline {
  contentType: ContentType;
  writer: ResultWriter;
  encoder: Encoder;
  records?: RecordAnalyzer;
}

/** What is settled about a result before its first byte is written. */
interface ResultPlan {
  now: Date;
  id: string;
  operation: string;
  /** --format as given ('auto': the content type was detected). */
  format: InputFormat;
  /** The content type the input is first written as (an encoder may restart it as another). */
  contentType: ContentType;
  lineEnding: LineEnding;
  encoding: Encoding;
}

/**
 * Stores the input (its head read ahead, the rest still to come) and describes the result, in steps that follow
 * below in this order: planResult (id, name, content type), startAnalysis (hash, tokens, statistics beside the
 * writing), writeInput (every byte through the content type's encoder into the result file), the header
 * (format/header.ts newHeader), statsSeen, commitOrReuse (this result, or the same output stored already) and
 * describeResult. If the store cannot be written: storedAlready (the same output may be there, stored before) or
 * truncatedFallback, the input cut to the threshold.
 */
async function store(
  options: OffloadOptions,
  src: InputSource,
  tokenizer: Tokenizer,
  threshold: number,
  knownTokens: number | null,
): Promise<OffloadResult> {
  if (options.settingError) {
    const taken = new TakenInput();
    await takeRest(src, taken, false);
    return truncatedFallback(options.settingError, taken, threshold, tokenizer, '');
  }
  const plan = planResult(options, src, tokenizer.encoding);
  const analysis = await startAnalysis(src, plan, knownTokens);
  const taken = new TakenInput();
  let store: Store | null = null;
  let pinned: PinnedStore | null = null;
  let pipeline: ResultPipeline | null = null;
  try {
    store = storeFor(options.dir, options.env ?? process.env);
    store.prepare(); // (an S3 store's worker starts beside the writing, not in front of the first request)
    pinned = pinStore(openResultDir(store.dir, options.session ?? null));
    pipeline = new ResultPipeline(pipelineMaker(pinned, plan, options), plan, options);
    await writeInput(src, pipeline, analysis, taken);
    const layout = pipeline.end();
    const facts = await analysis.end();
    const source = options.source ? await options.source : undefined;
    const streams = streamFields(options.streams ? await options.streams : null, layout.content_type);
    const header = newHeader({
      ...givenFields(options, plan, source),
      layout,
      bytes: taken.bytes,
      tokens: facts.tokens,
      sha256: facts.sha256,
      noiseBytes: facts.noiseBytes,
      redaction: src.redaction && { counts: src.redaction.counts, redacted: src.redaction.redacted },
      possibleSecrets: facts.possibleSecrets,
      streams,
    });
    const seen = statsSeen(layout, facts, pipeline.current.records);
    const kept = await commitOrReuse(options, store, pinned, plan, header, seen, pipeline.current.writer);
    return describeResult(store, kept, header, seen, options, tokenizer);
  } catch (e) {
    pipeline?.abort();
    analysis.cancel();
    const error = pinned ? inStoreTerms(e as Error, pinned) : (e as Error);
    const sha256 = await takeRest(src, taken, pinned !== null && options.dedupe !== false);
    const found = pinned && sha256 ? await storedAlready(options, pinned, plan, sha256, taken.bytes, src.redaction) : null;
    if (store && found) {
      const why = (error as NodeJS.ErrnoException).code ?? error.message;
      options.warn?.(`the store ${store.shown(pinned!.dir)} cannot be written (${why}): answered with the same output stored there before`);
      return describeFound(store, found, null, options, tokenizer);
    }
    return truncatedFallback(error, taken, threshold, tokenizer, store && pinned ? store.shown(pinned.dir) : '');
  } finally {
    pinned?.close();
  }
}

/** The result's time, id and name, and its content type (detected in the head, unless --format says). */
function planResult(options: OffloadOptions, src: InputSource, encoding: Encoding): ResultPlan {
  const now = (options.now ?? (() => new Date()))();
  const id = (options.newId ?? (() => ulid(now.getTime())))();
  const operation = sanitizeOperation(options.operation ?? 'offload');
  // only the first SNIFF_BYTES are copied, not the whole head (1 MB): freeing a copy that large moves glibc's
  // dynamic mmap threshold up, which raised the peak RSS of a 300 MB JSONL offload by 3.5 MB
  const sample = Buffer.concat(src.head, Math.min(src.headBytes, SNIFF_BYTES));
  const detected = detectContent(sample, src.eof && src.headBytes <= SNIFF_BYTES);
  const format = options.format ?? 'auto';
  const contentType: ContentType = format === 'auto' ? detected.contentType : format;
  return { now, id, operation, format, contentType, lineEnding: detected.lineEnding, encoding };
}

/**
 * What is learnt from the input beside writing it (hash, tokens, statistics, likely secrets): in a worker
 * while input is still to come, else here.
 */
async function startAnalysis(src: InputSource, plan: ResultPlan, knownTokens: number | null): Promise<InputAnalysis> {
  const { contentType, encoding } = plan;
  const statsKind = contentType === 'text' || contentType === 'jsonl' ? contentType : null;
  const scanSecrets = !src.redaction; // redacted input has none left to warn about
  return (!src.eof && (await WorkerAnalysis.start(encoding, statsKind, scanSecrets))) || new LocalAnalysis(encoding, statsKind, knownTokens, scanSecrets);
}

/** The bytes of the input taken so far, and its start kept for the fallback (copies, up to FALLBACK_KEEP). */
class TakenInput {
  bytes = 0;
  readonly keep: Buffer[] = [];
  kept = 0;

  add(b: Buffer): void {
    this.bytes += b.length;
    this.remember(b);
  }

  remember(b: Buffer): void {
    if (this.kept >= FALLBACK_KEEP) return;
    this.keep.push(Buffer.from(b)); // a copy: the analysis may take the chunk's memory
    this.kept += b.length;
  }
}

/** Makes the writer and encoder for a content type, in the pinned store. */
function pipelineMaker(store: PinnedStore, plan: ResultPlan, options: OffloadOptions): (type: ContentType, lineEnding: LineEnding) => Pipeline {
  const { dir, ioDir, identity } = store;
  const { id, operation } = plan;
  // A source still to come is not counted; a header that outgrows its slot is still written, by a copy.
  const extraHeader = JSON.stringify([options.meta, options.query, options.session, options.source]).length;
  return (type, lineEnding) => {
    const writer = new ResultWriter({
      dir,
      ioDir,
      id,
      operation,
      dirIdentity: identity,
      macKey: storeKey(options.env ?? process.env),
      headerSlot: 4096 + extraHeader + (type === 'jsonl' ? 8192 : 0) + (type === 'binary' ? 0 : STATS_SLOT) + BLOCKS_ROOM,
    });
    try {
      switch (type) {
        case 'text':
          return { contentType: type, writer, encoder: new TextRecordEncoder(writer, lineEnding) };
        case 'binary':
          return { contentType: type, writer, encoder: new BinaryRecordEncoder(writer) };
        case 'jsonl':
          return { contentType: type, writer, encoder: new JsonlRecordEncoder(writer, lineEnding) };
        case 'json': {
          const records = new RecordAnalyzer(maskSecrets);
          const spool = () => join(ioDir, tempFileName(id, 'spool'));
          return { contentType: type, writer, encoder: new JsonRecordEncoder(writer, spool, (r, n) => records.observe(r, n)), records };
        }
      }
    } catch (e) {
      writer.abort();
      throw e;
    }
  };
}

/**
 * The pipeline the input goes through: when its encoder finds the input is not of its type (EncodingRestart), a
 * pipeline for the type it names takes over, fed again what was written so far, then the rest.
 */
class ResultPipeline {
  current: Pipeline;

  constructor(
    private readonly make: (type: ContentType, lineEnding: LineEnding) => Pipeline,
    private readonly plan: ResultPlan,
    private readonly options: OffloadOptions,
  ) {
    this.current = make(plan.contentType, plan.lineEnding);
  }

  push(chunk: Buffer): void {
    try {
      this.current.encoder.push(chunk);
    } catch (e) {
      if (!(e instanceof EncodingRestart)) throw e;
      this.restart(e);
    }
  }

  /** Ends the input: the layout of the result as written. */
  end(): Layout {
    let layout: Layout;
    for (;;) {
      try {
        layout = this.current.encoder.end();
        break;
      } catch (e) {
        if (!(e instanceof EncodingRestart)) throw e;
        this.restart(e);
      }
    }
    this.current.encoder.dispose?.();
    return layout;
  }

  abort(): void {
    this.current.encoder.dispose?.();
    this.current.writer.abort();
  }

  private restart(e: EncodingRestart): void {
    const old = this.current;
    const written = old.encoder.progress();
    const format = this.plan.format;
    if (format !== 'auto' && e.contentType !== format) {
      this.options.warn?.(`the input is not ${format} (${e.message}); storing it as ${e.contentType}`);
    }
    this.current = this.make(e.contentType, e.lineEnding);
    try {
      for (const chunk of coalesce(decodeRecords(written, splitRecords(old.writer.readBack())))) this.push(chunk);
      for (const chunk of e.replay) this.push(chunk);
    } finally {
      old.encoder.dispose?.();
      old.writer.abort();
    }
  }
}

/** The whole input, the head read ahead and then the rest, through the pipeline and the analysis. */
async function writeInput(src: InputSource, pipeline: ResultPipeline, analysis: InputAnalysis, taken: TakenInput): Promise<void> {
  // The encoder runs first: the analysis may take the chunk's memory (a transfer to its worker).
  const take = async (b: Buffer) => {
    taken.add(b);
    pipeline.push(b);
    await analysis.push(b);
  };
  while (src.head.length > 0) await take(src.head.shift()!);
  for (let b = await src.next(); b; b = await src.next()) await take(b);
}

/** The header fields the options and the plan decide (the same for any input). */
function givenFields(options: OffloadOptions, plan: ResultPlan, source: Source | undefined) {
  return {
    id: plan.id,
    now: plan.now,
    operation: plan.operation,
    query: options.query ?? null,
    encoding: plan.encoding,
    detail: options.detail ?? 'full',
    ttlSeconds: options.ttlSeconds ?? DEFAULT_TTL_SECONDS,
    session: options.session ?? null,
    meta: options.meta ?? {},
    source,
  };
}

/**
 * The statistics gathered on the way: from the raw input (text, jsonl) or the records (json); null if the
 * content type changed midway (then they come from the stored file). They depend only on the bytes, so a result
 * found stored gets the descriptor it had.
 */
function statsSeen(layout: Layout, facts: InputFacts, records: RecordAnalyzer | undefined): Stats | null {
  const final = layout.content_type;
  return final === 'text' && facts.text
    ? { kind: 'text', text: facts.text }
    : final === 'jsonl' && facts.records
      ? { kind: 'records', records: facts.records }
      : final === 'json' && records
        ? { kind: 'records', records: records.end() }
        : null;
}

/**
 * The result already stored for the same output, if there is one (this one is dropped), else this one
 * committed under its header. Decided under a claim, so identical offloads finishing together agree.
 */
async function commitOrReuse(
  options: OffloadOptions,
  store: Store,
  pinned: PinnedStore,
  plan: ResultPlan,
  header: Header,
  seen: Stats | null,
  writer: ResultWriter,
): Promise<{ found: ResultFile } | { path: string }> {
  const { dir, ioDir } = pinned;
  let claim: Claim | null = null;
  try {
    const key = options.dedupe === false ? null : dedupeKey(header, plan.format);
    claim = key ? await takeClaim(ioDir, key) : null;
    const nowMs = (options.now ?? (() => new Date()))().getTime();
    const mac = storeKey(options.env ?? process.env);
    let found = key && claim ? findStored(dir, ioDir, key, plan.format, nowMs, mac) : null;
    const pulled = key && claim && !found ? store.pullSameOutput(dir, key) : null; // another machine's, in an S3 store
    if (pulled) {
      writeRef(ioDir, key!, pulled.id, pulled.name);
      found = findStored(dir, ioDir, key!, plan.format, nowMs, mac);
    }
    if (found) {
      writer.abort();
      return { found: found.rf };
    }
    const path = await writer.commit(headerLine(header, seen, writer));
    store.publish(path); // an S3 store's: uploaded now, complete
    if (key && claim) writeRef(ioDir, key, plan.id, basename(path));
    // another machine's result for the same output, when it stored first (a 412: store/remote.ts), is the answer
    const won =
      key && claim
        ? store.publishSameOutput(dir, key, path, (w) => {
            writeRef(ioDir, key, w.id, w.name);
            return findStored(dir, ioDir, key, plan.format, nowMs, mac);
          })
        : null;
    return won ? { found: won.rf } : { path };
  } finally {
    claim?.release();
  }
}

/**
 * Line 1 as committed: with the statistics (for lro info) when they fit its slot; a header that does not is
 * written by copying the whole file, which they are not worth.
 */
function headerLine(header: Header, seen: Stats | null, writer: ResultWriter): string {
  const kept = seen && statsForHeader(seen);
  const withStats = kept && kept.length <= STATS_SLOT ? serializeHeader({ ...header, stats: kept }) : null;
  return withStats && writer.fitsInPlace(withStats) ? withStats : serializeHeader(header);
}

/** The descriptor of the result kept (this one, or the one found stored). */
function describeResult(
  store: Store,
  kept: { found: ResultFile } | { path: string },
  header: Header,
  seen: Stats | null,
  options: OffloadOptions,
  tokenizer: Tokenizer,
): OffloadResult {
  if ('found' in kept) return describeFound(store, kept.found, seen, options, tokenizer);
  const stats = seen ?? statsOfResult(openResultFile(kept.path));
  // an S3 store's result by its object's s3:// URL, not by the file of the cache it was written to
  const descriptor = describe(header, store.shown(kept.path), stats, { previewTokens: options.previewTokens, tokenizer });
  return { offloaded: true, id: header.id, path: kept.path, header, descriptor };
}

/** The descriptor of the same output found stored already (with the statistics seen, when they were). */
function describeFound(store: Store, found: ResultFile, seen: Stats | null, options: OffloadOptions, tokenizer: Tokenizer): OffloadResult {
  const { path, header: h } = found;
  const descriptor = describe(h, store.shown(path), seen ?? statsOfResult(found), { previewTokens: options.previewTokens, tokenizer });
  return { offloaded: true, id: h.id, path, header: h, descriptor, deduplicated: true };
}

/**
 * After a failure: the rest of the input taken (its start kept for the fallback). With `hash`, its sha256 when
 * every byte was seen here (all taken before the failure still kept: a store that could not even start the file,
 * or one that failed early), else null.
 */
async function takeRest(src: InputSource, taken: TakenInput, hash: boolean): Promise<string | null> {
  const h = hash && taken.kept === taken.bytes ? createHash('sha256') : null;
  for (const b of taken.keep) h?.update(b);
  const take = (b: Buffer) => {
    taken.add(b);
    h?.update(b);
  };
  for (const b of src.head.splice(0)) take(b);
  for (let b = await src.next(); b; b = await src.next()) take(b);
  return h?.digest('hex') ?? null;
}

/**
 * The result holding this same output (same bytes, same options), looked up in a store that could not be
 * written (read-only, full): that answer needs no writing. Null when there is none, or it cannot be read.
 */
async function storedAlready(
  options: OffloadOptions,
  store: PinnedStore,
  plan: ResultPlan,
  sha256: string,
  bytes: number,
  redaction: Redaction | null,
): Promise<ResultFile | null> {
  try {
    const source = options.source ? await options.source : undefined;
    const given = givenFields(options, plan, source);
    const fields = { ...given, ttl_seconds: given.ttlSeconds, sha256, bytes, redacted: redaction ? redaction.counts : undefined };
    const key = dedupeKey(fields, plan.format);
    const now = (options.now ?? (() => new Date()))().getTime();
    return findStored(store.dir, store.ioDir, key, plan.format, now, storeKey(options.env ?? process.env))?.rf ?? null;
  } catch {
    return null;
  }
}

/** An error's code and message, once: "EACCES: permission denied, open …". */
function errorReason(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code && !error.message.startsWith(code) ? `${code}: ${error.message}` : error.message;
}

/**
 * When the result could not be stored: offloading is an optimisation, so the producer's output must still arrive,
 * cut to the threshold, with a warning that says why.
 */
function truncatedFallback(error: Error, taken: TakenInput, threshold: number, tokenizer: Tokenizer, storeDir: string): OffloadResult {
  // the tokens of the start kept, extrapolated by bytes to the whole input
  const meter = new TokenMeter(tokenizer);
  for (const b of taken.keep) meter.push(b);
  const keptTokens = meter.end();
  const estimatedTokens = taken.kept >= taken.bytes ? keptTokens : Math.round((keptTokens * taken.bytes) / Math.max(1, taken.kept));
  const content = truncateToTokens(Buffer.concat(taken.keep), threshold, tokenizer);
  const where = storeDir ? ` in ${storeDir}` : '';
  const problem = oneLine(`could not store the full result${where} (${errorReason(error)})`);
  const warning = `lro: output truncated to ${threshold} of ~${estimatedTokens} tokens: ${problem}`;
  return { offloaded: false, truncated: true, content, estimatedTokens, warning, problem, error };
}

/** Header fields about secrets: what --redact replaced, or the likely secrets seen (sorted by rule id). */
/** Joins small pieces into chunks of about FEED_CHUNK bytes. */
function* coalesce(pieces: Iterable<Uint8Array>): Generator<Buffer> {
  let parts: Uint8Array[] = [];
  let size = 0;
  for (const p of pieces) {
    parts.push(p.length < 4096 ? Buffer.from(p) : p);
    size += p.length;
    if (size >= FEED_CHUNK) {
      yield Buffer.concat(parts);
      parts = [];
      size = 0;
    }
  }
  if (size > 0) yield Buffer.concat(parts);
}

/**
 * The longest prefix of the input with at most `limit` tokens, cut at a line end when one is near (the last 20%),
 * never inside a UTF-8 character.
 */
export function truncateToTokens(input: Buffer, limit: number, tokenizer: Tokenizer): Buffer {
  const text = input.toString('utf8');
  if (tokenizer.count(text) <= limit) return input;
  let lo = 0;
  let hi = Math.min(text.length, limit * 32);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (tokenizer.count(text.slice(0, mid)) <= limit) lo = mid;
    else hi = mid - 1;
  }
  let cut = lo;
  const nl = text.lastIndexOf('\n', cut - 1);
  if (nl >= 0 && nl + 1 >= cut * 0.8) cut = nl + 1;
  if (cut > 0 && cut < text.length && /[\ud800-\udbff]/.test(text[cut - 1])) cut--;
  return Buffer.from(text.slice(0, cut), 'utf8');
}
