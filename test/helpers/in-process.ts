// lro run in the test's own process: `main(argv, io)` (the CLI's parser and the command, as the binary runs them)
// with a fake IO, answered as `lro()` of helpers/cli.ts answers. For what a test needs around the behaviour it
// spawns the binary for: the results it reads made, the pages of a cut output followed. A process costs 0.3-2 s of
// CPU on a loaded 2-core machine; this costs the command's own work.
import { main } from '../../src/cli.js';
import { lro, type RunOptions, type RunResult } from './cli.js';
import { fakeIO } from './fake-io.js';

/**
 * Runs lro with args here, with the environment `lro()` gives a child (PATH, HOME, NO_COLOR, then opts.env). Two
 * are spawned instead: a command on an S3 store (its calls wait on a worker thread, blocking this process's loop,
 * which runs the stand-in server's proxy: helpers/s3-server.ts), and `lro jq` (its engine is loaded from the build,
 * beside the bundle, which src/ is not).
 */
export async function lroHere(args: string[], opts: Pick<RunOptions, 'input' | 'env'> = {}): Promise<RunResult> {
  const s3 = opts.env?.LRO_DIR?.startsWith('s3://') || args.some((a) => a.startsWith('s3://'));
  if (s3 || args[0] === 'jq') return lro(args, opts);
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1' };
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const io = fakeIO({ stdin: opts.input, env });
  const code = await main(args, io);
  const stdout = io.outBytes();
  return { code, signal: null, stdout, stderr: io.err(), out: stdout.toString('utf8') };
}
