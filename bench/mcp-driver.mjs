// The MCP SDK's client timing calls, for bench/mcp.sh:
//   node bench/mcp-driver.mjs small N     a small pass-through call (server-everything's echo), N calls straight to the
//                                         server and N through `lro mcp proxy`, in one session each, alternating
//                                         blocks of 25; prints the medians and the proxy's overhead
//   node bench/mcp-driver.mjs big FILE N  read_text_file of FILE (server-filesystem) through the proxy, N times (stored
//                                         and answered), beside `lro offload < FILE` N times, alternating; and the
//                                         same call straight to the server, for scale; prints the medians and the ratio
import { spawn } from 'node:child_process';
import { openSync, closeSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const root = new URL('..', import.meta.url).pathname;
const LRO = join(root, 'bin/lro.js');
const EVERYTHING = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM = join(root, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const node = process.execPath;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (x) => `${x.toFixed(2)} ms`;

async function connect(command, args, env) {
  // big results: the SDK's client reads a response into one buffer of at most this many bytes
  const transport = new StdioClientTransport({ command, args, env: { ...process.env, ...env }, stderr: 'ignore', maxBufferSize: 1 << 30 });
  const client = new Client({ name: 'lro-bench', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function timeCall(client, name, args) {
  const t = performance.now();
  const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
  const took = performance.now() - t;
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
  return { took, r };
}

async function small(n) {
  const store = mkdtempSync(join(tmpdir(), 'lro-bench-mcp-'));
  const direct = await connect(node, [EVERYTHING, 'stdio'], {});
  const proxy = await connect(node, [LRO, 'mcp', 'proxy', '--', node, EVERYTHING, 'stdio'], { LRO_DIR: store });
  const args = { message: 'a small result that passes through' };
  for (let i = 0; i < 20; i++) {
    await timeCall(direct, 'echo', args); // warm up both
    await timeCall(proxy, 'echo', args);
  }
  const d = [];
  const p = [];
  for (let done = 0; done < n; done += 25) {
    for (let i = 0; i < 25; i++) d.push((await timeCall(direct, 'echo', args)).took);
    for (let i = 0; i < 25; i++) p.push((await timeCall(proxy, 'echo', args)).took);
  }
  await Promise.all([direct.close(), proxy.close()]);
  rmSync(store, { recursive: true, force: true });
  const dm = median(d);
  const pm = median(p);
  console.log(`small call (echo), median of ${d.length} calls in one session each: direct ${ms(dm)}, through the proxy ${ms(pm)}`);
  console.log(`proxy overhead ${ms(pm - dm)} per call (target <= 5 ms), ratio ${(pm / dm).toFixed(2)}`);
}

function offloadOnce(file, store) {
  return new Promise((resolve, reject) => {
    const fd = openSync(file, 'r');
    const t = performance.now();
    const child = spawn(node, [LRO, 'offload'], { stdio: [fd, 'ignore', 'inherit'], env: { ...process.env, LRO_DIR: store } });
    child.on('error', reject);
    child.on('exit', (code) => {
      closeSync(fd);
      if (code !== 0) reject(new Error(`lro offload exited ${code}`));
      else resolve(performance.now() - t);
    });
  });
}

async function big(file, n) {
  const store = mkdtempSync(join(tmpdir(), 'lro-bench-mcp-'));
  const dir = dirname(file);
  const proxy = await connect(node, [LRO, 'mcp', 'proxy', '--', node, FILESYSTEM, dir], { LRO_DIR: store });
  const direct = await connect(node, [FILESYSTEM, dir], {});
  const args = { path: file };
  await timeCall(proxy, 'read_text_file', args); // warm up: the tokenizer, the worker, the page cache
  await offloadOnce(file, store);
  const p = [];
  const o = [];
  const d = [];
  for (let i = 0; i < n; i++) {
    const { took, r } = await timeCall(proxy, 'read_text_file', args);
    if (!/^Result of read_text_file offloaded/.test(r.content[0].text)) throw new Error('the proxy did not offload the result');
    p.push(took);
    o.push(await offloadOnce(file, store));
    d.push((await timeCall(direct, 'read_text_file', args)).took);
  }
  await Promise.all([direct.close(), proxy.close()]);
  rmSync(store, { recursive: true, force: true });
  const pm = median(p);
  const om = median(o);
  console.log(`10 MB result, median of ${n}: through the proxy (stored, descriptor answered) ${ms(pm)}; lro offload < FILE ${ms(om)}; straight from the server, not stored ${ms(median(d))}`);
  console.log(`ratio proxy / lro offload ${(pm / om).toFixed(2)} (target <= 1.5)`);
}

const [mode, a, b] = process.argv.slice(2);
if (mode === 'small') await small(Number(a ?? 200));
else if (mode === 'big') await big(a, Number(b ?? 5));
else {
  console.error('usage: node bench/mcp-driver.mjs small [N] | big FILE [N]');
  process.exit(2);
}
