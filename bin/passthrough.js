// A small input piped to `lro offload` (or to `lro` alone), passed through before any bundle is read: most outputs
// an agent's commands pipe to lro are a few lines, and reading and loading the offload bundle to hand them back
// unchanged cost a fifth of node's own start-up again. What it decides is what src/offload.ts decides first: an
// input of at most DEFAULT_THRESHOLD bytes is at most that many tokens (every token covers at least a byte), so it
// is printed unchanged; so is one of at most BOUND_BYTES thresholds of bytes whose tokens' upper bound is within the
// threshold (src/tokens/token-bound.ts, built alone to dist/token-bound.cjs: the short tokens' table, not the rank
// table nor the bundle). Anything else goes on to the bundle, with the bytes read so far (cli.ts run): an option
// or a second word, an LRO_* variable the offload reads (a threshold, a session, redaction, a retention: each
// changes what a passthrough prints, or warns), a terminal or a device as stdin, a read that fails or would
// block, and any input the bound does not pass. test/e2e/passthrough-gate.test.ts runs inputs and settings
// through this and through the bundle alone, and wants the same bytes, exit code and store.
'use strict';
const { fstatSync, readSync, writeSync } = require('node:fs');

/** src/offload-input.ts DEFAULT_THRESHOLD and src/offload.ts BOUND_BYTES (a test checks that they agree). */
const DEFAULT_THRESHOLD = 6400;
const BOUND_BYTES = 3;
/** The variables src/offload-settings.ts reads for an offload: set to anything but '', the bundle decides. */
const SETTINGS = ['LRO_THRESHOLD_TOKENS', 'LRO_SESSION', 'LRO_REDACT', 'LRO_TTL'];

/**
 * For `lro` run with argv: `{ done: true }` when the input was passed through here (the exit code is set), else
 * `{ head }`: the bytes already read from stdin (maybe none), for the bundle to read first.
 */
function passThrough(argv, env = process.env) {
  const none = { head: undefined };
  if (argv.length > 1 || (argv.length === 1 && argv[0] !== 'offload')) return none;
  if (SETTINGS.some((name) => env[name] !== undefined && env[name] !== '')) return none;
  try {
    const st = fstatSync(0);
    if (!st.isFIFO() && !st.isFile() && !st.isSocket()) return none; // a terminal waits; a device may never end
  } catch {
    return none;
  }
  const buf = Buffer.allocUnsafe(64 << 10);
  let got = 0;
  for (;;) {
    let n;
    try {
      n = readSync(0, buf, got, buf.length - got, null);
    } catch {
      return { head: buf.subarray(0, got) }; // (EAGAIN: a pipe left non-blocking; the bundle reads it as a stream)
    }
    if (n === 0) break;
    got += n;
    if (got > DEFAULT_THRESHOLD * BOUND_BYTES) return { head: buf.subarray(0, got) };
  }
  if (got > DEFAULT_THRESHOLD && !withinBound(buf.subarray(0, got))) return { head: buf.subarray(0, got) };
  writeAll(buf.subarray(0, got));
  return { done: true };
}

/** Whether the bound of the input's tokens is within the threshold, as src/offload.ts asks (false: ask the bundle). */
function withinBound(bytes) {
  try {
    const { tokenBound } = require('../dist/token-bound.cjs');
    return tokenBound(bytes.toString('utf8'), 'o200k_base', DEFAULT_THRESHOLD) <= DEFAULT_THRESHOLD;
  } catch {
    return false; // (not built, or its table missing: the bundle says so)
  }
}

/** Writes bytes to stdout as the CLI does: a closed stdout ends quietly, a non-blocking one takes the stream. */
function writeAll(bytes) {
  let off = 0;
  try {
    while (off < bytes.length) off += writeSync(1, bytes, off, bytes.length - off);
  } catch (e) {
    if (e.code === 'EAGAIN') process.stdout.write(bytes.subarray(off));
    else if (e.code !== 'EPIPE') {
      process.exitCode = 2; // as src/commands/failure.ts reports an error of the write
      try {
        writeSync(2, `lro: ${e.code}: ${e.message}\n`);
      } catch {
        // stderr closed too
      }
    }
  }
}

module.exports = { passThrough, DEFAULT_THRESHOLD, BOUND_BYTES, SETTINGS };
