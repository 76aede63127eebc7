// V8's code cache of the bundles (bin/code-cache.js): lro as run takes it, and a cache that no longer fits its
// bundle is refused by V8 and changes nothing lro does.
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cleanup, tempDir } from '../helpers/cli.js';

const ROOT = resolve(__dirname, '../..');
const LOG = readFileSync(join(ROOT, 'fixtures/corpus/loghub/OpenSSH_2k.log'));
const root = tempDir();
/**
 * 20 KB of words: over what bin/passthrough.js decides (3 thresholds of bytes), under the threshold in tokens, so
 * passed through by the offload's bundle.
 */
const OVER_BYTES = 'the quick brown fox jumps over the lazy dog\n'.repeat(460);
afterAll(() => cleanup(root));

/**
 * Runs the lro of `bin` in a store of `store`, with a module that prints at exit whether V8 took each bundle's
 * cache (true, false, or null: there was none). Only the main thread prints: node preloads the module in
 * worker threads too (the analysis worker of a large input), whose line, `CACHE {}`, came first now and then.
 */
function run(bin: string, store: string, args: string[], input = '') {
  const reporter = join(root, `report-${store}.cjs`);
  writeFileSync(
    reporter,
    `const c = require(${JSON.stringify(join(bin, '..', 'code-cache.js'))});
     if (require('node:worker_threads').isMainThread) process.on('exit', () => process.stderr.write('CACHE ' + JSON.stringify(Object.fromEntries([...c.loaded].map(([k, v]) => [k, v.accepted]))) + '\\n'));`,
  );
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', LRO_DIR: join(root, store) };
  const r = spawnSync(process.execPath, ['-r', reporter, bin, ...args], { env, input, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, cache: JSON.parse(/CACHE (.*)/.exec(r.stderr)![1]) as Record<string, boolean | null> };
}

describe('code cache', () => {
  it('is taken for the CLI and for jq', () => {
    const off = run(BIN, 'taken', ['offload', '--force'], '{"a":1}\n{"a":2}\n');
    expect(off.code).toBe(0);
    expect(off.cache).toEqual({ 'cli-offload.cjs': true });
    // a filter jq's engine runs (`.a` alone is answered without it: jq-fast.ts), and one it does not
    const jq = run(BIN, 'taken', ['jq', 'last', '.a + 0']);
    expect(jq.out).toBe('1\n2\n');
    expect(jq.cache).toEqual({ 'cli-jq.cjs': true, 'jq/jq.cjs': true });
    const fast = run(BIN, 'taken', ['jq', 'last', '.a']);
    expect(fast.out).toBe('1\n2\n');
    expect(fast.cache).toEqual({ 'cli-jq.cjs': true });
    // a large input: the analysis worker, loaded by a require() that the bundle had as import()
    const big = run(BIN, 'taken', ['offload'], `${LOG.toString('latin1').trimEnd()}\n`.repeat(15));
    expect(big.code).toBe(0);
    expect(JSON.parse(big.out).summary.count).toBe(30_000);
    expect(big.cache).toEqual({ 'cli-offload.cjs': true });
  });

  it('is taken with no V8 flag set, so lro never loads node:v8 (4 ms of every command)', () => {
    const trace = join(root, 'v8-trace');
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', LRO_DIR: join(root, 'v8'), LRO_THREAD_TRACE: trace };
    const tracer = join(ROOT, 'test/helpers/thread-trace.cjs');
    // an input over the threshold in bytes that passes through (its tokens under it): the offload's bundle runs
    const r = spawnSync(process.execPath, ['-r', tracer, BIN, 'offload'], { env, input: OVER_BYTES, encoding: 'utf8' });
    expect(r.stdout).toBe(OVER_BYTES);
    const builtins = readFileSync(trace, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { builtins?: string[] }).find((l) => l.builtins)!.builtins!;
    expect(builtins).toContain('vm'); // (the loader's: the trace sees what it loads)
    expect(builtins).not.toContain('v8');
    expect(run(BIN, 'v8', ['offload'], OVER_BYTES).cache).toEqual({ 'cli-offload.cjs': true });
    // within the threshold in bytes, no bundle is read (bin/passthrough.js)
    expect(run(BIN, 'v8', ['offload'], 'hi\n')).toMatchObject({ out: 'hi\n', cache: {} });
  });

  it('is loaded with no node:crypto by grep and info: a module that requires it as its bundle loads costs each start', () => {
    // (ulid's generator, reached once through the S3 store's index, put node:crypto in grep's and info's bundles:
    // about 8 ms of every call)
    const store = join(root, 'crypto');
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', LRO_DIR: store };
    const id = (JSON.parse(spawnSync(process.execPath, [BIN, 'offload', '--force'], { env, input: LOG, encoding: 'utf8' }).stdout) as { id: string }).id;
    const tracer = join(ROOT, 'test/helpers/thread-trace.cjs');
    for (const args of [['grep', id, '-c', 'sshd'], ['info', id]]) {
      const trace = join(root, `crypto-${args[0]}`);
      spawnSync(process.execPath, ['-r', tracer, BIN, ...args], { env: { ...env, LRO_THREAD_TRACE: trace }, encoding: 'utf8' });
      const builtins = readFileSync(trace, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { builtins?: string[] }).find((l) => l.builtins)!.builtins!;
      expect(builtins, args[0]).toContain('vm'); // (the code cache's loader: the trace sees what lro loads)
      expect(builtins, args[0]).not.toContain('crypto');
    }
  });

  it('is the command\'s own, in its own bundle, for the commands agents run most; the others take that of all', () => {
    // V8 reads a whole cache before lro's first line runs: one made from every command cost --version 3x its own
    const reporter = join(root, 'report-files.cjs');
    writeFileSync(
      reporter,
      `const c = require(${JSON.stringify(join(BIN, '..', 'code-cache.js'))});
       process.on('exit', () => process.stderr.write('FILES ' + JSON.stringify(Object.fromEntries([...c.loaded].map(
         ([k, v]) => [k, v.file && require('node:path').basename(v.file)]))) + '\\n'));`,
    );
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', LRO_DIR: join(root, 'files') };
    const files = (args: string[], input = '') => {
      const r = spawnSync(process.execPath, ['-r', reporter, BIN, ...args], { env, input, encoding: 'utf8' });
      return JSON.parse(/FILES (.*)/.exec(r.stderr)![1]) as Record<string, string>;
    };
    expect(files([], OVER_BYTES)).toEqual({ 'cli-offload.cjs': 'cli-offload.cjs.bin' });
    expect(files([], 'hi\n')).toEqual({}); // (passed through by bin/passthrough.js)
    expect(files([], LOG.toString('latin1').slice(0, 9000))).toEqual({}); // (its tokens' bound within the threshold)
    expect(files(['--force'], 'hi\n')).toEqual({ 'cli-offload.cjs': 'cli-offload.cjs.bin' });
    expect(files(['offload', '--force'], 'a\nb\n')).toEqual({ 'cli-offload.cjs': 'cli-offload.cjs.bin' });
    expect(files(['read', 'last'])).toEqual({ 'cli-read.cjs': 'cli-read.cjs.bin' });
    expect(files(['jq', 'last', '. + {}'])).toEqual({ 'cli-jq.cjs': 'cli-jq.cjs.bin', 'jq/jq.cjs': 'jq-jq.cjs.bin' });
    expect(files(['ls'])).toEqual({ 'cli.cjs': 'cli.cjs.bin' });
    expect(files(['--help'])).toEqual({ 'cli.cjs': 'cli.cjs.bin' });
    expect(files(['-V', 'x'])).toEqual({ 'cli.cjs': 'cli.cjs.bin' });
    const size = (f: string) => statSync(join(ROOT, 'dist', f)).size;
    for (const command of ['offload', 'read', 'grep', 'jq', 'where', 'count', 'cat', 'info']) {
      expect(size(`cli-${command}.cjs`), command).toBeLessThan(size('cli.cjs') * 0.6);
      expect(size(`code-cache/cli-${command}.cjs.bin`), command).toBeLessThan(size('code-cache/cli.cjs.bin') * 0.6);
    }
  });

  it("is taken by the S3 worker as lro starts it (bin/s3-worker.js), the AWS SDK bundled in it", () => {
    // (store/s3-sync.ts starts that entry; compiling the SDK anew was about 70 ms of a remote `lro read`)
    const reporter = join(root, 'report-worker.cjs');
    writeFileSync(
      reporter,
      `const c = require(${JSON.stringify(join(BIN, '..', 'code-cache.js'))});
       setImmediate(() => require('node:worker_threads').parentPort.postMessage(Object.fromEntries([...c.loaded].map(([k, v]) => [k, v.accepted]))));`,
    );
    const main = `const { MessageChannel, Worker } = require('node:worker_threads');
      const { port2 } = new MessageChannel();
      const options = { workerData: { port: port2 }, transferList: [port2], execArgv: ['-r', ${JSON.stringify(reporter)}] };
      new Worker(${JSON.stringify(join(BIN, '..', 's3-worker.js'))}, options).once('message', (m) => {
        console.log(JSON.stringify(m));
        process.exit(0);
      });`;
    const r = spawnSync(process.execPath, ['-e', main], { encoding: 'utf8', timeout: 30_000 });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ 's3-worker.cjs': true });
    expect(readFileSync(join(ROOT, 'dist/s3-worker.cjs'), 'utf8')).toContain('ListObjectsV2Command');
  });

  it('is not read for lro --version, which loads no bundle', () => {
    const r = run(BIN, 'version', ['--version']);
    expect(r.code).toBe(0);
    expect(r.out).toBe(`${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}\n`);
    expect(r.cache).toEqual({});
  });

  it('is refused when its bundle changed, and lro works the same', () => {
    // a copy of the build whose bundles are no longer what their caches were made from
    const copy = join(root, 'copy');
    cpSync(join(ROOT, 'bin'), join(copy, 'bin'), { recursive: true });
    cpSync(join(ROOT, 'dist'), join(copy, 'dist'), { recursive: true });
    for (const b of ['cli.cjs', 'cli-offload.cjs', 'cli-jq.cjs']) {
      appendFileSync(join(copy, 'dist', b), '\n// changed\n');
    }
    appendFileSync(join(copy, 'dist/jq/jq.cjs'), '\n// changed\n');
    const bin = join(copy, 'bin/lro.js');

    const args = ['offload', '--force', '--descriptor', 'text'];
    const refused = run(bin, 'refused', args, LOG.toString('latin1'));
    const taken = run(BIN, 'main', args, LOG.toString('latin1'));
    expect(refused.code).toBe(0);
    expect(refused.cache).toEqual({ 'cli-offload.cjs': false });
    expect(taken.cache).toEqual({ 'cli-offload.cjs': true });
    const id = (out: string) => /stored as (\w+)/.exec(out)![1];
    const plain = (out: string, store: string) =>
      out.replaceAll(id(out), 'ID').replaceAll(join(root, store), 'STORE').replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME');
    expect(plain(refused.out, 'refused')).toBe(plain(taken.out, 'main'));

    const filter = ['jq', 'last', '-r', 'select(test("Failed password for root")) | .[0:15]'];
    const jqRefused = run(bin, 'refused', filter);
    expect(jqRefused.cache).toEqual({ 'cli-jq.cjs': false, 'jq/jq.cjs': false });
    expect(jqRefused.code).toBe(0);
    expect(jqRefused.out.split('\n').length).toBeGreaterThan(10);
    const jqTaken = run(BIN, 'main', filter);
    expect(jqRefused.out.replaceAll(id(refused.out), 'ID')).toBe(jqTaken.out.replaceAll(id(taken.out), 'ID'));
  });
});
