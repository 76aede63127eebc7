// Runs commands round-robin, ROUNDS times each after one warm-up round, so a busy machine slows them alike, and
// prints one JSON object: {name: {median_ms, min_ms, max_rss_kb}} (peak RSS from GNU time), or {name: {error}}
// for a command that failed (exit status above 1) in its warm-up.
//   node bench/interleave.mjs ROUNDS NAME 'COMMAND' [NAME 'COMMAND']...   (each COMMAND runs through bash -c)
import { spawnSync } from 'node:child_process';

const [rounds, ...pairs] = process.argv.slice(2);
const cmds = [];
for (let i = 0; i < pairs.length; i += 2) cmds.push({ name: pairs[i], cmd: pairs[i + 1], ms: [], rss: 0 });

function once(c) {
  const start = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', 'bash', '-c', c.cmd], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0 && r.status !== 1) throw new Error(`${c.name} exited ${r.status}: ${r.stderr.slice(0, 300)}`);
  const rss = Number(r.stderr.trim().split('\n').pop());
  return { ms, rss };
}

for (const c of cmds) {
  // warm-up: page cache, and lro's first run
  try {
    once(c);
  } catch (e) {
    c.error = e.message;
  }
}
for (let r = 0; r < Number(rounds); r++) {
  for (const c of cmds) {
    if (c.error) continue;
    const { ms, rss } = once(c);
    c.ms.push(ms);
    c.rss = Math.max(c.rss, rss);
  }
}
const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const result = (c) => (c.error ? { error: c.error } : { median_ms: +median(c.ms).toFixed(1), min_ms: +Math.min(...c.ms).toFixed(1), max_rss_kb: c.rss });
console.log(JSON.stringify(Object.fromEntries(cmds.map((c) => [c.name, result(c)]))));
