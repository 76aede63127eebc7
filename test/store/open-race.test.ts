// Several lro commands started at once on a new store make its folders together: a level another process made
// between this one's look and its mkdir (EEXIST) is taken as made. Before, the command failed with "cannot create
// the store" (seen in CI: three readers of a new S3 store's cache at once). The race is made certain here: the
// look says "missing" for a parent that is there.
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { cleanup, tempDir } from '../helpers/cli.js';

const lying = new Set<string>();
vi.mock('node:fs', async (original) => {
  const fs = await original<typeof import('node:fs')>();
  return { ...fs, existsSync: (p: string) => !lying.has(String(p)) && fs.existsSync(p) };
});
const { openStore } = await import('../../src/store/dir.js');

const root = tempDir();
afterAll(() => cleanup(root));

describe('openStore', () => {
  it('takes a folder another process made meanwhile as made, at every level', () => {
    const made = join(root, 'a', 'b');
    mkdirSync(made, { recursive: true, mode: 0o700 });
    // the parents look missing, as they were when this process looked, though another has made them since
    for (const p of [join(root, 'a'), made]) lying.add(p);
    const store = openStore(join(made, 'store'));
    expect(store.dir).toBe(join(made, 'store'));
    expect(statSync(store.dir).mode & 0o777).toBe(0o700);
  });
});
