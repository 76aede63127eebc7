// A WebAssembly text source of src/ assembled with wabt, as base64: what its TypeScript module must embed.
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import wabt from 'wabt';

/** src/<path> assembled (features: wabt's, e.g. { simd: true }), as base64. */
export async function assembledWat(path: string, features: Record<string, boolean> = {}): Promise<string> {
  const source = readFileSync(resolve(__dirname, '../../src', path), 'utf8');
  const w = await wabt();
  return Buffer.from(w.parseWat(basename(path), source, features).toBinary({}).buffer).toString('base64');
}
