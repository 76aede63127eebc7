// Worker thread entry for lro's MCP tools (built to dist/mcp-worker.cjs): one tool call at a time, run as the
// server would run it in-process (lro-tools.ts), so a slow or hungry call occupies this thread, not the server's
// (tool-pool.ts). The tools are loaded once, when the worker starts.
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { withStrings } from './body-parser.js';
import { LroTools } from './lro-tools.js';
import type { WorkerData } from './tool-pool.js';

/**
 * The nice value of a worker's calls: the server's thread (every client's requests and answers) and the quick
 * worker (lro_ls, lro_info, lro_read) come first on a busy machine. 20 uploads at once ran 20 analysis threads
 * besides (started from here, so they inherit it); at one priority, the server's thread waited 60-100 ms for
 * the CPU at times, and another client's lro_ls with it.
 */
const BACKGROUND_NICE = 10;

const setup = workerData as WorkerData;
// on Linux the nice value is the thread's own; elsewhere it would be the whole server's, which is not meant
if (setup.background && process.platform === 'linux') {
  try {
    setPriority(Math.max(BACKGROUND_NICE, getPriority()));
  } catch {
    // not allowed here: the calls run at the server's priority
  }
}
const tools = LroTools.load(setup.env, setup.proxy ? (t) => !t.serverOnly : undefined, setup.allowDirs);
void tools.then(() => parentPort!.postMessage({ ready: true })); // the pool starts a call's clock now

parentPort!.on('message', (m: { name: string; args: unknown }) => {
  void tools.then((t) => t.call(m.name, withStrings(m.args))).then((result) => parentPort!.postMessage(result));
});
