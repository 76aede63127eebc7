// The end-to-end tests in real agent harnesses (test/harness/): each installs a pinned harness into a cache folder
// outside the repo on first use and drives it with a scripted model. Heavier than `npm test`: `npm run test:harness`.
import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { viteWatPlugin } from './scripts/wat.mjs';
import { viteHelpPlugin } from './scripts/docs-help.mjs';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  plugins: [viteWatPlugin, viteHelpPlugin],
  define: { __LRO_VERSION__: JSON.stringify(pkg.version) },
  test: {
    include: ['test/harness/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 900_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
