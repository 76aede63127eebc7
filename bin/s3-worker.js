// The S3 worker's entry (store/s3-sync.ts starts it): V8's code cache loader, then the worker's bundle, so that V8
// takes the AWS SDK's compiled code from dist/code-cache/ (scripts/build-code-cache.cjs) instead of compiling it.
'use strict';
require('./code-cache.js').install();
require('../dist/s3-worker.cjs');
