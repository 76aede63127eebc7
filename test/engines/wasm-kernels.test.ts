// The WebAssembly that ships is the kernels' sources assembled: the bundles npm run build makes (the CLI, the
// worker, the MCP server, the library) carry no module but a .wat of src/ assembled with wabt (scripts/wat.mjs),
// and the CLI carries every kernel. Each kernel's own test checks its module's bytes against its source, with the
// features that kernel uses.
import { describe, expect, it } from 'vitest';
import { assembledWat, bundles, wasmInBundles, watSources } from '../helpers/wat.js';

describe('the WebAssembly kernels that ship', () => {
  it('are the .wat sources of src/, assembled: every module each bundle carries, and all of them in the CLI', async () => {
    const sources = watSources();
    expect(sources.length).toBeGreaterThanOrEqual(5);
    expect(bundles()).toEqual(expect.arrayContaining(['cli.cjs', 'index.js', 'mcp.cjs', 'worker.cjs']));
    const assembled = new Map<string, string>();
    for (const path of sources) assembled.set(await assembledWat(path, { simd: true, bulk_memory: true }), path);
    const shipped = wasmInBundles();
    const strangers = [...shipped].filter(([wasm]) => !assembled.has(wasm)).map(([wasm, where]) => `${wasm.slice(0, 24)}… in ${where.join(', ')}`);
    expect(strangers).toEqual([]);
    const missing = [...assembled].filter(([wasm]) => !shipped.get(wasm)?.includes('cli.cjs')).map(([, path]) => path);
    expect(missing).toEqual([]);
  });
});
