// The S3 worker's entry (store/s3-sync.ts starts it): V8's code cache loader, then the worker's bundle, so that V8
// takes the AWS SDK's compiled code from dist/code-cache/ (scripts/build-code-cache.cjs) instead of compiling it
// (not once lro has set a V8 flag: workerData.cache is false, and V8 would refuse the cache).
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
try {
  if (!workerData || workerData.cache !== false) require('./code-cache.js').install();
  require('../dist/s3-worker.cjs');
} catch (e) {
  // Every request is answered with the cause, at once: the caller waits on its request's flag, and a worker that
  // never answers is seen only at the timeout, as an endpoint that did not answer.
  const why = String((e && e.message) || e).split('\n')[0].slice(0, 200);
  parentPort?.on('message', (m) => {
    workerData?.port?.postMessage({ code: 'other', error: `lro's S3 worker did not start (${why}): reinstall lro, or run npm run build in its folder` });
    Atomics.store(m.flag, 0, 1);
    Atomics.notify(m.flag, 0);
  });
}
