#!/usr/bin/env node
// lro's entry: `lro --version` is answered here, from package.json, before any bundle is read (it was a third of
// node's own start-up again: reading and loading the CLI to print one line); every other command runs from the
// CLI bundle that holds it (bin/code-cache.js), through V8's code cache; a small input piped to `lro offload` is
// passed through before any bundle is read (bin/passthrough.js).
'use strict';
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const { readFileSync, writeSync } = require('node:fs');
  const { version } = JSON.parse(readFileSync(require('node:path').join(__dirname, '..', 'package.json'), 'utf8'));
  try {
    writeSync(1, `${version}\n`);
  } catch (e) {
    // as the CLI did, a stdout that cannot be written is no error; a pipe left non-blocking takes the stream
    if (e.code === 'EAGAIN') process.stdout.write(`${version}\n`);
  }
} else {
  const codeCache = require('./code-cache.js');
  const command = codeCache.commandOf(argv);
  const { done, head } = command === 'offload' ? require('./passthrough.js').passThrough(argv) : {};
  if (!done) {
    codeCache.install();
    require(`../dist/${codeCache.bundleOf(command)}`).run(head);
  }
}
