// Where the built worker entry is (dist/worker.js, next to the bundle); null when running from sources.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function workerScript(): string | null {
  const script = fileURLToPath(new URL('./worker.cjs', import.meta.url));
  return existsSync(script) ? script : null;
}
