// Where this lro's own files are: bin/ holds lro.js, the shell prefix and the hook, which harness settings name by
// absolute path.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's bin/ folder (next to dist/ when built, two floors up from src/harness/ in tests). */
export function binDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const candidate of [resolve(here, '../bin'), resolve(here, '../../bin')]) {
    if (existsSync(join(candidate, 'lro-shell-prefix'))) return candidate;
  }
  return resolve(here, '../bin');
}
