// A dedupe claim is held only while a result is committed: one older than CLAIM_STALE_MS is stale whatever the
// pid written in it says (that pid may belong to another process by now).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLAIM_STALE_MS, claimHolderMayBeAlive } from '../../src/store/dedupe.js';
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
