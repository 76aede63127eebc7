// The thread lroHere (in-process.ts) runs lro in: the built CLI bundle's main(argv, io), with stdin given, output
// kept and the environment given. A thread, not the test's own: a command on an S3 store waits on its requests
// (Atomics.wait), which would stop the test's loop, where the stand-in server's proxy answers them.
'use strict';
const { parentPort } = require('node:worker_threads');
const { main } = require('../../dist/cli.cjs');

const sink = (chunks) => ({
  isTTY: false,
  color: false,
  columns: 0,
  write(data) {
    chunks.push(Buffer.from(data));
    return Promise.resolve();
  },
});

parentPort.on('message', async ({ n, args, env, input }) => {
  const out = [];
  const err = [];
  const io = {
    stdin: (async function* () {
      if (input !== undefined && input.length > 0) yield Buffer.from(input);
    })(),
    stdinIsTTY: false,
    stdout: sink(out),
    stderr: sink(err),
    env,
    now: () => new Date(),
  };
  try {
    const code = await main(args, io);
    parentPort.postMessage({ n, code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') });
  } catch (e) {
    parentPort.postMessage({ n, error: String((e && e.stack) || e) });
  }
});
