import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { viteWatPlugin } from './scripts/wat.mjs';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  // `import KERNEL from './x.wat'` in src/: the kernel's source, assembled as the build does (scripts/wat.mjs)
  plugins: [viteWatPlugin],
  define: { __LRO_VERSION__: JSON.stringify(pkg.version) },
  test: {
    include: ['test/**/*.test.ts'],
    // real harnesses, installed into a cache on first use: npm run test:harness (vitest.harness.config.ts)
    exclude: ['test/harness/**', '**/node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
