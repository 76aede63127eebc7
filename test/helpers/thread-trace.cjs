// `node --require ./thread-trace.cjs`: which of Node's own modules lro loads and which thread hashes, for tests of
// what a command loads and how an offload's work is shared. In the file named by $LRO_THREAD_TRACE, one JSON line
// for each sha256 hash finished, {"main": true|false, "hashed": bytes}, and at the main thread's exit
// {"main": true, "builtins": [the modules of Node's own that were loaded after this one]}. --require runs in
// worker threads too; the main thread is the first to run it (it marks the environment the workers copy), so it
// can tell them apart without loading node:worker_threads, which the check of what lro loads must not see.
'use strict';
const { appendFileSync } = require('node:fs');
const file = process.env.LRO_THREAD_TRACE;
if (file) {
  const main = !process.env.LRO_THREAD_TRACE_MAIN_SEEN;
  process.env.LRO_THREAD_TRACE_MAIN_SEEN = '1';
  const before = new Set(process.moduleLoadList);
  const line = (o) => appendFileSync(file, `${JSON.stringify({ main, ...o })}\n`);
  const Module = require('node:module');
  const load = Module._load;
  Module._load = function (request, ...rest) {
    const m = load.call(this, request, ...rest);
    if ((request === 'node:crypto' || request === 'crypto') && !m.createHash.traced) {
      const create = m.createHash;
      m.createHash = function (algorithm, ...more) {
        const h = create.call(this, algorithm, ...more);
        if (String(algorithm).toLowerCase() !== 'sha256') return h;
        let hashed = 0;
        const { update, digest } = h;
        h.update = function (data, ...enc) {
          hashed += typeof data === 'string' ? Buffer.byteLength(data, enc[0]) : data.byteLength;
          return update.call(this, data, ...enc);
        };
        h.digest = function (...a) {
          line({ hashed });
          return digest.apply(this, a);
        };
        return h;
      };
      m.createHash.traced = true;
    }
    return m;
  };
  if (main) {
    process.on('exit', () => {
      const builtins = process.moduleLoadList.filter((m) => !before.has(m) && m.startsWith('NativeModule '));
      line({ builtins: builtins.map((m) => m.slice('NativeModule '.length)) });
    });
  }
}
