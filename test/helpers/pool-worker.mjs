// A worker for ToolPool's unit test (test/mcp/tool-pool.test.ts), in place of lro's tools: `echo` answers at
// once, `wait` after args.ms, `sleep` never, `grow` allocates until the heap limit stops it. `lro_ls` (a bounded
// tool, which may run on the quick worker) answers like `wait`.
// `nice` answers what the pool told the worker: whether its calls run in the background (workerData.background).
import { parentPort, workerData } from 'node:worker_threads';

parentPort.postMessage({ ready: true }); // as lro's worker says once its tools are loaded

parentPort.on('message', ({ name, args }) => {
  if (name === 'nice' || args.text === 'nice') parentPort.postMessage({ content: [{ type: 'text', text: String(workerData.background) }] });
  else if (name === 'echo') parentPort.postMessage({ content: [{ type: 'text', text: String(args.text) }] });
  if (name === 'wait' || name === 'lro_ls') setTimeout(() => parentPort.postMessage({ content: [{ type: 'text', text: String(args.text) }] }), args.ms);
  if (name === 'grow') {
    const kept = [];
    for (;;) kept.push(new Array(1 << 16).fill(kept.length));
  }
});
