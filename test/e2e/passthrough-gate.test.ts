// End-to-end: bin/passthrough.js, which passes a small input piped to `lro offload` through before any bundle is
// read, is the bundle's exact twin. Every case runs twice, through bin/lro.js and through the offload's bundle
// alone (what bin/lro.js ran before the gate), and wants the same stdout bytes, stderr, exit code and store:
// inputs around the threshold and far over it, bytes that are not text, every LRO_* variable the offload reads
// (set, empty, malformed), options, stdin as a pipe, a file, a device and a non-blocking pipe, and stdout full
// or closed. Then random inputs near the threshold, the same way.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanup, tempDir } from '../helpers/cli.js';
import { DEFAULT_THRESHOLD } from '../../src/offload-input.js';
import { BOUND_BYTES } from '../../src/offload.js';
import { seeded } from '../helpers/seeded.js';

const ROOT = resolve(__dirname, '../..');
let root: string;
let alone: string;
let runs = 0;
beforeAll(() => {
  root = tempDir();
  // the bundle bin/lro.js loads for the command, run as bin/lro.js ran it before the gate
  alone = join(root, 'alone.cjs');
  writeFileSync(
    alone,
    `const c = require(${JSON.stringify(join(ROOT, 'bin/code-cache.js'))}); c.install();
require(${JSON.stringify(join(ROOT, 'dist'))} + '/' + c.bundleOf(c.commandOf(process.argv.slice(2)))).run();\n`,
  );
});
afterAll(() => cleanup(root));

interface Case {
  args?: string[];
  input?: Buffer | string;
  env?: Record<string, string>;
  /** stdin: 'pipe' (default), 'file' (the input as a regular file), 'null' (/dev/null), 'nonblocking' (a pipe made so, the input written late) */
  stdin?: 'pipe' | 'file' | 'null' | 'nonblocking';
  /** stdout: 'pipe' (default), 'full' (/dev/full), 'closed' (a pipe whose reader has gone) */
  stdout?: 'pipe' | 'full' | 'closed';
}

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
  stored: number;
}

/** Runs `script` (bin/lro.js or the bundle alone) on a case, with a store of its own. */
async function runCase(script: string, c: Case): Promise<Outcome> {
  const dir = join(root, `store-${runs++}`);
  const env: Record<string, string> = { PATH: process.env.PATH!, HOME: process.env.HOME!, NO_COLOR: '1', LRO_DIR: dir, ...c.env };
  const input = Buffer.from(c.input ?? '');
  let argv = [process.execPath, script, ...(c.args ?? [])];
  let stdin: 'pipe' | number = 'pipe';
  if (c.stdin === 'file') {
    const file = join(root, `in-${runs}`);
    writeFileSync(file, input);
    stdin = openSync(file, 'r');
  } else if (c.stdin === 'null') stdin = openSync('/dev/null', 'r');
  else if (c.stdin === 'nonblocking') {
    // perl makes its stdin (the pipe from this process) non-blocking, then runs lro in its place
    argv = ['perl', '-MFcntl', '-e', 'fcntl(STDIN, F_SETFL, fcntl(STDIN, F_GETFL, 0) | O_NONBLOCK) or die; exec @ARGV or die', ...argv];
  }
  if (c.stdout === 'closed') argv = ['bash', '-c', '"$@" | true; exit "${PIPESTATUS[0]}"', 'bash', ...argv];
  const stdout = c.stdout === 'full' ? openSync('/dev/full', 'w') : 'pipe';
  const child = spawn(argv[0], argv.slice(1), { env, stdio: [stdin, stdout, 'pipe'] });
  if (typeof stdin === 'number') closeSync(stdin);
  if (typeof stdout === 'number') closeSync(stdout);
  const out: Buffer[] = [];
  let stderr = '';
  child.stdout?.on('data', (b: Buffer) => out.push(b));
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
  if (child.stdin) {
    child.stdin.on('error', () => undefined);
    if (c.stdin === 'nonblocking') setTimeout(() => child.stdin!.end(input), 300);
    else child.stdin.end(input);
  }
  const code = await new Promise<number | null>((done) => child.on('close', done));
  let stored = 0;
  try {
    stored = readdirSync(dir).filter((n) => n.endsWith('.jsonl')).length;
  } catch {
    // no store made
  }
  const text = Buffer.concat(out).toString('latin1').replaceAll(dir, 'STORE');
  // a stored result's descriptor names its id, path and times: kept apart from the bytes compared
  stderr = stderr.replaceAll(dir, 'STORE');
  return { code, stdout: stored ? text.replace(/"(id|file_path|created_at|expires_at|path)":"[^"]*"/g, '"$1":…').replace(/\b[0-9A-HJKMNP-TV-Z]{26}\b/g, 'ID') : text, stderr, stored };
}

async function twins(c: Case): Promise<Outcome> {
  const [gated, bundle] = await Promise.all([runCase(BIN, c), runCase(alone, c)]);
  expect(gated, JSON.stringify({ ...c, input: String(c.input ?? '').slice(0, 80) })).toEqual(bundle);
  return gated;
}

const T = DEFAULT_THRESHOLD;
const LOG = readFileSync(join(ROOT, 'fixtures/corpus/loghub/OpenSSH_2k.log'), 'latin1');
const lines = (bytes: number) => 'x'.repeat(bytes - 1) + '\n';
const words = (bytes: number) => Array.from({ length: bytes }, (_, i) => (i % 7 === 6 ? ' ' : 'abcdefghij'[i % 10])).join('');

describe('bin/passthrough.js is the offload bundle’s twin', () => {
  it('agrees with the offload bundle on the threshold it copies', async () => {
    const { DEFAULT_THRESHOLD: copied, BOUND_BYTES: bound, SETTINGS } = await import('../../bin/passthrough.js' as string);
    expect(copied).toBe(DEFAULT_THRESHOLD);
    expect(bound).toBe(BOUND_BYTES);
    // every LRO_* variable the offload's settings read is one the gate hands on
    const { readFileSync } = await import('node:fs');
    const read = new Set(readFileSync(join(ROOT, 'src/offload-settings.ts'), 'utf8').match(/LRO_[A-Z_]+(?=')/g));
    expect([...read].sort()).toEqual([...SETTINGS].sort());
  });

  const inputs: [string, Buffer | string][] = [
    ['nothing', ''],
    ['one line', 'hi\n'],
    ['no last newline', 'abc'],
    ['CRLF lines', 'a\r\nb\r\n'],
    ['NUL and invalid UTF-8', Buffer.from([0, 0xff, 0xfe, 0x0a, 0xc3, 0x28, 0x41])],
    ['a small JSON document', '{"a":[1,2,3],"b":"x"}\n'],
    ['threshold - 1 bytes', lines(T - 1)],
    ['threshold bytes', lines(T)],
    ['threshold + 1 bytes (the bound decides)', words(T + 1)],
    ['3 thresholds of words', words(3 * T)],
    ['3 thresholds of words and a byte (counted by the bundle)', words(3 * T + 1)],
    ['9 KB of log lines (the bound passes them)', LOG.slice(0, 9000).replace(/[^\n]*$/, '')],
    ['19,200 bytes of log lines (stored: over the bound and the count)', LOG.slice(0, 3 * T)],
    ['8 KB of text outside ASCII, few tokens (counted by the bundle)', 'café au lait\n'.repeat(620)],
    ['8 KB with NUL and invalid UTF-8', Buffer.concat([Buffer.from(words(8000)), Buffer.from([0, 0xff, 0xc3, 0x28, 0x0a])])],
    ['over a pipe of 64 KB of words (stored)', words(70_000)],
    // a byte a token: 49 bytes over the threshold are over it in tokens too (a gate a little too wide fails here)
    ['threshold + 49 bytes, a token each (stored)', Array.from({ length: (T + 48) / 2 }, (_, i) => '.,;:!?'[i % 6] + String(i % 10)).join('') + '\n'],
    ['threshold + 1 characters of 3 bytes (stored)', Array.from({ length: T + 1 }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20000))).join('')],
  ];
  for (const [name, input] of inputs) {
    it(`${name}: piped to lro offload, and to lro alone`, async () => {
      await twins({ args: ['offload'], input });
      await twins({ args: [], input });
    });
  }

  it('every LRO_* setting of the offload, set, empty and malformed', async () => {
    const small = 'hi there\n';
    for (const env of <Record<string, string>[]>[
      { LRO_THRESHOLD_TOKENS: '' },
      { LRO_THRESHOLD_TOKENS: '2' },
      { LRO_THRESHOLD_TOKENS: 'lots' },
      { LRO_TTL: '' },
      { LRO_TTL: '1h' },
      { LRO_TTL: 'soon' },
      { LRO_SESSION: 'build-1' },
      { LRO_SESSION: '../x' },
      { LRO_REDACT: '0' },
      { LRO_REDACT: 'maybe' },
      { LRO_DIR: '/dev/null/x' },
      { LRO_DEBUG: '1' },
    ]) {
      await twins({ args: ['offload'], input: small, env });
    }
    // a secret in a small output: redacted when asked
    await twins({ args: ['offload'], input: 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n', env: { LRO_REDACT: '1' } });
  });

  it('options and other words', async () => {
    for (const args of [['offload', '--json'], ['offload', '--threshold', '1'], ['--force'], ['offload', '--'], ['offload', '--bogus'], ['offload', 'extra']]) {
      await twins({ args, input: 'hi\n' });
    }
  });

  it('stdin a file, a device, a non-blocking pipe', async () => {
    await twins({ args: ['offload'], input: 'from a file\n', stdin: 'file' });
    await twins({ args: ['offload'], input: lines(T + 1), stdin: 'file' });
    await twins({ args: ['offload'], stdin: 'null' });
    await twins({ args: [], stdin: 'null' });
    const late = await twins({ args: ['offload'], input: 'written late\n', stdin: 'nonblocking' });
    expect(late.stdout).toBe('written late\n');
  });

  it('stdout full or closed', async () => {
    const full = await twins({ args: ['offload'], input: 'hi\n', stdout: 'full' });
    expect(full.code).toBe(2);
    expect(full.stderr).toMatch(/^lro: ENOSPC: /);
    const closed = await twins({ args: ['offload'], input: 'hi\n', stdout: 'closed' });
    expect(closed).toMatchObject({ code: 0, stderr: '' });
  });

  it('random inputs of 1 to 3 thresholds of bytes, dense and sparse in tokens: passed by the bound, or not', async () => {
    // words of 1 to 12 letters: a log's density and sparser and denser; what the bound passes the gate passes
    const draw = seeded(11);
    const outcomes = new Set<string>();
    for (let round = 0; round < 14; round++) {
      const size = T + draw.below(2 * T + 64);
      const longest = 1 + draw.below(12);
      let text = '';
      while (text.length < size) text += 'etaoinshrdlucmfw'.slice(0, 1 + draw.below(longest)) + (draw.below(9) === 0 ? '\n' : ' ');
      const o = await twins({ args: draw.below(2) ? ['offload'] : [], input: text.slice(0, size) });
      outcomes.add(o.stored ? 'stored' : 'passed');
    }
    expect([...outcomes].sort()).toEqual(['passed', 'stored']);
  });

  it('random inputs near the threshold', async () => {
    const rand = seeded(7).unit;
    for (let round = 0; round < 16; round++) {
      const size = Math.floor(T - 64 + rand() * 128);
      const bytes = Buffer.alloc(size);
      for (let i = 0; i < size; i++) bytes[i] = rand() < 0.05 ? 0x0a : rand() < 0.02 ? Math.floor(rand() * 256) : 0x20 + Math.floor(rand() * 95);
      await twins({ args: rand() < 0.5 ? ['offload'] : [], input: bytes });
    }
  });
});
