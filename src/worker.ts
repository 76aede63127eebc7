// Worker thread entry (built to dist/worker.cjs): the analysis of a large input (hash, tokens and statistics),
// beside the encoding on the main thread.
import { parentPort, workerData } from 'node:worker_threads';
import { LocalAnalysis, type StatsKind } from './engines/input-analysis.js';

const data = workerData as { task: 'analysis'; encoding: 'o200k_base' | 'cl100k_base'; stats: StatsKind };

const analysis = new LocalAnalysis(data.encoding, data.stats);
parentPort!.on('message', (m: Uint8Array | { end: true }) => {
  if (m instanceof Uint8Array) {
    analysis.push(Buffer.from(m.buffer, m.byteOffset, m.byteLength));
    parentPort!.postMessage({ ack: true });
  } else {
    parentPort!.postMessage({ facts: analysis.endSync() });
  }
});
