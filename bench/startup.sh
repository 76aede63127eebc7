#!/usr/bin/env bash
# Benchmark of start-up (issue 25, item 3). Prints, in one run, one table of lro's commands beside `node -e 0`,
# every command run round-robin with it so a busy machine slows them alike (median of RUNS, after a warm-up):
#   1. `lro --version`, `lro read` on a small result, and `echo hi | lro offload` (a passthrough): the floor of any
#      lro command (target: at most 1.2x `node -e 0`)
#   2. every reader (read, cat, grep, jq, where, count, info) on a 1 MB result, start-up included (target: at most
#      150 ms)
# The same build without V8's code cache (bin/code-cache.js) runs beside, for what the cache gains.
# The machine's load average is printed at the start and the end: quote it with a figure.
# Usage: bench/startup.sh   (RUNS=15 by default). Needs: npm run build.
. "$(dirname "$0")/lib.sh"
RUNS="${RUNS:-15}"
export LRO_DIR="$WORK/startup-store"
rm -rf "$LRO_DIR"

# offloaded FILE: the id of FILE, offloaded anew by this build
offloaded() {
  "$LRO" offload --force --no-dedupe --ttl 1d < "$1" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).id))'
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
  "echo hi | lro offload" "1.2x" "echo hi | $LRO offload"
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
args=(); targets=()
for ((i = 0; i < ${#cmds[@]}; i += 3)); do
  args+=("${cmds[i]}" "${cmds[i + 2]} | cat >/dev/null"); targets+=("${cmds[i]}=${cmds[i + 1]}")
done
node "$BENCH_DIR/interleave.mjs" "$RUNS" "${args[@]}" > "$WORK/startup.json"
echo "== start-up and readers, round-robin with node -e 0 (median of $RUNS runs)"
node -e '
const r = require(process.argv[1]); const targets = new Map(process.argv.slice(2).map((t) => t.split(/=(?=[^=]*$)/)));
const node = r["node -e 0"].median_ms;
console.log(`${"command".padEnd(36)} ${"median".padStart(8)} ${"x node".padStart(7)}  target`);
let worst = "";
for (const [name, v] of Object.entries(r)) {
  if (v.error) { console.log(`${name.padEnd(36)} failed: ${v.error.split("\n")[0]}`); continue; }
  const x = v.median_ms / node, t = targets.get(name);
  const ok = t === "1.2x" ? x <= 1.2 : t === "150ms" ? v.median_ms <= 150 : null;
  const verdict = ok === null ? "" : `${t === "1.2x" ? "<= 1.2x" : "<= 150 ms"}: ${ok ? "ok" : "MISSED"}`;
  console.log(`${name.padEnd(36)} ${v.median_ms.toFixed(0).padStart(5)} ms ${x.toFixed(2).padStart(6)}x  ${verdict}`);
}' "$WORK/startup.json" "${targets[@]}"
rm -rf "$LRO_DIR"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
