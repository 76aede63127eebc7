// Whether a temporary file's writer is still at work: the file open in the process its name gives (the lock a
// writer holds from creation to rename), not merely a live pid, which may have been reused.
import { spawn } from 'node:child_process';
import { closeSync, openSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ulid } from 'ulid';
import { holdsOpen, MAX_UNTOUCHED_MS, writerMayBeAlive } from '../../src/store/writers.js';
import { cleanup, tempDir } from '../helpers/cli.js';

const root = tempDir('lro-writers-');
afterAll(() => cleanup(root));
const linux = process.platform === 'linux';

function file(name: string) {
  const path = join(root, name);
  writeFileSync(path, 'partial');
  const st = statSync(path);
  return { path, facts: { dev: st.dev, ino: st.ino, mtimeMs: st.mtimeMs } };
}

describe('holdsOpen', () => {
  it.runIf(linux)('is true while the process has the file open, false once it closed it', () => {
    const { path, facts } = file('held');
    const fd = openSync(path, 'r');
    expect(holdsOpen(process.pid, facts)).toBe(true);
    closeSync(fd);
    expect(holdsOpen(process.pid, facts)).toBe(false);
  });
});

describe('writerMayBeAlive', () => {
  it.runIf(linux)('is false for a live pid that started before the id but does not hold the file (a reused pid)', async () => {
    const sleeper = spawn('sleep', ['30']);
    try {
      await new Promise((r) => sleeper.once('spawn', r));
      const name = `.lro-${ulid(Date.now() + 5_000)}-write-${sleeper.pid}-0.tmp`;
      const { facts } = file(name);
      expect(writerMayBeAlive(name, facts, Date.now())).toBe(false);
      const mine = `.lro-${ulid()}-write-${process.pid}-1.tmp`;
      const held = file(mine);
      const fd = openSync(held.path, 'r');
      expect(writerMayBeAlive(mine, held.facts, Date.now() + 3 * 3600_000)).toBe(true);
      closeSync(fd);
      expect(writerMayBeAlive(mine, held.facts, Date.now())).toBe(false);
    } finally {
      sleeper.kill();
    }
  });

  it('is false for a pid no process has, whatever the age', () => {
    const name = `.lro-${ulid()}-write-99999999-0.tmp`;
    const { facts } = file(name);
    expect(writerMayBeAlive(name, facts, Date.now())).toBe(false);
    expect(MAX_UNTOUCHED_MS).toBeGreaterThan(24 * 3600_000);
  });
});
