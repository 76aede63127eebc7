// Worker thread entry (built to dist/worker.cjs): the analysis of a large input (the hash, statistics, tokens),
// beside the encoding on the main thread, fed through a ring in shared memory (see engines/input-analysis.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { LocalAnalysis, readRing, type StatsKind } from './engines/input-analysis.js';

const data = workerData as {
  task: 'analysis';
  encoding: 'o200k_base' | 'cl100k_base';
  stats: StatsKind;
  secrets: boolean;
  /** Whether to count its tokens here (see WorkerAnalysis); when not, the facts say 0. */
  tokens: boolean;
  /** Whether to hash the input here (see WorkerAnalysis); when not, the facts say ''. */
  hash: boolean;
  ring: SharedArrayBuffer;
  control: SharedArrayBuffer;
};

const analysis = new LocalAnalysis(data.encoding, data.stats, data.tokens ? null : 0, data.secrets, data.hash);
// each chunk is read where it lies in the ring, whose slot is reused once this returns
readRing(data.ring, data.control, (chunk) => analysis.push(chunk));
parentPort!.postMessage({ facts: analysis.endSync() });
