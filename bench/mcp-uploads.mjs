// Uploads beside a probe, for bench/mcp-uploads.sh: N clients of `lro mcp --http` each upload MB megabytes with
// lro_offload at once (the SDK's client over Streamable HTTP), while a probe client in a process of its own (so
// that building the uploads here does not delay it) times lro_ls every 20 ms.
//   node bench/mcp-uploads.mjs BIN [N] [MB]   prints the uploads' time and failures, the probe's latencies, and
//                                             one line `RESULT worst median failed`
//   node bench/mcp-uploads.mjs --probe URL TOKEN   (the probe: lro_ls until its stdin ends; prints the latencies)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const connect = async (url, token) => {
  const c = new Client({ name: 'bench', version: '1' });
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return c;
};

if (process.argv[2] === '--probe') {
  const c = await connect(process.argv[3], process.argv[4]);
  await c.callTool({ name: 'lro_ls', arguments: {} });
  let stop = false;
  process.stdin.on('end', () => (stop = true)).resume();
  process.stderr.write('ready\n');
  const times = [];
  while (!stop) {
    const t = performance.now();
    await c.callTool({ name: 'lro_ls', arguments: {} });
    times.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 20));
  }
  process.stdout.write(JSON.stringify(times));
  process.exit(0);
}

const [bin, nArg, mbArg] = process.argv.slice(2);
const [N, MB] = [Number(nArg ?? 20), Number(mbArg ?? 10)];
const store = mkdtempSync(join(tmpdir(), 'lro-bench-uploads-'));
const server = spawn(process.execPath, [bin, 'mcp', '--http', '--max-sessions', '64'], { env: { ...process.env, LRO_DIR: store }, stdio: ['ignore', 'pipe', 'pipe'] });
let err = '';
const [, url, token] = await new Promise((done) =>
  server.stderr.on('data', (d) => {
    err += d;
    const m = /(http:\S+) \(Authorization: Bearer (\S+)\)/.exec(err);
    if (m) done(m);
  }),
);
const clients = await Promise.all(Array.from({ length: N }, () => connect(url, token)));
const line = `${'x'.repeat(99)}\n`;
const contents = Array.from({ length: N }, (_, i) => `upload ${i} ${line}`.repeat(Math.floor((MB * 1e6) / 108)));
const probe = spawn(process.execPath, [fileURLToPath(import.meta.url), '--probe', url, token], { stdio: ['pipe', 'pipe', 'pipe'] });
let out = '';
probe.stdout.on('data', (d) => (out += d));
await new Promise((r) => probe.stderr.once('data', r));
const t0 = performance.now();
const results = await Promise.allSettled(clients.map((c, i) => c.callTool({ name: 'lro_offload', arguments: { content: contents[i] } }, undefined, { timeout: 600_000 })));
const seconds = (performance.now() - t0) / 1000;
probe.stdin.end();
await new Promise((r) => probe.once('exit', r));
const times = JSON.parse(out).sort((a, b) => a - b);
const failed = results.filter((r) => r.status === 'rejected' || r.value.isError).length;
const worst = times.at(-1);
const median = times[times.length >> 1];
console.log(`${N} uploads of ${MB} MB: ${seconds.toFixed(1)} s, ${failed} failed; the probe's lro_ls: ${times.length} calls, median ${median.toFixed(0)} ms, worst ${worst.toFixed(0)} ms, ${times.filter((t) => t > 100).length} over 100 ms`);
console.log(`RESULT ${worst.toFixed(0)} ${median.toFixed(0)} ${failed}`);
server.kill('SIGINT');
await new Promise((r) => server.once('exit', r));
rmSync(store, { recursive: true, force: true });
process.exit(0);
