// End-to-end: lro's stdout is a pipe that another process made non-blocking, and its reader is slow. lro writes a
// pipe or a file with writeSync (src/io.ts fdOutput); on such a pipe that fails with EAGAIN once the pipe is full,
// and lro hands the rest to Node's stream, which waits for the reader. Every byte must arrive, in order, as through
// an ordinary pipe. (Checked: with the rest of the chunk dropped at EAGAIN, all three tests fail.)
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanup, lro, tempDir } from '../helpers/cli.js';
import { corpusFile } from '../helpers/corpus.js';

let root: string;
let env: Record<string, string>;
let id: string;
let fifos = 0;
beforeAll(async () => {
  root = tempDir();
  env = { PATH: process.env.PATH!, HOME: process.env.HOME!, LRO_DIR: join(root, 'store'), NO_COLOR: '1' };
  // 1.1 MB of log lines: many times what a pipe holds (64 KB)
  const log = readFileSync(corpusFile('loghub/Android_2k.log'), 'utf8');
  const r = await lro(['offload', '--force'], { input: log.repeat(3), env });
  expect(r.code, r.stderr).toBe(0);
  id = JSON.parse(r.out).id;
  // a store of 1,000 small results, copies of one (bench/make-store.mjs), for ls: its batches reuse their
  // buffers, so what is left at EAGAIN goes on only once the stream is done with it (io.ts writeSettled)
  const one = await lro(['offload', '--force'], { input: 'one line\n', env: { ...env, LRO_DIR: join(root, 'one') } });
  const made = spawnSync(process.execPath, [join(__dirname, '../../bench/make-store.mjs'), JSON.parse(one.out).file_path, '1000', join(root, 'many')]);
  expect(made.status, made.stderr.toString()).toBe(0);
});
afterAll(() => cleanup(root));

/** perl: makes stdout non-blocking, then runs its arguments in its place. */
const NONBLOCKING_STDOUT = 'fcntl(STDOUT, F_SETFL, fcntl(STDOUT, F_GETFL, 0) | O_NONBLOCK) or die "fcntl: $!"; exec @ARGV or die "exec: $!"';

/**
 * Runs lro with stdout a non-blocking FIFO, read by `cat` only after `delay` seconds; returns what cat read and
 * lro's exit code and stderr.
 */
async function throughNonBlockingPipe(args: string[], delay = 0.5): Promise<{ out: Buffer; code: number | null; stderr: string }> {
  const fifo = join(root, `fifo-${fifos++}`);
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  // a reader must exist before a non-blocking writer can open a FIFO; this one never reads
  const held = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
  // the reader opens the FIFO now (a writer is open, so the open does not wait) and reads only after the delay
  const reader = spawn('bash', ['-c', `exec 3<"$0"; sleep ${delay}; exec cat <&3`, fifo], { stdio: ['ignore', 'pipe', 'inherit'] });
  const chunks: Buffer[] = [];
  reader.stdout.on('data', (b: Buffer) => chunks.push(b));
  // cat reads until lro's end closes (it may finish before lro's own close event)
  const read = new Promise((done) => reader.on('close', done));
  // node (libuv) makes a child's stdio blocking as it starts it, and the flag is the open file's: perl sets it
  // again on lro's stdout, then runs lro in its place
  const child = spawn('perl', ['-MFcntl', '-e', NONBLOCKING_STDOUT, process.execPath, BIN, ...args], { env, stdio: ['ignore', writer, 'pipe'] });
  closeSync(writer);
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
  const code = await new Promise<number | null>((done) => child.on('close', done));
  await read;
  closeSync(held);
  return { out: Buffer.concat(chunks), code, stderr };
}

describe('stdout a non-blocking pipe with a slow reader', () => {
  it('lro ls --json and lro ls (1,000 results): every byte, in order, as through an ordinary pipe', async () => {
    for (const args of [['ls', '--json', '--max-tokens', '0'], ['ls', '--max-tokens', '0']]) {
      const many = { ...env, LRO_DIR: join(root, 'many') };
      const expected = await lro(args, { env: many });
      expect(expected.code, expected.stderr).toBe(0);
      expect(expected.stdout.length).toBeGreaterThan(65536);
      const saved = env;
      env = many;
      const r = await throughNonBlockingPipe(args).finally(() => (env = saved));
      expect([r.code, r.stderr]).toEqual([0, '']);
      expect(r.out.equals(expected.stdout)).toBe(true);
    }
  });

  for (const args of [
    (i: string) => ['cat', i],
    (i: string) => ['read', i, '--max-tokens', '0'],
    (i: string) => ['grep', i, 'ActivityManager', '--max-tokens', '0'],
  ]) {
    it(`lro ${args('ID').join(' ')}: every byte, in order, as through an ordinary pipe`, async () => {
      const expected = await lro(args(id), { env });
      expect(expected.code, expected.stderr).toBe(0);
      expect(expected.stdout.length).toBeGreaterThan(65536); // more than the pipe holds
      const r = await throughNonBlockingPipe(args(id));
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.out.length).toBe(expected.stdout.length);
      expect(r.out.equals(expected.stdout)).toBe(true);
    });
  }
});
