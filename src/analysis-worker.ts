// Worker thread entry (built to dist/analysis-worker.js): runs LocalAnalysis on the chunks the main thread posts.
import { parentPort, workerData } from 'node:worker_threads';
import { LocalAnalysis, type StatsKind } from './engines/input-analysis.js';

const { encoding, stats } = workerData as { encoding: 'o200k_base' | 'cl100k_base'; stats: StatsKind };
const analysis = new LocalAnalysis(encoding, stats);

parentPort!.on('message', (m: Uint8Array | { end: true }) => {
  if (m instanceof Uint8Array) {
    analysis.push(Buffer.from(m.buffer, m.byteOffset, m.byteLength));
    parentPort!.postMessage({ ack: true });
  } else {
    parentPort!.postMessage({ facts: analysis.endSync() });
  }
});
