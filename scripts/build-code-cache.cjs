// Makes dist/code-cache/ (see bin/code-cache.js): loads the bundles through the cache loader, runs the commands
// agents run most on fixtures of the repository in a store of its own, then keeps what V8 compiled. Each command
// is run in its own bundle in a process of its own, so that its cache holds what that command compiles and no
// other's (the results it reads are offloaded first, by this process, which keeps no cache); last, one process
// runs them all in dist/cli.cjs, for its cache, which every other command takes. Run by scripts/build.mjs in a
// process of its own, so that its V8 flags are lro's. A command that fails here fails the build: a cache trained
// on an error path would miss the real ones.
'use strict';
const { execFileSync } = require('node:child_process');
const { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { dirname, join } = require('node:path');
const v8 = require('node:v8');
const codeCache = require('../bin/code-cache.js');

const root = join(__dirname, '..');
const fixture = (p) => join(root, 'fixtures', p);
/** The results the readers read, by the name the runs give them: offloaded before any command is trained. */
const INPUTS = {
  LOG: fixture('corpus/loghub/OpenSSH_2k.log'),
  JSONL: fixture('corpus/shell-output/go-test-json.out'),
  DOC: fixture('corpus/json-docs/github_events.json'),
};

/**
 * Per command with a cache of its own: [argv, stdin file or null, the exit code it must give]. An argument
 * naming an input (LOG, JSONL, DOC) is that input's result.
 */
const RUNS = {
  // a small input passes through: most offloads do, and V8 reads the whole of a cache before lro's first line, so
  // this one holds only what a passthrough runs (204 KB; with a text, a JSONL and a document stored besides, 452 KB
  // made a passthrough 8 ms slower, and storing 30 KB or 1 MB no faster: a stored input compiles what it needs)
  offload: [[['offload'], null, 0]],
  read: [
    [['read', 'LOG', '--records', '1:20'], null, 0],
    [['read', 'LOG', '--tail', '5'], null, 0],
    [['read', 'LOG', '--head', '50'], null, 0],
    [['read', 'DOC', '--records', '1:3'], null, 0],
  ],
  grep: [
    [['grep', 'LOG', 'Failed password for root', '-m', '5'], null, 0],
    [['grep', 'LOG', '-i', 'invalid user', '-c'], null, 0],
    [['grep', 'LOG', 'port [0-9]+ ssh2', '-C', '1', '-m', '3'], null, 0],
    [['grep', 'LOG', 'error|fatal|refused', '-i'], null, 0],
    [['grep', 'JSONL', 'FAIL'], null, 0],
  ],
  count: [
    [['count', 'LOG', '--by', 'template'], null, 0],
    [['count', 'JSONL', '--by', 'Action'], null, 0],
  ],
  info: [
    [['info', 'LOG'], null, 0],
    [['info', 'JSONL'], null, 0],
  ],
  cat: [[['cat', 'LOG'], null, 0]],
  jq: [
    [['jq', 'LOG', '-r', 'select(test("error"; "i"))'], null, 0],
    [['jq', 'JSONL', '-c', 'select(.Action == "fail") | {Test, Elapsed}'], null, 0],
    [['jq', 'DOC', '-r', '.type'], null, 0],
  ],
  where: [[['where', 'JSONL', 'Action=fail', 'Elapsed>0'], null, 0]],
};
/** The cache of every other command: all of the above, and these. */
const OTHERS = [
  [['--help'], null, 0],
  [['ls'], null, 0],
  [['ls', '--json'], null, 0],
  [['gc', '--dry-run'], null, 0],
];

const sink = { isTTY: false, color: false, columns: 0, write: async () => {}, writeSettled: async () => {} };

async function* chunks(file) {
  if (file === null) yield Buffer.from('a small output\n');
  else yield readFileSync(file);
}

/** Runs lro's main() with argv in the store; returns what it printed. */
async function lro(cli, store, [argv, input, expected]) {
  const env = { ...process.env, LRO_DIR: store };
  const settings = ['LRO_SESSION', 'LRO_REDACT', 'LRO_THRESHOLD_TOKENS', 'LRO_MAX_OUTPUT_TOKENS', 'LRO_PREFIX', 'LRO_TTL'];
  for (const k of settings) delete env[k];
  let out = '';
  const stdout = { ...sink, write: async (s) => void (out += s) };
  const io = { stdin: chunks(input), stdinIsTTY: false, stdout, stderr: sink, env, now: () => new Date() };
  const code = await cli.main(argv, io);
  if (code !== expected) throw new Error(`lro ${argv.join(' ')} exited ${code}, not ${expected}`);
  return out;
}

/**
 * In a process of its own: runs `command`'s runs in its own bundle (for `all`, every run in dist/cli.cjs) and
 * writes the caches it made.
 */
async function train(command, store, ids) {
  codeCache.install();
  // V8 takes a cache only under the flags it was made with, which are lro's flags when it loads its bundles: none.
  // Later lro sets some (src/secrets/rules.ts, commands/jq.ts), and setting one back does not undo its
  // implications, so while training lro sets none: the rules that would use the linear regexp engine backtrack,
  // and jq's WebAssembly is compiled as for a large result; the JavaScript V8 compiles is the same.
  // One flag is set here, and set back before the caches are made (checkTaken checks V8 takes them): V8 drops the
  // bytecode of functions that have not run for a while, and caches made while it could depended on when garbage
  // collections came (577 to 767 KB from the same build, 20 ms apart at start-up). lro itself used to set it when
  // it loaded a cache, and loading node:v8 for that cost every command 4 ms.
  const setFlags = v8.setFlagsFromString;
  setFlags('--no-flush-bytecode');
  v8.setFlagsFromString = () => {};
  const bundle = command === 'all' ? 'cli.cjs' : codeCache.bundleOf(command);
  const cli = require(join(root, 'dist', bundle));
  const runs = command === 'all' ? [...Object.values(RUNS).flat(), ...OTHERS] : RUNS[command];
  for (const [argv, input, expected] of runs) {
    await lro(cli, store, [argv.map((a) => ids[a] ?? a), input, expected]);
  }
  setFlags('--flush-bytecode');
  for (const name of [bundle, 'jq/jq.cjs']) {
    const l = codeCache.loaded.get(name);
    if (!l || (name === 'jq/jq.cjs' && command !== 'jq')) continue; // jq's glue: one cache, made where jq runs
    mkdirSync(dirname(codeCache.cacheFile(name)), { recursive: true });
    writeFileSync(codeCache.cacheFile(name), l.script.createCachedData());
  }
}

/**
 * The S3 worker's cache (store/s3-sync.ts starts the worker through the loader): the worker, in a thread of this
 * process as lro starts it, makes each kind of request it serves to a stand-in for S3 on loopback, whose answers
 * are S3's in form (a listing of one result, the result's bytes or a range of them, a write's ETag): what the SDK
 * compiles to build, sign, send and parse them is what V8 keeps. A request that fails fails the build, as a
 * command does: a cache trained on an error path would miss the real ones.
 */
async function trainS3(store, ids) {
  const { once } = require('node:events');
  const http = require('node:http');
  const { MessageChannel, Worker } = require('node:worker_threads');
  const name = readdirSync(store).find((n) => n.includes(ids.LOG));
  const object = readFileSync(join(store, name));
  const key = `p/${name}`;
  const etag = '"0123456789abcdef0123456789abcdef"';
  const xml = (body) => `<?xml version="1.0" encoding="UTF-8"?>${body}`;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://stand-in');
    req.resume();
    req.on('end', () => {
      const q = url.searchParams;
      const answer = (status, headers, body) => res.writeHead(status, { 'x-amz-request-id': 'TRAIN', ...headers }).end(body);
      if (req.method === 'GET' && q.get('list-type') === '2') {
        const modified = new Date(0).toISOString();
        const contents = `<Contents><Key>${key}</Key><LastModified>${modified}</LastModified><ETag>${etag}</ETag><Size>${object.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
        return answer(200, { 'content-type': 'application/xml' }, xml(`<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><Prefix>p/</Prefix><KeyCount>1</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>${contents}</ListBucketResult>`));
      }
      if (req.method === 'POST' && q.has('delete')) {
        return answer(200, { 'content-type': 'application/xml' }, xml(`<DeleteResult><Deleted><Key>${key}</Key></Deleted></DeleteResult>`));
      }
      if (req.method === 'PUT') return answer(200, { etag }, '');
      if (req.method === 'DELETE') return answer(204, {}, '');
      const whole = { etag, 'last-modified': new Date(0).toUTCString(), 'content-type': 'application/octet-stream' };
      const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
      if (range) {
        const from = Number(range[1]);
        const to = Math.min(Number(range[2]), object.length - 1);
        const part = object.subarray(from, to + 1);
        const headers = { ...whole, 'content-length': part.length, 'content-range': `bytes ${from}-${to}/${object.length}` };
        return answer(206, headers, req.method === 'HEAD' ? '' : part);
      }
      return answer(200, { ...whole, 'content-length': object.length }, req.method === 'HEAD' ? '' : object);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const dir = mkdtempSync(join(tmpdir(), 'lro-s3-cache-'));
  const setFlags = v8.setFlagsFromString; // as train() does, for the same reasons
  setFlags('--no-flush-bytecode');
  const answers = new MessageChannel();
  const control = new MessageChannel();
  const standIn = `http://127.0.0.1:${server.address().port}`;
  const env = { ...process.env }; // (no profile or session of the machine that builds: the stand-in's keys alone)
  for (const k of ['AWS_PROFILE', 'AWS_SESSION_TOKEN', 'AWS_CONFIG_FILE', 'AWS_SHARED_CREDENTIALS_FILE']) delete env[k];
  Object.assign(env, {
    AWS_ENDPOINT_URL: standIn,
    AWS_ENDPOINT_URL_S3: standIn,
    AWS_ACCESS_KEY_ID: 'TRAIN',
    AWS_SECRET_ACCESS_KEY: 'TRAIN',
    AWS_REGION: 'us-east-1',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });
  const boot = `const c = require(${JSON.stringify(require.resolve('../bin/code-cache.js'))});
    c.install();
    require(${JSON.stringify(join(root, 'dist', 's3-worker.cjs'))});
    const control = require('node:worker_threads').workerData.control;
    control.once('message', () => {
      require('node:fs').writeFileSync(c.cacheFile('s3-worker.cjs'), c.loaded.get('s3-worker.cjs').script.createCachedData());
      control.postMessage('saved');
    });`;
  const workerData = { port: answers.port2, control: control.port2 };
  const worker = new Worker(boot, { eval: true, env, workerData, transferList: [answers.port2, control.port2] });
  try {
    const put = join(dir, 'put');
    writeFileSync(put, object);
    const asks = [
      { op: 'list', prefix: 'p/' },
      { op: 'heads', items: [{ key, path: join(dir, 'head'), size: object.length, mtimeMs: 0 }] },
      { op: 'getRange', key, from: 0, to: 4095 },
      { op: 'get', key, path: join(dir, 'got') },
      { op: 'getSmall', key },
      { op: 'getMany', keys: [key, key] },
      { op: 'put', key, path: put },
      { op: 'putSmall', key: 'p/ids/x', body: 'x', ifNoneMatch: true },
      { op: 'putSmalls', bodies: [{ key: 'p/index/x', body: 'x' }] },
      { op: 'exists', key },
      { op: 'delete', key },
      { op: 'deleteMany', keys: [key] },
    ];
    for (const ask of asks) {
      worker.postMessage({ q: { bucket: 'b', ...ask }, flag: new Int32Array(new SharedArrayBuffer(4)) });
      const [answer] = await once(answers.port1, 'message');
      if ('error' in answer) throw new Error(`the S3 worker's ${ask.op}: ${answer.error}`);
    }
    setFlags('--flush-bytecode');
    control.port1.postMessage('save');
    await once(control.port1, 'message');
  } finally {
    await worker.terminate();
    answers.port1.close();
    control.port1.close();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Offloads the inputs into a new store, with no cache loader; then trains each command in a process of its own. */
async function trainAll() {
  const store = mkdtempSync(join(tmpdir(), 'lro-code-cache-'));
  try {
    const cli = require('../dist/cli.cjs');
    const ids = {};
    for (const [name, file] of Object.entries(INPUTS)) {
      ids[name] = JSON.parse(await lro(cli, store, [['offload', '--force'], file, 0])).id;
    }
    const untrained = codeCache.OWN_BUNDLES.filter((c) => !RUNS[c]);
    if (untrained.length) throw new Error(`no runs to train the bundle of ${untrained.join(', ')}`);
    for (const command of [...Object.keys(RUNS), 'all', 's3']) {
      execFileSync(process.execPath, [__filename, command, store, JSON.stringify(ids)], { stdio: 'inherit' });
    }
  } finally {
    rmSync(store, { recursive: true, force: true });
  }
  checkTaken();
}

/** A cache V8 would refuse is a slower start and nothing else, so nothing would show it: checks each here. */
function checkTaken() {
  const check = `const c = require(${JSON.stringify(require.resolve('../bin/code-cache.js'))});
    c.install();
    for (const b of c.BUNDLES) require(require('node:path').join(${JSON.stringify(join(root, 'dist'))}, b));
    const refused = c.BUNDLES.filter((b) => c.loaded.get(b).accepted !== true);
    if (refused.length) { console.error('V8 refused the code cache of ' + refused.join(', ')); process.exit(1); }`;
  execFileSync(process.execPath, ['-e', check], { stdio: 'inherit' });
}

const [command, store, ids] = process.argv.slice(2);
const trainOne = command === 's3' ? trainS3 : (store, ids) => train(command, store, ids);
(command ? trainOne(store, JSON.parse(ids)) : trainAll()).catch((e) => {
  console.error(`build: code cache${command ? ` of ${command}` : ''}: ${e.message}`);
  process.exit(1);
});
