// Two inputs of about SIZE bytes each for bench/diff.sh, written to OUT-a and OUT-b: KIND log (text lines of a
// service log, B with a new kind of error line every 50,000 lines and a tenth of the requests slower), KIND
// jsonl (records with an id, B with one record in 1,000 changed, one added and one removed in 10,000) or KIND
// gotest (go test -json events of 300 packages, a test in 7,000 failing in A and one in 5,000 in B).
// Usage: node bench/make-diff.mjs KIND SIZE OUT
import { createWriteStream } from 'node:fs';

const [kind, sizeText, out] = process.argv.slice(2);
const size = Number(sizeText);

function logLine(i, side) {
  const ms = side === 1 && i % 10 === 0 ? 900 + (i % 97) : 20 + (i % 53);
  const t = new Date(Date.UTC(2026, 0, 1) + i * 37).toISOString();
  if (side === 1 && i % 50_000 === 7) return `${t} ERROR pool-${i % 8} upstream reset by peer after ${ms} ms (conn ${i})\n`;
  if (i % 1000 === 3) return `${t} WARN cache miss for key user:${i} in region eu-${i % 3}\n`;
  return `${t} INFO request ${i} GET /api/items/${i % 5000} 200 in ${ms} ms from 10.0.${i % 250}.${i % 200}\n`;
}

function goTest(i, side) {
  const pkg = `example.com/p${i % 300}`;
  const test = `Test${i}`;
  const event = (action, more = {}) => `${JSON.stringify({ Time: '2026-01-01T00:00:00Z', Action: action, Package: pkg, Test: test, ...more })}\n`;
  let s = event('run');
  for (let k = 0; k < 3; k++) s += event('output', { Output: `    step ${k} of ${test} ok\n` });
  const fail = side === 1 ? i % 5000 === 1 : i % 7000 === 2;
  return s + event(fail ? 'fail' : 'pass', { Elapsed: 0.01 });
}

function record(i, side) {
  const changed = side === 1 && i % 1000 === 500;
  return `${JSON.stringify({ id: i, name: `item-${i}`, status: changed ? 'failed' : 'ok', size: (i * 7919) % 100000, tags: ['a', `t${i % 17}`], owner: { team: `team-${i % 40}`, region: 'eu' } })}\n`;
}

async function write(path, side) {
  const w = createWriteStream(path);
  let bytes = 0;
  for (let i = 0; bytes < size; i++) {
    let line;
    if (kind === 'log') line = logLine(i, side);
    else if (kind === 'gotest') line = goTest(i, side);
    else {
      if (side === 1 && i % 10_000 === 99) continue; // removed in B
      line = record(i, side);
      if (side === 1 && i % 10_000 === 98) line += record(10_000_000 + i, side); // added in B
    }
    bytes += line.length;
    if (!w.write(line)) await new Promise((r) => w.once('drain', r));
  }
  await new Promise((r) => w.end(r));
}

await write(`${out}-a`, 0);
await write(`${out}-b`, 1);
