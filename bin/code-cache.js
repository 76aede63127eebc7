// V8's code cache for lro's own bundles (dist/cli.cjs and jq's glue, dist/jq/jq.cjs). Every agent tool call
// starts a process, and without a cache V8 parses each bundle and compiles each function it runs anew, every
// time. `npm run build` runs the commands agents run most (scripts/build-code-cache.cjs) and keeps what V8
// compiled for them in dist/code-cache/; the next processes load that instead of compiling (bench/startup.sh
// measures the commands with and without it). The CLI's cache is made per command: V8 reads the whole of a cache
// before the first line runs, and one cache of every command (1 MB) cost `lro --version` three times what its
// own (200 KB) costs; a command without a cache of its own takes the one made from all of them. V8 checks a cache
// against its own version, its flags and the source (by its length), and compiles as usual when one differs
// (another Node, a rebuilt bundle, `node --cpu-prof`); the build makes the bundles and their caches together, so a
// bundle edited by hand needs `npm run build` again. The caches are part of the build (dist/), read and never
// written at run time: a fresh user, a read-only install and CI start the same.
'use strict';
const { readFileSync } = require('node:fs');
const { join, relative } = require('node:path');
const Module = require('node:module');
const vm = require('node:vm');
const { setFlagsFromString } = require('node:v8');

const DIST = join(__dirname, '..', 'dist');
/** The bundles that have a cache, by their path in dist/. */
const BUNDLES = ['cli.cjs', 'jq/jq.cjs'];

/**
 * The cache file of a bundle; for the CLI, with `command`, the cache made for that command alone (one word:
 * never a path from the command line).
 */
const cacheFile = (name, command) =>
  join(DIST, 'code-cache', `${name.replace('/', '-')}${command && /^[a-z]+$/.test(command) ? `.${command}` : ''}.bin`);

/** The command lro's arguments run, as src/cli.ts reads them: no command or an option first is `offload`. */
function commandOf(argv) {
  const first = argv[0];
  if (first === '-V' || first === '--version') return 'version';
  if (first === undefined || (first.startsWith('-') && first !== '-h' && first !== '--help')) return 'offload';
  return first;
}

/** The cache of a bundle and its file: the command's own if there is one, else the bundle's; {} when not built. */
function readCache(name, command) {
  for (const file of command ? [cacheFile(name, command), cacheFile(name)] : [cacheFile(name)]) {
    try {
      return { file, cachedData: readFileSync(file) };
    } catch {
      // none for this command: the next
    }
  }
  return {};
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
function install(command = commandOf(process.argv.slice(2))) {
  // V8 drops the bytecode of functions that have not run for a while; while the cache is made that depended on
  // when garbage collections came (caches of 577 to 767 KB from the same build, 20 ms apart at start-up), so it
  // keeps all of it, here as when the cache is made (the flag is part of what V8 checks)
  setFlagsFromString('--no-flush-bytecode');
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename) {
    const name = relative(DIST, filename);
    if (!BUNDLES.includes(name)) return compile.call(this, content, filename);
    const { file, cachedData } = readCache(name, name === 'cli.cjs' ? command : undefined); // none: compiled
    // (the bundles have no import(): scripts/build.mjs)
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

module.exports = { install, loaded, cacheFile, commandOf, BUNDLES };
