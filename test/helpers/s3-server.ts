// A real S3 API server for the tests: s3rver on loopback (a random port, a temporary directory), as a child process
// (node --openssl-legacy-provider: s3rver makes its listing's continuation tokens with DES, which OpenSSL 3 keeps
// in its legacy provider; without it any listing of more than 1,000 keys fails with InternalError), behind a small
// proxy that can misbehave on demand (throttle every request, cut a download or an upload half-way) so the faults
// lro must survive are real HTTP faults. The proxy honours `If-None-Match: *` on a PUT as S3 does (412 when the key
// exists), which s3rver ignores, and can rewrite the bytes of ranged answers (`rewrite`: edit, cut, extend or reorder
// them) for the tests of what a reader of part of a result checks. `env()` is what a spawned lro needs to use it.
import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { cleanup, tempDir } from './cli.js';

export type Fault =
  | 'none'
  | 'throttle'
  | 'cut-download'
  | 'cut-upload'
  | 'hang'
  | 'hang-writes'
  | 'no-batch-delete'
  | 'hide-ref-once'
  | 'fail-pointer-put'
  | 'refuse-mark-put'
  | 'fail-index-put'
  | 'read-only';

export interface S3TestServer {
  endpoint: string;
  bucket: string;
  /** What a spawned lro needs: the endpoint, dummy credentials, a region and its own cache, LRO_DIR on `prefix`. */
  env(prefix: string, cache?: string): Record<string, string>;
  /** The keys under a prefix, listed with the SDK. */
  keys(prefix: string): Promise<string[]>;
  fault: Fault;
  /** Requests the proxy has seen (method and path), for the tests that count them. */
  seen: string[];
  /** The keys of the DeleteObjects requests the proxy has seen, in order (a single DELETE is in `seen`). */
  batchDeleted: string[];
  /** Bytes of the bodies the proxy has answered with, for the tests that measure what a command fetched. */
  readonly served: number;
  /**
   * Rewrites the body of every ranged GET answer (a Range header) before lro gets it, as a faulty or hostile proxy
   * would; the answer's headers are kept but its length. `key` is the object's, `from` the first byte's offset.
   * null: answers pass unchanged.
   */
  rewrite: Rewrite | null;
  /**
   * Keys per page of a listing (the proxy rewrites max-keys; s3rver checks no v4 signature): a few results then
   * take several pages, as 1,000 do on any server. 0: as asked.
   */
  pageSize: number;
  /**
   * Holds the next request whose `METHOD path` matches until `release()` (then passes it on): `arrived` resolves once
   * it is held, so a test can run other machines' requests in between, as a slow writer's would interleave.
   */
  hold(match: RegExp): { arrived: Promise<void>; release: () => void };
  close(): Promise<void>;
}

const NOT_IMPLEMENTED =
  '<?xml version="1.0" encoding="UTF-8"?>' +
  '<Error><Code>NotImplemented</Code><Message>DeleteObjects is not implemented here.</Message></Error>';

const PRECONDITION_FAILED =
  '<?xml version="1.0" encoding="UTF-8"?>' +
  '<Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions did not hold</Message></Error>';

const NO_SUCH_KEY =
  '<?xml version="1.0" encoding="UTF-8"?>' +
  '<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>';

/** Whether the key of a request exists on the server (a HEAD to it). */
function exists(target: number, path: string): Promise<boolean> {
  return new Promise((ok) => {
    const head = request({ host: '127.0.0.1', port: target, method: 'HEAD', path }, (r) => {
      r.resume();
      ok(r.statusCode === 200);
    });
    head.on('error', () => ok(false));
    head.end();
  });
}

const ACCESS_DENIED =
  '<?xml version="1.0" encoding="UTF-8"?>' +
  '<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>';

const INTERNAL_ERROR =
  '<?xml version="1.0" encoding="UTF-8"?>' +
  '<Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message></Error>';

const SLOW_DOWN =
  '<?xml version="1.0" encoding="UTF-8"?>' +
  '<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>';

/** A rewrite of a ranged answer's body (see S3TestServer.rewrite). */
export type Rewrite = (body: Buffer, at: { key: string; from: number }) => Buffer;

interface ProxyState {
  rewrite: Rewrite | null;
  fault: Fault;
  seen: string[];
  batchDeleted: string[];
  served: number;
  pageSize: number;
  held: { match: RegExp; arrive: () => void; released: Promise<void> } | null;
}

/** Adds the keys of a DeleteObjects request's body to `keys` as it passes. */
function recordDeletes(req: NodeJS.ReadableStream, keys: string[]): void {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    for (const m of body.matchAll(/<Key>([^<]*)<\/Key>/g)) keys.push(m[1]);
  });
}

/** A listing's request with its page size set to `size` (none: left as it is). */
function withPageSize(url: string, size: number): string {
  if (!size || !/[?&]list-type=2/.test(url)) return url;
  return /[?&]max-keys=/.test(url) ? url.replace(/([?&]max-keys=)\d+/, `$1${size}`) : `${url}&max-keys=${size}`;
}

function startProxy(target: number, state: ProxyState): Promise<Server> {
  const proxy = createServer(async (req, res) => {
    state.seen.push(`${req.method} ${req.url}`);
    const held = state.held;
    if (held && held.match.test(`${req.method} ${req.url}`)) {
      state.held = null;
      held.arrive();
      await held.released; // the request's body waits in its stream
    }
    if (state.fault === 'hang') return; // never answers
    if (state.fault === 'hang-writes' && (req.method === 'PUT' || req.method === 'POST')) {
      req.resume(); // takes the bytes of a write, and never answers it
      return;
    }
    if (state.fault === 'hide-ref-once' && req.method === 'GET' && /\.ref(\?|$)/.test(req.url ?? '')) {
      state.fault = 'none'; // as if the other machine's ref landed just after this look
      res.writeHead(404, { 'content-type': 'application/xml' }).end(NO_SUCH_KEY);
      return;
    }
    if (req.method === 'PUT' && req.headers['if-none-match'] === '*' && (await exists(target, req.url ?? ''))) {
      req.resume();
      res.writeHead(412, { 'content-type': 'application/xml' }).end(PRECONDITION_FAILED);
      return;
    }
    if (state.fault === 'read-only' && (req.method === 'PUT' || req.method === 'DELETE' || (req.method === 'POST' && /[?&]delete(=|&|$)/.test(req.url ?? '')))) {
      req.resume();
      res.writeHead(403, { 'content-type': 'application/xml' }).end(ACCESS_DENIED); // read-only credentials
      return;
    }
    if (state.fault === 'fail-pointer-put' && req.method === 'PUT' && /\/ids\/[0-9A-Z]{26}(\?|$)/.test(req.url ?? '')) {
      req.resume();
      res.writeHead(500, { 'content-type': 'application/xml' }).end(INTERNAL_ERROR); // every attempt: the SDK gives up
      return;
    }
    if (state.fault === 'fail-index-put' && req.method === 'PUT' && /\/index\//.test(req.url ?? '')) {
      req.resume();
      res.writeHead(500, { 'content-type': 'application/xml' }).end(INTERNAL_ERROR); // a server error, not a refusal
      return;
    }
    if (state.fault === 'refuse-mark-put' && req.method === 'PUT' && /\/ids\/\.since(\?|$)/.test(req.url ?? '')) {
      req.resume();
      res.writeHead(501, { 'content-type': 'application/xml' }).end(NOT_IMPLEMENTED); // a server without conditional writes
      return;
    }
    if (state.fault === 'no-batch-delete' && req.method === 'POST' && /[?&]delete(=|&|$)/.test(req.url ?? '')) {
      res.writeHead(501, { 'content-type': 'application/xml' }).end(NOT_IMPLEMENTED); // as some S3 servers do
      return;
    }
    if (state.fault === 'throttle') {
      res.writeHead(503, { 'content-type': 'application/xml' }).end(SLOW_DOWN);
      return;
    }
    if (req.method === 'POST' && /[?&]delete(=|&|$)/.test(req.url ?? '')) recordDeletes(req, state.batchDeleted);
    const path = withPageSize(req.url ?? '', state.pageSize);
    const to = { host: '127.0.0.1', port: target, method: req.method, path, headers: req.headers };
    const up = request(to, (r) => {
      const range = req.method === 'GET' && typeof req.headers.range === 'string' && r.statusCode === 206;
      if (state.rewrite && range) {
        const rewrite = state.rewrite;
        const parts: Buffer[] = [];
        r.on('data', (c: Buffer) => parts.push(c));
        r.on('end', () => {
          const key = decodeURIComponent((req.url ?? '').split('?')[0].split('/').slice(2).join('/'));
          const from = Number(/bytes=(\d+)-/.exec(req.headers.range as string)?.[1] ?? 0);
          const body = rewrite(Buffer.concat(parts), { key, from });
          state.served += body.length;
          res.writeHead(r.statusCode!, { ...r.headers, 'content-length': String(body.length) }).end(body);
        });
        return;
      }
      res.writeHead(r.statusCode ?? 500, r.headers);
      if (state.fault === 'cut-download' && req.method === 'GET' && !req.url?.includes('list-type')) {
        r.once('data', (chunk: Buffer) => {
          res.write(chunk.subarray(0, Math.floor(chunk.length / 2)));
          res.socket?.destroy();
          r.destroy();
        });
      } else {
        r.on('data', (chunk: Buffer) => (state.served += chunk.length));
        r.pipe(res);
      }
    });
    up.on('error', () => res.socket?.destroy());
    if (state.fault === 'cut-upload' && (req.method === 'PUT' || req.method === 'POST')) {
      req.once('data', () => {
        req.socket.destroy();
        up.destroy();
      });
      req.once('end', () => up.end()); // a request with no body (CreateMultipartUpload) passes
    } else req.pipe(up);
  });
  return new Promise((ok) => proxy.listen(0, '127.0.0.1', () => ok(proxy)));
}

/** s3rver as a child on a free port: the port is read from its first line, `S3rver listening on 127.0.0.1:P`. */
function startS3rver(directory: string, bucket: string): Promise<{ child: ChildProcess; port: number }> {
  const bin = createRequire(__filename).resolve('s3rver/bin/s3rver.js');
  const args = ['--openssl-legacy-provider', bin, '--directory', directory, '--address', '127.0.0.1', '--port', '0'];
  const child = spawn(process.execPath, [...args, '--configure-bucket', bucket, '--silent'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((ok, fail) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on [\d.]+:(\d+)/.exec(out);
      if (m) ok({ child, port: Number(m[1]) });
    });
    child.once('exit', (code) => fail(new Error(`s3rver exited (${code}) before listening: ${out}`)));
  });
}

export async function startS3(bucket = 'team'): Promise<S3TestServer> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true'; // the SDK's Node 20 notice, not a test's
  const root = tempDir('lro-s3-');
  const { child: s3rver, port } = await startS3rver(join(root, 'data'), bucket);
  const state: ProxyState = { rewrite: null, fault: 'none', seen: [], batchDeleted: [], served: 0, pageSize: 0, held: null };
  const proxy = await startProxy(port, state);
  const endpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  const endpointOfServer = `http://127.0.0.1:${port}`;
  const client = new S3Client({ endpoint: endpointOfServer, region: 'us-east-1', forcePathStyle: true, credentials });
  let caches = 0;
  return {
    endpoint,
    bucket,
    seen: state.seen,
    batchDeleted: state.batchDeleted,
    get served() {
      return state.served;
    },
    get fault() {
      return state.fault;
    },
    set fault(f: Fault) {
      state.fault = f;
    },
    get rewrite() {
      return state.rewrite;
    },
    set rewrite(f: Rewrite | null) {
      state.rewrite = f;
    },
    get pageSize() {
      return state.pageSize;
    },
    set pageSize(n: number) {
      state.pageSize = n;
    },
    hold(match) {
      let arrive = () => {};
      let release = () => {};
      const arrived = new Promise<void>((ok) => (arrive = ok));
      const released = new Promise<void>((ok) => (release = ok));
      state.held = { match, arrive, released };
      return { arrived, release };
    },
    env: (prefix, cache) => ({
      AWS_ENDPOINT_URL: endpoint,
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_REGION: 'us-east-1',
      XDG_CACHE_HOME: cache ?? join(root, `cache-${caches++}`),
      LRO_DIR: `s3://${bucket}/${prefix}`,
    }),
    async keys(prefix) {
      const r = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}/` }));
      return (r.Contents ?? []).map((o) => o.Key!).sort();
    },
    async close() {
      client.destroy();
      await new Promise((ok) => proxy.close(ok));
      proxy.closeAllConnections();
      s3rver.kill();
      await new Promise((ok) => s3rver.once('exit', ok));
      cleanup(root);
    },
  };
}
