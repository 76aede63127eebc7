// The WebAssembly kernels (src/**/*.wat): a source assembled with wabt, as base64, what a TypeScript module gets
// from `import KERNEL from './x.wat'` (scripts/wat.mjs); and the modules the built bundles carry (as base64 too).
import { readFileSync, readdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import wabt from 'wabt';

const ROOT = resolve(__dirname, '../..');

/** src/<path> assembled (features: wabt's, e.g. { simd: true }), as base64. */
export async function assembledWat(path: string, features: Record<string, boolean> = {}): Promise<string> {
  const source = readFileSync(join(ROOT, 'src', path), 'utf8');
  const w = await wabt();
  return Buffer.from(w.parseWat(basename(path), source, features).toBinary({}).buffer).toString('base64');
}

/** The .wat files of src/, relative to it. */
export function watSources(): string[] {
  return (readdirSync(join(ROOT, 'src'), { recursive: true }) as string[]).filter((p) => p.endsWith('.wat')).sort();
}

/** The bundles of dist/ that run lro's code (npm run build): the CLI, the worker, the MCP server, the library. */
export function bundles(): string[] {
  return readdirSync(join(ROOT, 'dist')).filter((f) => /\.c?js$/.test(f)).sort();
}

/** Every WebAssembly module (base64, in a string literal) in the bundles of dist/, with the bundles carrying it. */
export function wasmInBundles(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const b of bundles()) {
    const code = readFileSync(join(ROOT, 'dist', b), 'utf8');
    for (const m of code.matchAll(/["'`](AGFzbQ[A-Za-z0-9+/]*={0,2})["'`]/g)) {
      const list = found.get(m[1]) ?? [];
      if (!list.includes(b)) list.push(b);
      found.set(m[1], list);
    }
  }
  return found;
}
