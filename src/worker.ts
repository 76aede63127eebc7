// Worker thread entry (built to dist/worker.js). Tasks: `analysis` (hash, tokens and statistics of a large
// input, beside the encoding), and the guarded tasks `grep`, `jq`, `where` and `count`, whose pattern or filter could run
// away: the main thread watches a heartbeat and terminates the worker if it stops (see engines/guard.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { LocalAnalysis, type StatsKind } from './engines/input-analysis.js';
import { GuardChannel, type GuardedTask } from './engines/guard.js';
import { printGrep } from './render/grep-output.js';
import { planGrep, type GrepOptions } from './search/grep-plan.js';
import { runJqHere, type JqOptions } from './engines/jq-spec.js';
import { FormatError } from './format/header.js';
import { openResultFile } from './format/reader.js';
import { damagedError } from './store/resolve.js';
import { runQueryTask } from './query/worker-task.js';

const data = workerData as
  | { task: 'analysis'; encoding: 'o200k_base' | 'cl100k_base'; stats: StatsKind; secrets: boolean }
  | (GuardedTask & { shared: Int32Array });

if (data.task === 'analysis') {
  const analysis = new LocalAnalysis(data.encoding, data.stats, null, data.secrets);
  parentPort!.on('message', (m: Uint8Array | { end: true }) => {
    if (m instanceof Uint8Array) {
      analysis.push(Buffer.from(m.buffer, m.byteOffset, m.byteLength));
      parentPort!.postMessage({ ack: true });
    } else {
      parentPort!.postMessage({ facts: analysis.endSync() });
    }
  });
} else {
  const channel = new GuardChannel(data.shared, (m) => parentPort!.postMessage(m));
  const run = async (): Promise<number> => {
    const rf = openResultFile(data.path);
    try {
      if (data.task === 'grep') {
        const plan = planGrep(data.pattern, data.options as GrepOptions, rf.header.count);
        return await printGrep(rf, plan, data.env, channel.write, channel.tick);
      }
      if (data.task !== 'jq') return await runQueryTask(rf, data, channel);
      return await runJqHere(rf, data.filter, data.options as JqOptions, data.env, channel.write, channel.writeErr, channel.tick);
    } catch (e) {
      if (e instanceof FormatError) throw damagedError(rf, e);
      throw e;
    }
  };
  run().then(
    (code) => channel.done(code),
    (e: unknown) => channel.fail(e),
  );
}
