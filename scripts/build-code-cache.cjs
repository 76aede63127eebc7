// Makes dist/code-cache/ (see bin/code-cache.js): loads the bundles through the cache loader, runs the commands
// agents run most, in this one process, on fixtures of the repository and in a store of its own, then keeps
// what V8 compiled. Run by scripts/build.mjs in a process of its own, so that its V8 flags are lro's.
// A command that fails here fails the build: a cache trained on an error path would miss the real ones.
'use strict';
const { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { dirname, join } = require('node:path');
const v8 = require('node:v8');
const codeCache = require('../bin/code-cache.js');

// V8 takes a cache only under the flags it was made with, which are lro's flags when it loads its bundles. Later
// lro sets some (src/secrets/rules.ts, commands/jq.ts), and setting one back does not undo its implications, so
// while training no flag is set: the rules that would use the linear regexp engine backtrack, and jq's WebAssembly
// is compiled as for a large result; the JavaScript V8 compiles is the same.
v8.setFlagsFromString = () => {};
codeCache.install();
const cli = require('../dist/cli.cjs');

const root = join(__dirname, '..');
const fixture = (p) => join(root, 'fixtures', p);
const LOG = fixture('corpus/loghub/OpenSSH_2k.log');
const JSONL = fixture('corpus/shell-output/go-test-json.out');
const JSON_DOC = fixture('corpus/json-docs/github_events.json');

/** [argv, stdin file or null, the exit code it must give] */
const RUNS = [
  [['--version'], null, 0],
  [['--help'], null, 0],
  [['offload'], null, 0], // a small input passes through
  [['offload', '--force'], LOG, 0],
  [['read', 'last', '--records', '1:20'], null, 0],
  [['read', 'last', '--tail', '5'], null, 0],
  [['grep', 'last', 'Failed password for root', '-m', '5'], null, 0],
  [['grep', 'last', '-i', 'invalid user', '-c'], null, 0],
  [['grep', 'last', 'port [0-9]+ ssh2', '-C', '1', '-m', '3'], null, 0],
  [['grep', 'last', 'error|fatal|refused', '-i'], null, 0],
  [['count', 'last', '--by', 'template'], null, 0],
  [['info', 'last'], null, 0],
  [['cat', 'last'], null, 0],
  [['jq', 'last', '-r', 'select(test("error"; "i"))'], null, 0],
  [['offload', '--force'], JSONL, 0],
  [['jq', 'last', '-c', 'select(.Action == "fail") | {Test, Elapsed}'], null, 0],
  [['where', 'last', 'Action=fail', 'Elapsed>0'], null, 0],
  [['count', 'last', '--by', 'Action'], null, 0],
  [['grep', 'last', 'FAIL'], null, 0],
  [['offload', '--force'], JSON_DOC, 0],
  [['jq', 'last', '-r', '.type'], null, 0],
  [['read', 'last', '--records', '1:3'], null, 0],
  [['ls'], null, 0],
  [['ls', '--json'], null, 0],
  [['gc', '--dry-run'], null, 0],
];

const sink = { isTTY: false, color: false, columns: 0, write: async () => {}, writeSettled: async () => {} };

async function* chunks(file) {
  if (file === null) yield Buffer.from('a small output\n');
  else yield readFileSync(file);
}

async function train() {
  const store = mkdtempSync(join(tmpdir(), 'lro-code-cache-'));
  const env = { ...process.env, LRO_DIR: store };
  for (const k of ['LRO_SESSION', 'LRO_REDACT', 'LRO_THRESHOLD_TOKENS', 'LRO_MAX_OUTPUT_TOKENS', 'LRO_PREFIX', 'LRO_TTL']) delete env[k];
  try {
    for (const [argv, input, expected] of RUNS) {
      const io = { stdin: chunks(input), stdinIsTTY: false, stdout: sink, stderr: sink, env, now: () => new Date() };
      const code = await cli.main(argv, io);
      if (code !== expected) throw new Error(`lro ${argv.join(' ')} exited ${code}, not ${expected}`);
    }
  } finally {
    rmSync(store, { recursive: true, force: true });
  }
  for (const name of codeCache.BUNDLES) {
    const l = codeCache.loaded.get(name);
    if (!l) throw new Error(`${name} was not loaded`);
    const file = codeCache.cacheFile(name);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, l.script.createCachedData());
  }
  // A cache V8 would refuse is a slower start and nothing else, so nothing would show it: check it here.
  const check = `const c = require(${JSON.stringify(require.resolve('../bin/code-cache.js'))}); c.install();
    for (const b of c.BUNDLES) require(require('node:path').join(${JSON.stringify(join(root, 'dist'))}, b));
    const refused = c.BUNDLES.filter((b) => c.loaded.get(b).accepted !== true);
    if (refused.length) { console.error('V8 refused the code cache of ' + refused.join(', ')); process.exit(1); }`;
  require('node:child_process').execFileSync(process.execPath, ['-e', check], { stdio: 'inherit' });
}

train().catch((e) => {
  console.error(`build: code cache: ${e.message}`);
  process.exit(1);
});
