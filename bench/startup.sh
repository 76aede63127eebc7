#!/usr/bin/env bash
# Benchmark of start-up (issue 25, item 3). Prints, in one run, one table of lro's commands beside `node -e 0`,
# every command run round-robin with it so a busy machine slows them alike (median of RUNS, after a warm-up):
#   1. `lro --version`, `lro read` on a small result, `echo hi | lro offload` and `seq 1 2000 | lro offload` (a
#      passthrough, by its bytes and by its tokens' bound): the floor of any lro command (target: 1.2x `node -e 0`)
#   2. every reader (read, cat, grep, jq, where, count, info) on a 1 MB result, start-up included (target: at most
#      150 ms)
# The same build without V8's code cache (bin/code-cache.js) runs beside, for what the cache gains; with
# LRO_BASELINE=/path/to/other/bin/lro.js, every row again with that build (e.g. a checkout before a change).
# The machine's load average is printed at the start and the end: quote it with a figure.
# Usage: bench/startup.sh   (RUNS=15 by default). Needs: npm run build.
. "$(dirname "$0")/lib.sh"
RUNS="${RUNS:-15}"
export LRO_DIR="$WORK/startup-store"
rm -rf "$LRO_DIR"

# offloaded FILE: the id of FILE, offloaded anew by this build
offloaded() {
  "$LRO" offload --force --no-dedupe --ttl 1d < "$1" |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).id))'
}

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
node "$BENCH_DIR/make-data.mjs" text 1000000 "$WORK/1m.log" >/dev/null
node "$BENCH_DIR/make-data.mjs" jsonl 1000000 "$WORK/1m.jsonl" >/dev/null
node "$BENCH_DIR/make-data.mjs" text 20000 "$WORK/20k.log" >/dev/null
S=$(offloaded "$WORK/20k.log"); T=$(offloaded "$WORK/1m.log"); J=$(offloaded "$WORK/1m.jsonl")
NOCACHE=$(without_code_cache)

# NAME TARGET COMMAND triples; TARGET "1.2x" is a ratio to node -e 0, "150ms" a wall time
cmds=(
  "node -e 0" "-" "node -e 0"
  "lro --version" "1.2x" "$LRO --version"
  "lro read (small result)" "1.2x" "$LRO read $S --head 20"
  "read (small), stdin and stdout /dev/null" "1.2x" "$LRO read $S --head 20 </dev/null >/dev/null"
  "echo hi | lro offload" "1.2x" "echo hi | $LRO offload"
  "seq 1 2000 | lro offload (8.9 KB)" "1.2x" "seq 1 2000 | $LRO offload"
  "read --head 50 (1 MB)" "150ms" "$LRO read $T --head 50"
  "read --records 5000:5100 (1 MB)" "150ms" "$LRO read $T --records 5000:5100"
  "cat (1 MB)" "150ms" "$LRO cat $T"
  "grep literal (1 MB)" "150ms" "$LRO grep $T WindowManager"
  "grep -i (1 MB)" "150ms" "$LRO grep $T error -i"
  "grep regex -c (1 MB)" "150ms" "$LRO grep $T 'pid=[0-9]+' -c"
  "jq select (1 MB)" "150ms" "$LRO jq $J -c 'select(.Action? == \"pass\") | .Test'"
  "jq -s length (1 MB)" "150ms" "$LRO jq $J -s length"
  "where (1 MB)" "150ms" "$LRO where $J Action=fail 'Elapsed>0'"
  "count --by (1 MB)" "150ms" "$LRO count $J --by Action"
  "info text (1 MB)" "150ms" "$LRO info $T"
  "info jsonl (1 MB)" "150ms" "$LRO info $J"
  "lro --version, no code cache" "-" "$NOCACHE --version"
  "read (small), no code cache" "-" "$NOCACHE read $S --head 20"
  "grep literal (1 MB), no code cache" "-" "$NOCACHE grep $T WindowManager"
)
if [ -n "${LRO_BASELINE:-}" ]; then
  # every row of sections 1 and 2 again, run by the other build (its commands spelled the same after "lro")
  n=${#cmds[@]}
  for ((i = 3; i < n; i += 3)); do
    case "${cmds[i]}" in *"no code cache"*) continue ;; esac
    cmds+=("baseline: ${cmds[i]}" "-" "${cmds[i + 2]//$LRO/node $LRO_BASELINE}")
  done
fi
# Round-robin, RUNS rounds after a warm-up round; wall time and CPU time (user + sys, from GNU time) of each run:
# on a busy machine the wall time of a short command is mostly waiting for a core, its CPU time much less so.
args=()
for ((i = 0; i < ${#cmds[@]}; i += 3)); do args+=("${cmds[i]}" "${cmds[i + 1]}" "${cmds[i + 2]} | cat >/dev/null"); done
echo "== start-up and readers, round-robin with node -e 0 (median of $RUNS runs; CPU = user + sys)"
node - "$RUNS" "${args[@]}" <<'JS'
const { spawnSync } = require('node:child_process');
const [rounds, ...a] = process.argv.slice(2);
const cmds = [];
for (let i = 0; i < a.length; i += 3) cmds.push({ name: a[i], target: a[i + 1], cmd: a[i + 2], wall: [], cpu: [] });
const once = (c) => {
  const t = process.hrtime.bigint();
  const stdio = ['ignore', 'ignore', 'pipe'];
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S', 'bash', '-c', c.cmd], { stdio, encoding: 'utf8' });
  const wall = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${c.name} exited ${r.status}: ${r.stderr.slice(0, 300)}`);
  const [u, s] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
  return { wall, cpu: (u + s) * 1000 };
};
for (const c of cmds) once(c); // warm-up
for (let r = 0; r < Number(rounds); r++) {
  for (const c of cmds) {
    const { wall, cpu } = once(c);
    c.wall.push(wall);
    c.cpu.push(cpu);
  }
}
const median = (v) => {
  const s = [...v].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const node = cmds[0];
const nodeWall = median(node.wall), nodeCpu = median(node.cpu);
const head = ['wall', 'x node', 'CPU', 'x node'].map((h, i) => h.padStart(i % 2 ? 7 : 8)).join(' ');
console.log(`${'command'.padEnd(36)} ${head}  target`);
for (const c of cmds) {
  const w = median(c.wall), u = median(c.cpu), xw = w / nodeWall, xu = u / nodeCpu;
  const ok = c.target === '1.2x' ? xw <= 1.2 : c.target === '150ms' ? w <= 150 : null;
  const limit = c.target === '1.2x' ? '<= 1.2x (wall)' : '<= 150 ms';
  const verdict = ok === null ? '' : `${limit}: ${ok ? 'ok' : 'MISSED'}`;
  const f = (v) => `${v.toFixed(0).padStart(5)} ms`;
  const x = (v) => `${v.toFixed(2).padStart(6)}x`;
  console.log(`${c.name.padEnd(36)} ${f(w)} ${x(xw)} ${f(u)} ${x(xu)}  ${verdict}`);
}
JS
rm -rf "$LRO_DIR"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
