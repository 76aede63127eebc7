// Fills a store with N results quickly, in the real format, without N `lro offload` processes: one result made
// by `lro offload` is the template; each copy gets a new ULID (in its name and header) and a timestamp spread
// over the last 30 hours with a 24-hour ttl, so about a fifth of them have expired (work for `lro gc`). With
// SESSIONS > 0 the results are spread over that many session folders (`sessions/sK/`) and the store's root.
//   node bench/make-store.mjs TEMPLATE_FILE N STORE_DIR [SESSIONS]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monotonicFactory } from 'ulid';

const [template, countArg, dir, sessionsArg] = process.argv.slice(2);
const count = Number(countArg);
const sessions = Number(sessionsArg ?? 0);
const text = readFileSync(template);
const nl = text.indexOf(0x0a);
const header = JSON.parse(text.subarray(0, nl).toString('utf8'));
const records = text.subarray(nl); // the newline after the header, then the records
const operations = ['offload', 'kubectl-get-pods', 'git-log', 'npm-test', 'rg'];
const span = 30 * 3600_000;
const start = Date.now() - span;
const ulid = monotonicFactory();
mkdirSync(dir, { recursive: true, mode: 0o700 });
for (let i = 0; i < count; i++) {
  const t = start + Math.floor((i * span) / count);
  const id = ulid(t);
  const operation = operations[i % operations.length];
  const k = sessions > 0 ? i % (sessions + 1) : null; // k === sessions: the root
  const session = sessions > 0 ? (k === sessions ? null : `s${k}`) : `s${i % 50}`;
  const folder = sessions > 0 && session !== null ? join(dir, 'sessions', session) : dir;
  if (i <= sessions) mkdirSync(folder, { recursive: true, mode: 0o700 });
  const h = { ...header, id, operation, timestamp: new Date(t).toISOString(), ttl_seconds: 86400, expires_at: new Date(t + 86400_000).toISOString(), session };
  writeFileSync(join(folder, `lro-${operation}-${id}.jsonl`), Buffer.concat([Buffer.from(JSON.stringify(h)), records]), { mode: 0o600 });
}
console.log(`${dir}: ${count} results`);
