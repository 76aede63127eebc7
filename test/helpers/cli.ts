// Runs the built `lro` binary as a user would: a child process with its own store, stdin, env and exit code.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const BIN = resolve(__dirname, '../../bin/lro.js');

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
  /** stdout as UTF-8 text */
  out: string;
}

export interface RunOptions {
  input?: Buffer | string;
  env?: Record<string, string | undefined>;
  timeout?: number;
  uid?: number;
  gid?: number;
  /** The working folder (default: the test runner's). */
  cwd?: string;
  /** Run through `bash -c` with this prefix before exec (e.g. `ulimit -f 100;`). */
  shellPrefix?: string;
  /** Options for node itself, before the script (e.g. `--import` a module tracer). */
  nodeArgs?: string[];
}

/** The environment lro runs with in a test: PATH, HOME and NO_COLOR, then `extra` (undefined: removed). */
export function lroEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1' };
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** Runs lro with args; never rejects on a non-zero exit. */
export function lro(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const env = lroEnv(opts.env);
  const [cmd, argv] = opts.shellPrefix
    ? ['bash', ['--norc', '--noprofile', '-c', `${opts.shellPrefix} exec "${process.execPath}" "$@"`, 'bash', ...(opts.nodeArgs ?? []), BIN, ...args]]
    : [process.execPath, [...(opts.nodeArgs ?? []), BIN, ...args]];
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, argv, { env, cwd: opts.cwd, uid: opts.uid, gid: opts.gid, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeout ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stdout = Buffer.concat(out);
      resolvePromise({ code, signal, stdout, stderr: Buffer.concat(err).toString('utf8'), out: stdout.toString('utf8') });
    });
    child.stdin.on('error', () => undefined); // lro may exit before reading everything
    if (opts.input !== undefined) child.stdin.end(opts.input);
    else child.stdin.end();
  });
}

/** A fresh temporary directory; the store inside it (`<tmp>/store`) does not exist yet. */
export function tempDir(prefix = 'lro-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * A temporary folder with a store and a bin/ whose `lro` is the built one, and the env that uses both: for tests
 * that run an lro command as lro printed it (`--explain`, a descriptor's next command) through a shell.
 */
export function storeOnPath(extra: Record<string, string> = {}): { root: string; env: Record<string, string> } {
  const root = tempDir();
  mkdirSync(join(root, 'bin'));
  symlinkSync(BIN, join(root, 'bin', 'lro'));
  return { root, env: { LRO_DIR: join(root, 'store'), PATH: `${join(root, 'bin')}:${process.env.PATH}`, ...extra } };
}

/** Names in a directory (empty when it does not exist). */
export function ls(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

export function cleanup(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** A store for one test file: env with LRO_DIR set. */
export function storeEnv(root: string): { LRO_DIR: string } {
  return { LRO_DIR: join(root, 'store') };
}

/**
 * A store of a test file's own, made before its tests and removed after them: `files.root` is its folder,
 * `files.env` sets LRO_DIR to the store in it.
 */
export function storeForFile(): { root: string; env: { LRO_DIR: string } } {
  const files = { root: '', env: { LRO_DIR: '' } };
  beforeAll(() => {
    files.root = tempDir();
    files.env = storeEnv(files.root);
  });
  afterAll(() => cleanup(files.root));
  return files;
}
