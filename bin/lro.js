#!/usr/bin/env node
require('./code-cache.js').install();
require('../dist/cli.cjs').run();
