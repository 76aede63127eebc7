// Worker thread entry for lro's MCP tools (built to dist/mcp-worker.cjs): one tool call at a time, run as the
// server would run it in-process (lro-tools.ts), so a slow or hungry call occupies this thread, not the server's
// (tool-pool.ts). The tools are loaded once, when the worker starts.
import { parentPort, workerData } from 'node:worker_threads';
import { LroTools } from './lro-tools.js';
import type { WorkerSetup } from './tool-pool.js';

const setup = workerData as WorkerSetup;
const tools = LroTools.load(setup.env, setup.proxy ? (t) => !t.serverOnly : undefined, setup.allowDirs);
void tools.then(() => parentPort!.postMessage({ ready: true })); // the pool starts a call's clock now

parentPort!.on('message', (m: { name: string; args: unknown }) => {
  void tools.then((t) => t.call(m.name, m.args)).then((result) => parentPort!.postMessage(result));
});
