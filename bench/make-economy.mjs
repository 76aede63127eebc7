// Writes the inputs of bench/economy.sh from the corpus, deterministically, each at least 1 MB:
//   log.txt     the eight loghub logs (LF), repeated: a mixed log with a fatal line per copy
//   hdfs.log    HDFS_2k.log repeated: one system's log, for its most common template
//   gotest.jsonl  a go test -json run: the corpus's run once, then the events of its packages that passed,
//                 repeated with the packages renamed (…/copyN): a large run with a few failures
//   tweets.jsonl  the statuses of twitter.json, repeated; each copy's `id` literal plus the copy number
//                 (digits kept exactly: ids beyond 2^53 that differ by 1 are the same float)
// Usage: node bench/make-economy.mjs OUTDIR
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const out = process.argv[2];
const corpus = new URL('../fixtures/corpus/', import.meta.url).pathname;
const MIN = 1_000_000;
mkdirSync(out, { recursive: true });

/** Copies of unit(i) joined until the total is at least MIN bytes. */
function repeat(unit) {
  const parts = [];
  let size = 0;
  for (let i = 0; size < MIN; i++) {
    const u = unit(i);
    parts.push(u);
    size += Buffer.byteLength(u);
  }
  return parts.join('');
}

const lf = (t) => (t.replace(/\r\n/g, '\n').endsWith('\n') ? t.replace(/\r\n/g, '\n') : `${t.replace(/\r\n/g, '\n')}\n`);
const logs = readdirSync(join(corpus, 'loghub')).filter((f) => f.endsWith('.log')).sort().map((f) => lf(readFileSync(join(corpus, 'loghub', f), 'utf8'))).join('');
writeFileSync(join(out, 'log.txt'), repeat(() => logs));
const hdfs = lf(readFileSync(join(corpus, 'loghub/HDFS_2k.log'), 'utf8'));
writeFileSync(join(out, 'hdfs.log'), repeat(() => hdfs));

const gotest = readFileSync(join(corpus, 'shell-output/go-test-json.out'), 'utf8');
const failed = new Set(gotest.split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((e) => e.Action === 'fail').map((e) => e.Package));
const passed = gotest.split('\n').filter((l) => l && !failed.has(JSON.parse(l).Package)).join('\n') + '\n';
writeFileSync(join(out, 'gotest.jsonl'), repeat((i) => (i === 0 ? gotest : passed.replace(/"Package":"([^"]*)"/g, `"Package":"$1/copy${i}"`))));

// the statuses as they are written in twitter.json, compacted, with `"id":N` raised by the copy number
const doc = readFileSync(join(corpus, 'json-docs/twitter.json'), 'utf8');
const statuses = JSON.parse(doc).statuses.length;
const raw = [];
{
  // split the raw array text into elements without parsing numbers (depth counting outside strings)
  const start = doc.indexOf('[', doc.indexOf('"statuses"'));
  let depth = 0;
  let inStr = false;
  let from = -1;
  for (let i = start; i < doc.length && raw.length < statuses; i++) {
    const c = doc[i];
    if (inStr) {
      if (c === '\\') i++;
      else if (c === '"') inStr = false;
    } else if (c === '"') inStr = true;
    else if (c === '{' || c === '[') {
      if (depth === 1 && c === '{') from = i;
      depth++;
    } else if (c === '}' || c === ']') {
      depth--;
      if (depth === 1 && c === '}') raw.push(doc.slice(from, i + 1));
    }
  }
}
const compact = (t) => t.replace(/"(?:[^"\\]|\\.)*"|\s+/g, (m) => (m.startsWith('"') ? m : ''));
const tweets = raw.map(compact);
writeFileSync(
  join(out, 'tweets.jsonl'),
  repeat((i) => tweets.map((t) => t.replace(/^\{"metadata":(\{[^}]*\}),"created_at":("[^"]*"),"id":(\d+)/, (_, m, c, id) => `{"metadata":${m},"created_at":${c},"id":${BigInt(id) + BigInt(i)}`)).join('\n') + '\n'),
);
for (const f of ['log.txt', 'hdfs.log', 'gotest.jsonl', 'tweets.jsonl']) console.log(`${join(out, f)}: ${readFileSync(join(out, f)).length} bytes`);
