// A dedupe claim is held only while a result is committed: one older than CLAIM_STALE_MS is stale whatever the
// pid written in it says (that pid may belong to another process by now).
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLAIM_STALE_MS, CLAIM_WRITING_MS, claimHolderMayBeAlive, takeClaim } from '../../src/store/dedupe.js';
import { claimFileName } from '../../src/format/naming.js';
import { cleanup, tempDir } from '../helpers/cli.js';

const root = tempDir('lro-dedupe-');
afterAll(() => cleanup(root));

describe('claimHolderMayBeAlive', () => {
  it('is true for a fresh claim of a live process, false once it is older than CLAIM_STALE_MS, false for a dead pid', () => {
    const live = join(root, 'live.claim');
    writeFileSync(live, `${process.pid}\n`);
    const now = Date.now();
    expect(claimHolderMayBeAlive(live, now - 1000, now)).toBe(true);
    // pid 1 has run since boot, so it passes the check that catches a pid reused after the claim was made
    const old = join(root, 'old.claim');
    writeFileSync(old, '1\n');
    expect(CLAIM_STALE_MS).toBeLessThanOrEqual(20 * 60_000);
    expect(claimHolderMayBeAlive(old, now - 1000, now)).toBe(true);
    expect(claimHolderMayBeAlive(old, now - 20 * 60_000 - 1000, now)).toBe(false);
    const dead = join(root, 'dead.claim');
    writeFileSync(dead, '999999999\n');
    expect(claimHolderMayBeAlive(dead, now - 1000, now)).toBe(false);
  });
});

// A claim is created (O_EXCL) before its pid is written in it. Another writer reading it in between saw no pid,
// took its holder for dead and broke it, and both stored the same output: two ids for one output (a CI run).
describe('a claim whose pid is not written yet', () => {
  it('is held by a live writer until CLAIM_WRITING_MS, then stale', () => {
    const empty = join(root, 'empty.claim');
    writeFileSync(empty, '');
    const now = Date.now();
    expect(claimHolderMayBeAlive(empty, now - 5, now)).toBe(true);
    expect(claimHolderMayBeAlive(empty, now - CLAIM_WRITING_MS - 1000, now)).toBe(false);
  });

  it('is waited for, not broken, by the next writer', async () => {
    const key = 'a'.repeat(64);
    const path = join(root, claimFileName(key));
    writeFileSync(path, '');
    expect(await takeClaim(root, key, 60)).toBeNull(); // waited its time, then stores without the claim
    expect(existsSync(path)).toBe(true);
  });
});
