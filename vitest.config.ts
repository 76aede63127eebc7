import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { viteWatPlugin } from './scripts/wat.mjs';
import { viteHelpPlugin } from './scripts/docs-help.mjs';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  // `import KERNEL from './x.wat'` in src/: the kernel's source, assembled as the build does (scripts/wat.mjs);
  // `import GREP_HELP from 'help:grep'`: the summary of lro grep --help, from docs/commands.md (scripts/docs-help.mjs)
  plugins: [viteWatPlugin, viteHelpPlugin],
  define: { __LRO_VERSION__: JSON.stringify(pkg.version) },
  test: {
    include: ['test/**/*.test.ts'],
    // real harnesses, installed into a cache on first use: npm run test:harness (vitest.harness.config.ts)
    exclude: ['test/harness/**', '**/node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // one process per worker for all its files, not a new one per file: on 2 cores that start-up (half a second of
    // CPU per file) was a tenth of the suite's time; no test changes what another depends on (env, globals, mocks)
    isolate: false,
    // Vitest's default on a 2-core machine is one file at a time; an end-to-end file mostly waits on the lro process
    // it started, so three at once keep both cores busy (`npm run test:soak` takes one: its files start many at once).
    maxWorkers: 3,
    // `npm test` runs every test but the soak (--tags-filter='!soak'); `npm run test:soak` runs the soak, and CI
    // runs both. A file or a test runs alone whatever its tags: npx vitest run test/torture/crash.test.ts.
    tags: [
      {
        name: 'soak',
        description:
          'Long runs: hundreds of lro processes (the torture suite, every corpus file, following every page of a long result, sweeps over more inputs than the ones npm test keeps) or many racing at once.',
        // What a soak test times is whether it finishes at all: each lro process it starts has its own bound (60 s,
        // helpers/cli.ts), and hundreds of them one after another, or 200 at once, take minutes on a loaded 2-core
        // machine (past the 60 s a test gets, which is how a torture test timed out under load).
        // bench/soak.sh turns the cases up and the limit with them (LRO_SOAK_TIMEOUT_MS).
        timeout: Number(process.env.LRO_SOAK_TIMEOUT_MS ?? 600_000),
      },
    ],
  },
});
