// The descriptor of a large text input, analysed in the worker thread beside the encoding, is the one the analysis
// gave before it was split between the threads for speed (issue 25, item 4): every figure, preview and template,
// the token estimate and the hash, byte for byte. The expected descriptor (fixtures/descriptors/big-text.json)
// was made by the build before the split; to make it again after a change that is meant to change it, run this
// file with LRO_WRITE_GOLDEN=1 and say why in the commit.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cleanup, tempDir } from '../helpers/cli.js';

const ROOT = resolve(__dirname, '../..');
const GOLDEN = join(ROOT, 'fixtures/descriptors/big-text.json');
const root = tempDir();
afterAll(() => cleanup(root));

/**
 * About 6 MB of logs (the loghub fixtures three times), with lines a terminal redraws (colours, a carriage
 * return) and likely secrets among them: past the exact token count (1 MB) and the head, so sampled and analysed
 * in the worker.
 */
function bigText(): Buffer {
  const dir = join(ROOT, 'fixtures/corpus/loghub');
  const logs = readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .sort()
    .map((f) => readFileSync(join(dir, f), 'latin1').replace(/\r\n/g, '\n'));
  const noise = [
    '\x1b[31mERROR\x1b[0m connection refused by upstream 10.0.0.7:5432',
    'progress 10%\rprogress 100%',
    `token ghp_${'x7Kq2mZ9'.repeat(4)}Ab1c in the environment`,
  ].join('\n');
  return Buffer.from([noise, ...logs, noise, ...logs, noise, ...logs].join('\n'), 'latin1');
}

/** The descriptor without what differs between two offloads of the same input (id, path, times). */
function comparable(out: string, store: string): unknown {
  const id = (JSON.parse(out) as { id: string }).id;
  const plain = out
    .replaceAll(id, 'ID')
    .replaceAll(store, 'STORE')
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME')
    .replace(/"head":"[A-Za-z0-9+/]{16}"/, '"head":"SEAL"'); // line 1's own hash: of its id and times too
  return JSON.parse(plain);
}

/** Offloads `input` from a file as stdin (read in the same chunks every time: a pipe's depend on timing). */
function offloadFile(input: string, store: string, nodeArgs: string[] = []) {
  const fd = openSync(input, 'r');
  const r = spawnSync(process.execPath, [...nodeArgs, BIN, 'offload', '--no-dedupe'], {
    stdio: [fd, 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', LRO_DIR: store },
    encoding: 'utf8',
  });
  closeSync(fd);
  return r;
}

describe('the descriptor of a large text input', () => {
  const input = join(root, 'big.log');
  writeFileSync(input, bigText());

  it('is the one the analysis gave before it was split between the threads', () => {
    const store = join(root, 'store');
    // the token estimate samples fixed places of the input (tokens/token-meter.ts): however its reads were cut
    const r = offloadFile(input, store);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    // the stored result's header too: the hash, and the statistics lro info and lro count read again
    const file = (JSON.parse(r.stdout) as { file_path: string }).file_path;
    const stored = readFileSync(file, 'utf8');
    const header = stored.slice(0, stored.indexOf('\n'));
    const got = { descriptor: comparable(r.stdout, store), header: comparable(header, store) };
    if (process.env.LRO_WRITE_GOLDEN) {
      mkdirSync(join(GOLDEN, '..'), { recursive: true });
      writeFileSync(GOLDEN, `${JSON.stringify(got, null, 2)}\n`);
    }
    expect(got).toEqual(JSON.parse(readFileSync(GOLDEN, 'utf8')));
  });

  it('is analysed by a worker that leaves the tokens to the main thread', () => {
    // the worker was the critical path of a text offload, and the token count a third of its work: it now runs on
    // the main thread, and the worker never loads the tokenizer's rank table (a preloaded module, run in every
    // thread, reports which thread opens it)
    const reporter = join(root, 'report-ranks.cjs');
    writeFileSync(
      reporter,
      `const fs = require('node:fs');
       const { isMainThread } = require('node:worker_threads');
       const open = fs.openSync;
       fs.openSync = function (path, ...rest) {
         if (String(path).includes('ranks')) fs.writeSync(2, (isMainThread ? 'main' : 'worker') + ' opens ranks\\n');
         return open.call(this, path, ...rest);
       };`,
    );
    const r = offloadFile(input, join(root, 'store-ranks'), ['-r', reporter]);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('main opens ranks');
    expect(r.stderr).not.toContain('worker opens ranks');
    type Golden = { descriptor: { summary: { estimated_tokens: number } } };
    const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Golden;
    expect(JSON.parse(r.stdout).summary.estimated_tokens).toBe(golden.descriptor.summary.estimated_tokens);
  });
});
