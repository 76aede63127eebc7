// lro's WebAssembly kernels are written as text (src/**/*.wat) and assembled with wabt when they are bundled:
// `import KERNEL from './scan.wat'` gives the kernel's bytes, as base64 (the module decodes them when it first
// makes an instance, so a command that uses no kernel pays nothing for it). scripts/build.mjs assembles them
// with watPlugin (esbuild) into every bundle that imports one; vitest.config.ts with viteWatPlugin, for the tests,
// which run the sources. src/wat.d.ts declares such an import to TypeScript.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import wabt from 'wabt';

/**
 * The proposals a kernel may use, the same for all of them: a kernel that uses none assembles to the same bytes
 * (the tests assemble each with only what it needs and compare).
 */
const FEATURES = { simd: true, bulk_memory: true };

let wabtModule = null;

/** The .wat file at path, assembled, as base64. */
export async function assembleWat(path) {
  wabtModule ??= wabt();
  const w = await wabtModule;
  const module = w.parseWat(basename(path), readFileSync(path, 'utf8'), FEATURES);
  try {
    return Buffer.from(module.toBinary({}).buffer).toString('base64');
  } finally {
    module.destroy();
  }
}

/** esbuild: a .wat module is its assembled bytes, as base64 (the default export, a string). */
export const watPlugin = {
  name: 'wat',
  setup(b) {
    b.onLoad({ filter: /\.wat$/ }, async (args) => ({ contents: await assembleWat(args.path), loader: 'text' }));
  },
};

/** Vite (vitest): the same as watPlugin. */
export const viteWatPlugin = {
  name: 'wat',
  enforce: 'pre',
  async load(id) {
    const path = id.split('?')[0];
    if (!path.endsWith('.wat')) return null;
    return { code: `export default ${JSON.stringify(await assembleWat(path))};`, map: null };
  },
};
