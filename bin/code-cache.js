// V8's code cache for lro's own bundles (the CLI's, dist/cli*.cjs, jq's glue, dist/jq/jq.cjs, and the S3 worker's
// with the AWS SDK, dist/s3-worker.cjs, through bin/s3-worker.js). Every agent tool call starts a process, and
// without a cache V8 parses each bundle and compiles each function it runs anew, every time. `npm run build` runs
// the commands agents run most (scripts/build-code-cache.cjs) and keeps what V8 compiled for them in
// dist/code-cache/; the next processes load that instead of compiling (bench/startup.sh measures the commands with
// and without it). Those commands have a bundle of their own (OWN_BUNDLES), and its cache is made by that command
// alone: V8 reads the whole of a cache before the first line runs, and one cache of every command (1 MB) cost `lro
// --version` three times what its own (200 KB) cost; dist/cli.cjs, which runs every other command, has the cache
// made from all of them. V8 checks a cache against its own version, its flags and the source (by its length), and
// compiles as usual when one differs (another Node, a rebuilt bundle, `node --cpu-prof`); the build makes the
// bundles and their caches together, so a bundle edited by hand needs `npm run build` again. The caches are part of
// the build (dist/), read and never written at run time: a fresh user, a read-only install and CI start the same.
'use strict';
const { fstatSync, readFileSync } = require('node:fs');
const { join, relative } = require('node:path');
const Module = require('node:module');
const vm = require('node:vm');

const DIST = join(__dirname, '..', 'dist');
/**
 * The commands agents run most, each with a CLI bundle of its own, dist/cli-<command>.cjs, holding that command
 * and what it uses (scripts/build.mjs): every other command runs from dist/cli.cjs, which holds them all.
 */
const OWN_BUNDLES = ['offload', 'read', 'grep', 'jq', 'where', 'count', 'cat', 'info'];
/** The bundles that have a cache, by their path in dist/ (the S3 worker's, with the AWS SDK: store/s3-sync.ts). */
const BUNDLES = ['cli.cjs', ...OWN_BUNDLES.map((c) => `cli-${c}.cjs`), 'jq/jq.cjs', 's3-worker.cjs'];

/** The cache file of a bundle. */
const cacheFile = (name) => join(DIST, 'code-cache', `${name.replace('/', '-')}.bin`);

/**
 * The command lro's arguments run, as src/cli.ts reads them: an option first is `offload`, and so is no argument
 * when stdin is not a terminal (`cmd | lro`); no argument from a terminal is the help. A terminal is told here by
 * fstat, not by node:tty, which loads the stream and net modules: anything that might be one (another character
 * device, an fstat that fails) counts as one, and runs from the bundle of every command.
 */
function commandOf(argv) {
  const first = argv[0];
  if (first === '-V' || first === '--version') return 'version';
  if (first === undefined) return stdinMayBeTerminal() ? '--help' : 'offload';
  if (first.startsWith('-') && first !== '-h' && first !== '--help') return 'offload';
  return first;
}

function stdinMayBeTerminal() {
  try {
    return fstatSync(0).isCharacterDevice();
  } catch {
    return true;
  }
}

/** The CLI bundle that runs `command`, by its path in dist/. */
const bundleOf = (command) => (OWN_BUNDLES.includes(command) ? `cli-${command}.cjs` : 'cli.cjs');

/** The cache of a bundle and its file; {} when not built. */
function readCache(name) {
  const file = cacheFile(name);
  try {
    return { file, cachedData: readFileSync(file) };
  } catch {
    return {}; // none: compiled as usual
  }
}

/**
 * Per bundle loaded: its script (for making the cache), the cache file read, and whether V8 took the cache (null:
 * there was none).
 */
const loaded = new Map();

/**
 * Makes require() of the bundles use their caches. V8 takes a cache only under the flags it was made with: lro
 * sets some at run time (the secret rules' linear regexp engine, jq's baseline compiler), after its bundles are
 * loaded, so the caches are made without them (scripts/build-code-cache.cjs).
 */
function install() {
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename) {
    const name = relative(DIST, filename);
    if (!BUNDLES.includes(name)) return compile.call(this, content, filename);
    const { file, cachedData } = readCache(name); // (the bundles have no import(): scripts/build.mjs)
    const script = new vm.Script(Module.wrap(content), { filename, cachedData });
    loaded.set(name, { script, file, accepted: cachedData ? !script.cachedDataRejected : null });
    const wrapper = script.runInThisContext({ displayErrors: true });
    const require = (id) => this.require(id);
    require.resolve = (request, options) => Module._resolveFilename(request, this, false, options);
    require.main = process.mainModule;
    require.cache = Module._cache;
    return wrapper.call(this.exports, this.exports, require, this, filename, join(filename, '..'));
  };
}

module.exports = { install, loaded, cacheFile, commandOf, bundleOf, BUNDLES, OWN_BUNDLES };
