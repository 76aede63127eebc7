// Fills a store for bench/grep-all.sh: COUNT results of about SIZE bytes of generated logs each. The first
// DISTINCT (default 24) are stored by lro's own offload (the library, in this one process), each a different
// log; three of them hold the RARE literal, once each. The rest are copies of the others in the real format
// with a new ULID and timestamp each (as bench/make-store.mjs makes them): offload's descriptor work on a
// thousand megabyte logs would take most of an hour on a loaded machine, and the search does not care.
//   node bench/make-grep-store.mjs STORE_DIR COUNT SIZE RARE [DISTINCT]
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monotonicFactory } from 'ulid';
import { offload } from '../dist/index.js';

const [dir, countArg, sizeArg, rare, distinctArg] = process.argv.slice(2);
const count = Number(countArg);
const size = Number(sizeArg);
const distinct = Math.min(count, Number(distinctArg ?? 24));
let seed = 42;
const rand = (n) => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed % n;
};
const levels = ['INFO', 'INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR'];
const paths = ['/api/v1/items', '/api/v1/users', '/healthz', '/api/v2/orders', '/static/app.js'];
const withRare = new Set([1, Math.floor(distinct / 2), distinct - 2]);

function log(i) {
  const lines = [];
  let bytes = 0;
  let t = Date.UTC(2026, 0, 1) + i * 3_600_000;
  for (let k = 0; bytes < size; k++) {
    t += rand(2000);
    const level = levels[rand(levels.length)];
    const line = `${new Date(t).toISOString()} ${level} svc-${rand(40)} req=${rand(1e9).toString(16)} ${paths[rand(paths.length)]}/${rand(10000)} status=${level === 'ERROR' ? 500 : 200} ms=${rand(900)} run=${i} line=${k}`;
    lines.push(withRare.has(i) && k === 5000 ? `${line} upstream said ${rare}` : line);
    bytes += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

const templates = [];
for (let i = 0; i < distinct; i++) {
  const r = await offload(Buffer.from(log(i)), { dir, force: true, operation: 'gen-log', query: `gen-log ${i}`, dedupe: false, ttlSeconds: 30 * 86400 });
  if (!withRare.has(i)) templates.push(r.id);
}
process.stderr.write(`${distinct} results stored by offload\n`);
const files = readdirSync(dir).filter((f) => f.endsWith('.jsonl'));
const ulid = monotonicFactory();
for (let i = distinct; i < count; i++) {
  const text = readFileSync(join(dir, files.find((f) => f.includes(templates[i % templates.length]))));
  const nl = text.indexOf(0x0a);
  const header = JSON.parse(text.subarray(0, nl).toString('utf8'));
  const id = ulid();
  const h = { ...header, id, timestamp: new Date().toISOString(), query: `gen-log ${i}` };
  writeFileSync(join(dir, `lro-gen-log-${id}.jsonl`), Buffer.concat([Buffer.from(JSON.stringify(h)), text.subarray(nl)]), { mode: 0o600 });
}
process.stderr.write(`${count} results in ${dir}\n`);
