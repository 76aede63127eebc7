// The worker thread that speaks S3 for a remote store (built to dist/s3-worker.cjs, the AWS SDK bundled in it). It
// is the only code that holds the SDK, and it runs only when a store is `s3://…`. store/s3-sync.ts starts it
// through the code cache's loader (bin/code-cache.js): compiling the SDK anew was about a fifth of a remote command.
// The calling thread blocks on a shared flag until the answer is on its port (store/s3-sync.ts), so the store's code
// stays synchronous as it is for a local directory.
import { closeSync, createWriteStream, fstatSync, openSync, readSync, unlinkSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import * as S3 from '@aws-sdk/client-s3';
import type { DeserializeMiddleware } from '@smithy/types';
import { writeHeaderFile } from './header-file.js';
import { ListAhead, type ListPage } from './list-ahead.js';

export type { ListPage };

export interface S3Request {
  op: 'list' | 'heads' | 'get' | 'getRange' | 'getSmall' | 'getMany' | 'put' | 'putSmall' | 'putSmalls' | 'exists' | 'delete' | 'deleteMany';
  bucket: string;
  key?: string;
  prefix?: string;
  /** get: the file the object is written to (the caller checks it, then renames it); put: the file uploaded. */
  path?: string;
  /** getRange: the object's bytes from..to (inclusive). */
  from?: number;
  to?: number;
  body?: string;
  ifNoneMatch?: boolean;
  items?: { key: string; path: string; size: number; mtimeMs: number }[];
  /** list: the continuation token of the page asked for (none: the first). */
  token?: string;
  /** list: the first page starts after this key. */
  startAfter?: string;
  /** list: a page whose last key is at or past this one is the last asked for (its token is not followed). */
  until?: string;
  /** deleteMany: the keys (at most 1,000: one DeleteObjects request); getMany: the objects fetched. */
  keys?: string[];
  /** putSmalls: the small objects written together (each its own PUT, in parallel). */
  bodies?: { key: string; body: string }[];
}

/** What deleteMany did: the keys it could not delete and why, or `refused` (the server has no DeleteObjects). */
export type DeleteManyAnswer = { failed: { key: string; error: string }[] } | { refused: string };

export interface S3Object {
  key: string;
  size: number;
  mtimeMs: number;
  /** The object's ETag as the server gives it (quotes and all): what tells one object from another of its size. */
  etag?: string;
}

/** The answer: `value`, or `error` (one line naming the cause) with `code` for the caller to tell kinds apart. */
export type S3Answer = { value: unknown } | { error: string; code: string };

/** A header line is found within this many bytes of an object's start (lro writes it in a slot of a few KB). */
const HEAD_BYTES = 256 * 1024;
const HEAD_CONCURRENCY = 16;

let client: S3.S3Client | undefined;
let patient: S3.S3Client | undefined;
let writer: S3.S3Client | undefined;
let joiner: S3.S3Client | undefined;

/** A client: `requestTimeout` bounds a request's whole time, `idle` a silence on its socket (0: none). */
function makeClient(requestTimeout: number, o: { idle?: number; attempts?: number } = {}): S3.S3Client {
  const env = process.env;
  const endpoint = env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL;
  return new S3.S3Client({
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    forcePathStyle: Boolean(endpoint) || env.LRO_S3_PATH_STYLE === '1',
    followRegionRedirects: true,
    maxAttempts: o.attempts ?? 3, // with the SDK's backoff: a throttled or failing request gives up within a few seconds
    // a socket silent this long fails the attempt (without throwOnRequestTimeout the SDK only warns and waits on)
    requestHandler: { connectionTimeout: 2000, requestTimeout, throwOnRequestTimeout: true, socketTimeout: o.idle },
  });
}

/** The client of every request but an upload's: 5 s of silence is a fault (a reader answers within 15 s). */
function s3(): S3.S3Client {
  client ??= makeClient(5000);
  return client;
}

/** The client of a DeleteObjects request: a server may take more than 5 s to delete 1,000 objects (s3rver did). */
function s3Patient(): S3.S3Client {
  patient ??= makeClient(120_000);
  return patient;
}

/**
 * The client of an upload's writes (PutObject, the parts of a multipart upload): however long a write takes while
 * its bytes flow, a socket silent for WRITE_IDLE_MS is a fault. One attempt a send: sendWrite retries.
 */
function s3Write(): S3.S3Client {
  writer ??= makeClient(0, { idle: WRITE_IDLE_MS, attempts: 1 });
  return writer;
}

/**
 * The client of CompleteMultipartUpload: a server may be silent for long while it joins the parts of a large object
 * (s3rver took over 5 s for 1 GB), which is not a fault; its time is bounded by the object's size (joinWaitMs).
 */
function s3Join(): S3.S3Client {
  joiner ??= makeClient(0, { attempts: 1 });
  return joiner;
}

/** A write's socket silent this long: the server took the bytes and does not answer (down, stuck). */
const WRITE_IDLE_MS = 10_000;
const WRITE_ATTEMPTS = 3;

/** CompleteMultipartUpload's wait: 10 s, and 30 s per GB joined (s3rver: about 5 s per GB). */
const joinWaitMs = (size: number) => 10_000 + Math.ceil((size / 1e9) * 30_000);

/**
 * Sends an upload's request, retried (3 attempts, with backoff) when the server throttled or failed it or cut the
 * connection, never when it timed out: a server silent after it took a write is down or stuck, and an attempt more
 * would hold the producer's output as long again (three 120 s waits were 6 minutes).
 */
async function sendWrite<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (e) {
      if (attempt >= WRITE_ATTEMPTS || !retryable(e)) throw e;
      await new Promise((ok) => setTimeout(ok, Math.random() * 100 * 2 ** attempt));
    }
  }
}

/** Whether a write that failed may be tried again: throttled, a server error, a connection cut; never a timeout. */
function retryable(e: unknown): boolean {
  const err = e as { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  if (/TimeoutError|ETIMEDOUT/.test(`${err.name} ${err.code}`)) return false;
  const status = err.$metadata?.httpStatusCode;
  if (status !== undefined && (status >= 500 || status === 429)) return true;
  return /ECONNRESET|EPIPE|socket hang up|SlowDown|Throttl/.test(`${err.name} ${err.code} ${err.message}`);
}

type ListAsk = Pick<S3Request, 'bucket' | 'prefix' | 'token' | 'startAfter' | 'until'>;

const askOf = (q: ListAsk) => JSON.stringify([q.bucket, q.prefix, q.token, q.startAfter, q.until]);
const lister = new ListAhead<ListAsk>(listPage, askOf);

async function listPage(q: ListAsk): Promise<ListPage> {
  const ask = { Bucket: q.bucket, Prefix: q.prefix, ContinuationToken: q.token, StartAfter: q.startAfter, MaxKeys: 1000 };
  const command = new S3.ListObjectsV2Command(ask);
  command.middlewareStack.add(readAhead(q), { step: 'deserialize', priority: 'low', name: 'lroReadAhead' });
  const page = await s3().send(command);
  const objects: S3Object[] = [];
  for (const o of page.Contents ?? []) {
    if (o.Key) objects.push({ key: o.Key, size: o.Size ?? 0, mtimeMs: o.LastModified?.getTime() ?? 0, etag: o.ETag });
  }
  const last = objects[objects.length - 1]?.key;
  const past = q.until !== undefined && last !== undefined && last >= q.until;
  return { objects, next: page.IsTruncated && !past ? page.NextContinuationToken : undefined };
}

/**
 * A middleware that sees a listing's answer before the SDK parses it: its token (read from the XML, where S3 puts
 * it as it is) starts the next page's request at once, unless the page's last key reaches `until`.
 */
function readAhead(q: ListAsk): DeserializeMiddleware<S3.ListObjectsV2CommandInput, S3.ListObjectsV2CommandOutput> {
  return (next) => async (args) => {
    const out = await next(args);
    const response = out.response as { statusCode?: number; body?: unknown };
    if (response.statusCode !== 200 || !response.body || response.body instanceof Uint8Array) return out;
    const body = await collect(response.body as AsyncIterable<Uint8Array>);
    response.body = body; // the SDK parses the bytes as it would have read them
    const token = elementAt(body, body.indexOf('<NextContinuationToken>'));
    const lastKey = elementAt(body, body.lastIndexOf('<Key>'));
    const past = q.until !== undefined && lastKey !== undefined && lastKey >= q.until;
    if (token && !past) lister.early({ ...q, token });
    return out;
  };
}

/** The text of the XML element that starts at `at` (none: -1), unescaped; undefined when there is none. */
function elementAt(xml: Buffer, at: number): string | undefined {
  if (at < 0) return undefined;
  const from = xml.indexOf(0x3e, at) + 1; // '>'
  const to = xml.indexOf(0x3c, from); // '<'
  return to > from ? unescapeXml(xml.toString('utf8', from, to)) : undefined;
}

async function collect(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const c of stream) chunks.push(c); // (Buffer.concat copies them once)
  return Buffer.concat(chunks);
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function unescapeXml(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (all, e: string) => {
    if (e[0] !== '#') return XML_ENTITIES[e] ?? all;
    return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
  });
}

async function bytesOf(body: unknown): Promise<Buffer> {
  const b = body as { transformToByteArray(): Promise<Uint8Array> };
  return Buffer.from(await b.transformToByteArray());
}

/** Writes the start of an object (up to its header line) into a sparse file as long as the object. */
type HeadItem = NonNullable<S3Request['items']>[number];

async function fetchHead(bucket: string, item: HeadItem): Promise<void> {
  const range = `bytes=0-${HEAD_BYTES - 1}`;
  const r = await s3().send(new S3.GetObjectCommand({ Bucket: bucket, Key: item.key, Range: range }));
  const got = await bytesOf(r.Body);
  const nl = got.indexOf(0x0a);
  writeHeaderFile(item.path, nl >= 0 ? got.subarray(0, nl + 1) : got, item.size, item.mtimeMs);
}

async function heads(bucket: string, items: NonNullable<S3Request['items']>): Promise<number> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fetchHead(bucket, items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(HEAD_CONCURRENCY, items.length) }, lane));
  return items.length;
}

async function get(bucket: string, key: string, tmp: string): Promise<number> {
  const r = await s3().send(new S3.GetObjectCommand({ Bucket: bucket, Key: key }));
  try {
    await pipeline(r.Body as NodeJS.ReadableStream, createWriteStream(tmp, { mode: 0o600 }));
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // not there
    }
    throw e;
  }
  return r.ContentLength ?? 0;
}

/** Bytes of an object and the object's whole size (from Content-Range, or the body's length when not ranged). */
export interface ObjectPart {
  bytes: Uint8Array;
  size: number;
}

/**
 * The object's bytes from..to (inclusive; fewer when it ends before): one Range GET. A server that ignores the range
 * answers the whole object (200, no Content-Range): its size is then the body's, from 0.
 */
async function getRange(bucket: string, key: string, from: number, to: number): Promise<ObjectPart> {
  const r = await s3().send(new S3.GetObjectCommand({ Bucket: bucket, Key: key, Range: `bytes=${from}-${to}` }));
  const body = await bytesOf(r.Body);
  const size = /\/(\d+)$/.exec(r.ContentRange ?? '')?.[1];
  return { bytes: body, size: size !== undefined ? Number(size) : from === 0 ? body.length : NaN };
}

/** Several small objects, 16 requests at a time; null for one that is not there (NoSuchKey). */
async function getMany(bucket: string, keys: string[]): Promise<(Uint8Array | null)[]> {
  const out: (Uint8Array | null)[] = new Array(keys.length).fill(null);
  let next = 0;
  const lane = async () => {
    while (next < keys.length) {
      const i = next++;
      try {
        const r = await s3().send(new S3.GetObjectCommand({ Bucket: bucket, Key: keys[i] }));
        out[i] = await bytesOf(r.Body);
      } catch (e) {
        if ((e as { name?: string }).name !== 'NoSuchKey') throw e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(HEAD_CONCURRENCY, keys.length) }, lane));
  return out;
}

async function getSmall(bucket: string, key: string): Promise<string | null> {
  try {
    const r = await s3().send(new S3.GetObjectCommand({ Bucket: bucket, Key: key }));
    return (await bytesOf(r.Body)).toString('utf8');
  } catch (e) {
    if ((e as { name?: string }).name === 'NoSuchKey') return null;
    throw e;
  }
}

/** S3's least part: one part in flight, so an agent's machine pays a low peak rather than the last 10% of speed. */
const PART_BYTES = 5 * 1024 * 1024;

/**
 * Uploads a file: one PutObject when it is one part, else a multipart upload of 5 MB parts read one at a time into
 * one buffer (lib-storage's Upload, even with one part in flight, peaked 50 MB above the offload on 1 GB). An
 * upload that fails is aborted, so no part remains and no object appears: it appears only when complete.
 */
async function put(bucket: string, key: string, path: string): Promise<string | null> {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const part = Buffer.allocUnsafe(Math.min(PART_BYTES, Math.max(size, 1)));
    if (size <= PART_BYTES) {
      const body = part.subarray(0, readFully(fd, part, 0));
      const r = await sendWrite(() => s3Write().send(new S3.PutObjectCommand({ Bucket: bucket, Key: key, Body: body })));
      return r.ETag ?? null;
    }
    return await multipart(bucket, key, fd, size, part);
  } finally {
    closeSync(fd);
  }
}

async function multipart(bucket: string, key: string, fd: number, size: number, part: Buffer): Promise<string | null> {
  const where = { Bucket: bucket, Key: key };
  const { UploadId } = await sendWrite(() => s3Write().send(new S3.CreateMultipartUploadCommand(where)));
  try {
    const parts: { ETag?: string; PartNumber: number }[] = [];
    for (let at = 0, n = 1; at < size; n++) {
      const got = readFully(fd, part, at);
      const ask = { ...where, UploadId, PartNumber: n, Body: part.subarray(0, got) };
      const r = await sendWrite(() => s3Write().send(new S3.UploadPartCommand(ask)));
      parts.push({ ETag: r.ETag, PartNumber: n });
      at += got;
    }
    const done = { ...where, UploadId, MultipartUpload: { Parts: parts } };
    const join = new S3.CompleteMultipartUploadCommand(done);
    const r = await sendWrite(() => s3Join().send(join, { requestTimeout: joinWaitMs(size) }));
    return r.ETag ?? null;
  } catch (e) {
    // not waited for: a server that went silent would hold the output as long again; the server down, its parts
    // expire by the bucket's lifecycle, the object never appears
    s3Write()
      .send(new S3.AbortMultipartUploadCommand({ ...where, UploadId }))
      .catch(() => {});
    throw e;
  }
}

/** Reads from `at` until the buffer is full or the file ends; the bytes read. */
function readFully(fd: number, buf: Buffer, at: number): number {
  let got = 0;
  for (let n = 1; n > 0 && got < buf.length; got += n) n = readSync(fd, buf, got, buf.length - got, at + got);
  return got;
}

async function putSmall(bucket: string, key: string, body: string, ifNoneMatch: boolean): Promise<boolean> {
  try {
    const ask = { Bucket: bucket, Key: key, Body: body, IfNoneMatch: ifNoneMatch ? '*' : undefined };
    await s3().send(new S3.PutObjectCommand(ask));
    return true;
  } catch (e) {
    const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (ifNoneMatch && status === 412) return false; // another writer's object is there: theirs wins
    throw e;
  }
}

/** Small objects written together, each by its own PUT (in parallel): per object, null or the cause of its failure. */
async function putSmalls(bucket: string, bodies: { key: string; body: string }[]): Promise<({ error: string; code: string } | null)[]> {
  const endpoint = process.env.AWS_ENDPOINT_URL_S3 || process.env.AWS_ENDPOINT_URL || 'of AWS';
  const done = await Promise.allSettled(bodies.map((b) => putSmall(bucket, b.key, b.body, false)));
  return done.map((d, i) => (d.status === 'fulfilled' ? null : causeOf(d.reason, endpoint, bucket, bodies[i].key)));
}

async function exists(bucket: string, key: string): Promise<boolean> {
  try {
    await s3().send(new S3.HeadObjectCommand({ Bucket: bucket, Key: key }));
    return true;
  } catch (e) {
    const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (status === 404) return false;
    throw e;
  }
}

/**
 * Deletes up to 1,000 keys in one DeleteObjects request. A server that does not implement it (or refuses the
 * request as such) answers `refused`: the caller deletes one key at a time then.
 */
async function deleteMany(bucket: string, keys: string[]): Promise<DeleteManyAnswer> {
  const ask = { Bucket: bucket, Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true } };
  try {
    const r = await s3Patient().send(new S3.DeleteObjectsCommand(ask));
    const failed = (r.Errors ?? []).map((e) => ({ key: e.Key ?? '', error: `${e.Code}: ${e.Message ?? ''}` }));
    return { failed };
  } catch (e) {
    const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
    const status = err.$metadata?.httpStatusCode;
    if (status === 501 || status === 405 || /NotImplemented|MethodNotAllowed|MalformedXML/.test(err.name ?? '')) {
      return { refused: err.name ?? String(status) };
    }
    throw e;
  }
}

async function serve(q: S3Request): Promise<unknown> {
  s3();
  switch (q.op) {
    case 'list':
      return lister.list(q);
    case 'heads':
      return heads(q.bucket, q.items ?? []);
    case 'get':
      return get(q.bucket, q.key!, q.path!);
    case 'getRange':
      return getRange(q.bucket, q.key!, q.from!, q.to!);
    case 'getSmall':
      return getSmall(q.bucket, q.key!);
    case 'getMany':
      return getMany(q.bucket, q.keys ?? []);
    case 'put':
      return put(q.bucket, q.key!, q.path!);
    case 'putSmall':
      return putSmall(q.bucket, q.key!, q.body ?? '', q.ifNoneMatch === true);
    case 'putSmalls':
      return putSmalls(q.bucket, q.bodies ?? []);
    case 'exists':
      return exists(q.bucket, q.key!);
    case 'delete':
      await s3().send(new S3.DeleteObjectCommand({ Bucket: q.bucket, Key: q.key! }));
      return true;
    case 'deleteMany':
      return deleteMany(q.bucket, q.keys ?? []);
  }
}

const CREDENTIALS = /InvalidAccessKeyId|SignatureDoesNotMatch|InvalidToken|ExpiredToken|CredentialsProviderError/;

/** The cause of a failure in one line, never with a credential in it. */
export function causeOf(e: unknown, endpoint: string, bucket: string, key = ''): { error: string; code: string } {
  const err = e as { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const name = err.name ?? '';
  const code = err.code ?? '';
  const status = err.$metadata?.httpStatusCode;
  const net = `${code} ${name} ${err.message ?? ''}`;
  if (/ECONNRESET|EPIPE|socket hang up/.test(net)) {
    const how = /ECONNRESET|EPIPE/.exec(net)?.[0] ?? 'socket hang up';
    return { code: 'cut', error: `the S3 endpoint ${endpoint} cut the connection (${how}): try again` };
  }
  const unreachable = /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN/.exec(net);
  if (unreachable) {
    const fix = 'check AWS_ENDPOINT_URL and the network';
    return { code: 'unreachable', error: `cannot reach the S3 endpoint ${endpoint} (${unreachable[0]}): ${fix}` };
  }
  if (/TimeoutError|ETIMEDOUT|timed? ?out/i.test(net)) {
    return { code: 'timeout', error: `the S3 endpoint ${endpoint} did not answer in time: try again` };
  }
  if (CREDENTIALS.test(name) || status === 401) {
    const fix = 'check AWS_ACCESS_KEY_ID / AWS_PROFILE';
    return { code: 'credentials', error: `S3 refused the credentials (${name || status}): ${fix}` };
  }
  if (name === 'AccessDenied' || status === 403) {
    const fix = 'check the credentials and the IAM permissions lro needs (docs/commands.md, A shared store on S3)';
    return { code: 'denied', error: `S3 denied access (AccessDenied): ${fix}` };
  }
  if (name === 'NoSuchKey') return { code: 'missing', error: `no object ${key} in the bucket ${bucket} (NoSuchKey)` };
  if (name === 'NoSuchBucket') {
    return { code: 'bucket', error: `the bucket ${bucket} does not exist (NoSuchBucket): create it or fix LRO_DIR` };
  }
  if (name === 'SlowDown' || status === 503 || status === 429) {
    const what = `S3 kept throttling the requests (${name || status}) after retries`;
    return { code: 'throttled', error: `${what}: try again later` };
  }
  const what = (err.message ?? String(e)).split('\n')[0].slice(0, 200);
  return { code: 'other', error: `S3 request failed (${name || code || status || 'error'}): ${what}` };
}

// The SDK's own warnings are not lro's output: a failure reaches the user as one line, from the caller.
console.warn = () => {};
console.log = () => {};

const port = (workerData as { port: MessagePort } | null)?.port; // (none when the build checks its code cache)
parentPort?.on('message', (m: { q: S3Request; flag: Int32Array }) => {
  const endpoint = process.env.AWS_ENDPOINT_URL_S3 || process.env.AWS_ENDPOINT_URL || 'of AWS';
  const done = (a: S3Answer) => {
    port!.postMessage(a);
    Atomics.store(m.flag, 0, 1);
    Atomics.notify(m.flag, 0);
  };
  serve(m.q).then(
    (value) => done({ value }),
    (e) => done(causeOf(e, endpoint, m.q.bucket, m.q.key)),
  );
});
