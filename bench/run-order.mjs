// How many stdout/stderr pairs `lro run` keeps in the order they were written (issue 41): a command writes N
// pairs, `out i` on stdout then `err i` on stderr, each line with one write(2) and PAUSE_US microseconds of busy
// wait after it, and `lro cat ID --stream both` is counted for pairs in order. Beside it, LOAD processes spin on
// the CPU, as a busy machine would. What was written to two pipes carries no order between them: whatever waits
// in both pipes when lro reads loses it, so the count depends on how promptly lro reads, not only on lro. The
// reference beside it, round by round: a reader that does nothing but read the two pipes (node, as lro reads them)
// and write what came in the order it came, which is as well as two pipes can be read here.
//   node bench/run-order.mjs BIN [N] [PAUSE_US] [LOAD] [ROUNDS]   prints one line per round and
//                                 `RESULT lro_min lro_median reader_min reader_median` (pairs in order, of N)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [bin, nArg, pauseArg, loadArg, roundsArg] = process.argv.slice(2);
const [N, PAUSE, LOAD, ROUNDS] = [Number(nArg ?? 20000), Number(pauseArg ?? 0), Number(loadArg ?? 0), Number(roundsArg ?? 5)];
const store = mkdtempSync(join(tmpdir(), 'lro-bench-order-'));
const env = { ...process.env, LRO_DIR: store };
const writer =
  'const fs = require("fs"); const [n, us] = process.argv.slice(1).map(Number);' +
  'const wait = () => { const t = process.hrtime.bigint() + BigInt(us * 1000); while (process.hrtime.bigint() < t); };' +
  'for (let i = 0; i < n; i++) { fs.writeSync(1, "out " + i + "\\n"); wait(); fs.writeSync(2, "err " + i + "\\n"); wait(); }';
// the reference: both pipes read, nothing else done, everything written out at the end in the order it came
const reader =
  'const { spawn } = require("child_process"); const c = spawn(process.argv[1], process.argv.slice(2));' +
  'const got = []; c.stdout.on("data", (b) => got.push(b)); c.stderr.on("data", (b) => got.push(b));' +
  'c.on("close", () => process.stdout.write(Buffer.concat(got)));';
const inOrder = (text) => {
  const lines = text.trimEnd().split('\n');
  let ok = 0;
  for (let j = 0; j + 1 < lines.length; j += 2) if (lines[j] === `out ${j / 2}` && lines[j + 1] === `err ${j / 2}`) ok++;
  return ok;
};
const spinners = Array.from({ length: LOAD }, () => spawn(process.execPath, ['-e', 'for (;;);'], { stdio: 'ignore' }));
const counts = [];
const refs = [];
for (let r = 0; r < ROUNDS; r++) {
  const run = spawnSync(process.execPath, [bin, 'run', '--force', '--', process.execPath, '-e', writer, String(N), String(PAUSE)], { env, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (run.status !== 0) throw new Error(`lro run exited ${run.status}: ${run.stderr.slice(0, 300)}`);
  const id = JSON.parse(run.stdout).id;
  const both = spawnSync(process.execPath, [bin, 'cat', id, '--stream', 'both'], { env, encoding: 'utf8', maxBuffer: 1 << 30 }).stdout;
  const ref = spawnSync(process.execPath, ['-e', reader, process.execPath, '-e', writer, String(N), String(PAUSE)], { encoding: 'utf8', maxBuffer: 1 << 30 }).stdout;
  counts.push(inOrder(both));
  refs.push(inOrder(ref));
  console.log(`round ${r + 1}: lro ${counts.at(-1)} of ${N} pairs in order, the reader alone ${refs.at(-1)}`);
}
for (const s of spinners) s.kill();
rmSync(store, { recursive: true, force: true });
const stats = (a) => {
  const sorted = [...a].sort((x, y) => x - y);
  return `${sorted[0]} ${sorted[sorted.length >> 1]}`;
};
console.log(`RESULT ${stats(counts)} ${stats(refs)}`);
