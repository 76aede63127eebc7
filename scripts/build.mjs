// Builds dist/: the CLI and the worker as single CommonJS files, the library as ES modules, the jq engine, the
// tokenizer rank tables, and type declarations.
//
// Why CommonJS for the CLI: start-up is paid on every agent tool call. On Node 20 an ES module entry costs about
// 18 ms before any of lro runs (the ESM loader starts), and every split chunk is one more module job; one
// CommonJS file, required from a CommonJS bin/lro.js, starts with none of that (bench/readers.sh: `--version`
// 105 -> 86 ms beside `node -e 0` at 79 ms). V8's code cache of each bundle is made last (bin/code-cache.js).
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { buildRanks, buildShortTokens } from './build-ranks.mjs';
import { buildJq } from './build-jq.mjs';
import { buildSecrets } from './build-secrets.mjs';
import { watPlugin } from './wat.mjs';
import { helpPlugin } from './docs-help.mjs';
import codeCache from '../bin/code-cache.js';

const { OWN_BUNDLES } = codeCache;

const root = new URL('..', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
rmSync(`${root}dist`, { recursive: true, force: true });
mkdirSync(`${root}dist/ranks`, { recursive: true });

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  define: { __LRO_VERSION__: JSON.stringify(pkg.version) },
  minify: !process.env.LRO_PROFILE, // LRO_PROFILE=1 npm run build keeps names readable in --cpu-prof output
  sourcemap: false,
  logLevel: 'warning',
  // `import KERNEL from './x.wat'`: the kernel's source, assembled (scripts/wat.mjs); `import GREP_HELP from
  // 'help:grep'`: the summary of lro grep --help, from docs/commands.md (scripts/docs-help.mjs)
  plugins: [watPlugin, helpPlugin],
  // jsonc-parser's main is a UMD file whose require() calls esbuild cannot follow; its ES modules it can
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
};

// The library, as ES modules (package.json exports).
await build({
  ...common,
  entryPoints: { index: `${root}src/index.ts` },
  outdir: `${root}dist`,
  splitting: true,
  format: 'esm',
  chunkNames: 'chunk-[hash]',
  // Bundled CommonJS dependencies call require(); give ESM output a real one.
  banner: { js: "import { createRequire as __lroCreateRequire } from 'node:module'; const require = __lroCreateRequire(import.meta.url);" },
});

// The CLI and the workers (the analysis of a large input; lro's MCP tools), one CommonJS file each; import.meta.url
// (used to find files next to the bundle) is this file's URL. The MCP server and proxy (the SDK and its dependencies, most of the code) are a file of their
// own, dist/mcp.cjs, required only by `lro mcp`: every other command would pay for parsing them.
const mcpApart = {
  name: 'mcp-apart',
  setup(b) {
    b.onResolve({ filter: /\/mcp\/serve\.js$/ }, (args) => (args.importer.endsWith('/faces/mcp-command.ts') ? { path: './mcp.cjs', external: true } : undefined));
  },
};
// commander requires node:child_process when it loads, for subcommands that are programs of their own, which lro
// has none of; loading it (and dgram and net with it) cost about 3 ms of every command's start.
const lazyChildProcess = {
  name: 'commander-lazy-child-process',
  setup(b) {
    b.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const eager = "const childProcess = require('node:child_process');";
      if (!source.includes(eager)) throw new Error(`build: commander no longer has ${eager} (scripts/build.mjs)`);
      return { contents: source.replace(eager, "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };"), loader: 'js' };
    });
  },
};
const cliOptions = {
  ...common,
  outdir: `${root}dist`,
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  // import() becomes require(): nothing in these files is an ES module, and a script compiled from V8's code
  // cache (bin/code-cache.js) has no dynamic import callback on Node 20
  supported: { 'dynamic-import': false },
  define: { ...common.define, 'import.meta.url': '__lroModuleUrl' },
  banner: { js: "var __lroModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
};
await build({
  ...cliOptions,
  entryPoints: {
    cli: `${root}src/cli.ts`,
    worker: `${root}src/worker.ts`,
    mcp: `${root}src/mcp/serve.ts`,
    'mcp-worker': `${root}src/mcp/tool-worker.ts`, // lro's MCP tools off the server's thread (src/mcp/tool-pool.ts)
    's3-worker': `${root}src/store/s3-worker.ts`, // an s3:// store's requests, the SDK loaded there (store/s3-sync.ts)
    // the bound of an input's tokens alone, for bin/passthrough.js: an input the bound passes needs no CLI bundle
    'token-bound': `${root}src/tokens/token-bound.ts`,
  },
  plugins: [...common.plugins, mcpApart, lazyChildProcess],
});

// The commands agents run most, each also as a CLI bundle of its own, dist/cli-<command>.cjs, holding that
// command and what it uses (220 to 330 KB of the whole CLI's 580): bin/lro.js loads the command's bundle, so a
// process no longer reads and loads every command's code to run one (the table's other commands and mcp throw in
// it; bin/lro.js sends every other first word, and no word, to dist/cli.cjs). Their code caches are the
// commands' own (bin/code-cache.js).
const ownBundle = (only) => ({
  name: 'one-command',
  setup(b) {
    const stub = (what) =>
      `(() => { throw new Error('lro: ${what} is not in the bundle of ${only} (scripts/build.mjs)'); })()`;
    const rewrite = (file, pattern, keep) =>
      b.onLoad({ filter: file }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (!pattern.test(source)) throw new Error(`build: ${args.path} no longer loads commands as import('./x.js')`);
        return { contents: source.replace(pattern, (m, name) => (keep(name) ? m : stub(name))), loader: 'ts' };
      });
    // (a harness's hook is loaded from its folder, '../harness/NAME/hook.js': it is not one of these commands)
    rewrite(/[\\/]src[\\/]commands[\\/]table\.ts$/, /await import\('\.\.?\/([\w/-]+)\.js'\)/g, (name) => name === only);
    rewrite(/[\\/]src[\\/]faces[\\/]program\.ts$/, /await import\('\.\/(mcp-command)\.js'\)/g, () => false);
  },
});
for (const command of OWN_BUNDLES) {
  await build({
    ...cliOptions,
    entryPoints: { [`cli-${command}`]: `${root}src/cli.ts` },
    plugins: [...common.plugins, mcpApart, lazyChildProcess, ownBundle(command)],
  });
}

await buildJq(`${root}dist/jq`);
buildSecrets(`${root}dist/secrets`);

for (const encoding of ['o200k_base', 'cl100k_base']) {
  await buildRanks(encoding, `${root}dist/ranks/${encoding}.bin`);
  await buildShortTokens(encoding, `${root}dist/ranks/${encoding}.short.bin`);
}

// The man page is made from the command table, man/lro.1.in and each command's prose in docs/commands.md: `npm run
// man` writes man/lro.1; a build checks it.
{
  const { lroManPage } = createRequire(import.meta.url)(`${root}dist/cli.cjs`);
  const made = await lroManPage(readFileSync(`${root}man/lro.1.in`, 'utf8'), readFileSync(`${root}docs/commands.md`, 'utf8'));
  if (process.argv.includes('--write-man')) writeFileSync(`${root}man/lro.1`, made);
  else if (made !== readFileSync(`${root}man/lro.1`, 'utf8')) {
    console.error('build: man/lro.1 is not what the command table, man/lro.1.in and docs/commands.md make: run npm run man');
    process.exit(1);
  }
}

// Last, once everything it runs is built: V8's code cache of the bundles (bin/code-cache.js).
execFileSync(process.execPath, [`${root}scripts/build-code-cache.cjs`], { stdio: 'inherit' });

try {
  execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', `${root}tsconfig.json`, '--emitDeclarationOnly'], { stdio: 'inherit' });
} catch {
  console.error('build: type errors (see above)');
  process.exit(1);
}
