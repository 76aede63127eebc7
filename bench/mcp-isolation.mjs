// Client isolation of `lro mcp --http`, for bench/mcp-isolation.sh: one client's slow calls beside another's quick
// ones, with the MCP SDK's client over Streamable HTTP.
//   node bench/mcp-isolation.mjs BIN SECONDS   serves `node BIN mcp --http` on a store of its own; client B times
//                                              lro_ls every 100 ms, first alone (the baseline), then for SECONDS
//                                              while client A runs a slow lro_jq again and again (a filter that
//                                              computes until lro's 10 s watchdog stops it); prints the medians,
//                                              the 95th percentiles and A's calls, and one line `RESULT base load`
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [bin, secondsArg] = process.argv.slice(2);
const SECONDS = Number(secondsArg ?? 20);
const SLOW = { filter: 'reduce range(0; 1e12) as $i (0; . + $i)' };

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const ms = (x) => `${x.toFixed(1)} ms`;

/** `node BIN mcp --http`: its URL and token, read from its stderr. */
function serve(store) {
  const child = spawn(process.execPath, [bin, 'mcp', '--http'], { env: { ...process.env, LRO_DIR: store }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  return new Promise((done, fail) => {
    child.stderr.on('data', (d) => {
      err += d;
      const m = /serving MCP at (\S+) \(Authorization: Bearer (\S+)\)/.exec(err);
      if (m) done({ child, url: m[1], token: m[2] });
    });
    child.once('exit', (code) => fail(new Error(`lro mcp --http exited (${code}):\n${err}`)));
  });
}

async function client(url, token) {
  const c = new Client({ name: 'lro-bench', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return c;
}

let resets = 0;

/** One lro_ls, sent again when the connection was reset (a server that stalled past its keep-alive time). */
async function ls(b) {
  for (;;) {
    try {
      const r = await b.callTool({ name: 'lro_ls', arguments: {} }, undefined, { timeout: 600_000 });
      if (r.isError) throw new Error(`lro_ls failed: ${JSON.stringify(r.content)}`);
      return;
    } catch (e) {
      if (!/fetch failed/.test(e.message)) throw e;
      resets++;
    }
  }
}

/** lro_ls latencies every 100 ms until `until()` says stop. */
async function timeLs(b, until) {
  const out = [];
  while (!until()) {
    const t = performance.now();
    await ls(b);
    out.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 100));
  }
  return out;
}

const store = mkdtempSync(join(tmpdir(), 'lro-bench-isolation-'));
const { child, url, token } = await serve(store);
try {
  const [a, b] = [await client(url, token), await client(url, token)];
  const stored = await a.callTool({ name: 'lro_offload', arguments: { content: '{"n": 1}\n', force: true } });
  const id = stored.structuredContent.id;
  const baseEnd = performance.now() + 3000;
  const base = await timeLs(b, () => performance.now() > baseEnd);
  const slow = [];
  let stop = false;
  const runA = (async () => {
    while (!stop) {
      const t = performance.now();
      let r;
      try {
        r = await a.callTool({ name: 'lro_jq', arguments: { id, ...SLOW } }, undefined, { timeout: 600_000 });
      } catch (e) {
        r = { isError: true, content: [{ text: e.message }] };
      }
      slow.push({ took: performance.now() - t, error: r.isError ? r.content[0].text.slice(0, 80) : null });
    }
  })();
  await new Promise((r) => setTimeout(r, 200)); // A's first call is running
  const loadEnd = performance.now() + SECONDS * 1000;
  const load = await timeLs(b, () => performance.now() > loadEnd);
  stop = true;
  await runA;
  await Promise.all([a.close(), b.close()]);
  console.log(`  client B's lro_ls alone: median ${ms(quantile(base, 0.5))}, p95 ${ms(quantile(base, 0.95))} (${base.length} calls)`);
  console.log(`  while A runs slow calls: median ${ms(quantile(load, 0.5))}, p95 ${ms(quantile(load, 0.95))}, max ${ms(Math.max(...load))} (${load.length} calls)`);
  if (resets) console.log(`  B's connection was reset ${resets} times (the request sent again, its time counted)`);
  console.log(`  A's calls: ${slow.map((s) => `${(s.took / 1000).toFixed(1)} s`).join(', ')}; first answer: ${slow[0]?.error ?? 'ok'}`);
  console.log(`RESULT ${quantile(base, 0.5)} ${quantile(load, 0.5)} ${quantile(load, 0.95)}`);
} finally {
  child.kill('SIGTERM');
  rmSync(store, { recursive: true, force: true });
}
