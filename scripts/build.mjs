// Builds dist/: the bundled CLI and library (esbuild), the tokenizer rank tables, and type declarations.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { buildRanks } from './build-ranks.mjs';
import { buildJq } from './build-jq.mjs';
import { buildSecrets } from './build-secrets.mjs';

const root = new URL('..', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
rmSync(`${root}dist`, { recursive: true, force: true });
mkdirSync(`${root}dist/ranks`, { recursive: true });

await build({
  entryPoints: { cli: `${root}src/cli.ts`, index: `${root}src/index.ts`, worker: `${root}src/worker.ts` },
  outdir: `${root}dist`,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunk-[hash]',
  // jq-wasm finds its .wasm next to its own module, so it stays a runtime import from node_modules.
  external: ['jq-wasm'],
  // Bundled CommonJS dependencies call require(); give ESM output a real one.
  banner: { js: "import { createRequire as __lroCreateRequire } from 'node:module'; const require = __lroCreateRequire(import.meta.url);" },
  define: { __LRO_VERSION__: JSON.stringify(pkg.version) },
  minify: !process.env.LRO_PROFILE, // LRO_PROFILE=1 npm run build keeps names readable in --cpu-prof output
  sourcemap: false,
  logLevel: 'warning',
});

buildJq(`${root}dist/jq`);
buildSecrets(`${root}dist/secrets`);

for (const encoding of ['o200k_base', 'cl100k_base']) {
  await buildRanks(encoding, `${root}dist/ranks/${encoding}.bin`);
}

try {
  execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', `${root}tsconfig.json`, '--emitDeclarationOnly'], { stdio: 'inherit' });
} catch {
  console.error('build: type errors (see above)');
  process.exit(1);
}
