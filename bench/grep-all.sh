#!/usr/bin/env bash
# Benchmark of `lro grep --all` (issue 26): a store of COUNT results (default 1,000) of about SIZE bytes each
# (default 1 MB: 1 GB in all), made by lro's offload of generated logs (bench/make-grep-store.mjs) and kept in
# this benchmark's own folder so a rerun skips it; then a rare literal counted in every result,
#   lro grep --all -c -F RARE      against      rg -c -F RARE over the same stored files,
# each run RUNS times (default 3) after one warm-up; prints the median times, the ratio, and the load average.
# Target: lro under 3 s. Usage: bench/grep-all.sh. Needs: npm run build, rg (installed with apt if missing).
. "$(dirname "$0")/lib.sh"
COUNT="${COUNT:-1000}"
SIZE="${SIZE:-1048576}"
RUNS="${RUNS:-3}"
RARE='ECONNRESET-7f3a9'
WORK="$WORK/grep-all"
store="$WORK/store-$COUNT-$SIZE"
need rg ripgrep

if [ ! -f "$store.complete" ]; then
  rm -rf "$store"
  echo "making the store: $COUNT results of $SIZE bytes (once; kept in $store)" >&2
  node "$BENCH_DIR/make-grep-store.mjs" "$store" "$COUNT" "$SIZE" "$RARE"
  touch "$store.complete"
fi
files=$(find "$store" -name 'lro-*.jsonl' | wc -l)
bytes=$(du -sb "$store" | cut -f1)
echo "store: $files results, $(numfmt --to=iec "$bytes")B"

# the two answers must agree: the same three results, one record each
lro_out=$("$LRO" grep --all -c -F "$RARE" --dir "$store" --max-tokens 0)
rg_out=$(rg -c -F "$RARE" "$store" | sort)
echo "lro: $(echo "$lro_out" | wc -l) results with a match; rg: $(echo "$rg_out" | wc -l) files"
[ "$(echo "$lro_out" | wc -l)" = "$(echo "$rg_out" | wc -l)" ] || { echo "lro and rg disagree" >&2; exit 1; }

# run_median CMD: "wall cpu" medians of RUNS runs (cpu: user + system seconds, which a loaded machine inflates less)
run_median() {
  bash -c "$1" >/dev/null 2>&1 # warm-up (page cache)
  local runs
  runs=$(for _ in $(seq "$RUNS"); do { /usr/bin/time -f '%e %U %S' bash -c "$1" >/dev/null; } 2>&1 | tail -1; done)
  echo "$(echo "$runs" | cut -d' ' -f1 | median) $(echo "$runs" | awk '{print $2 + $3}' | median)"
}
read -r LRO_S LRO_CPU < <(run_median "'$LRO' grep --all -c -F '$RARE' --dir '$store'")
read -r RG_S RG_CPU < <(run_median "rg -c -F '$RARE' '$store'")
echo "lro grep --all -c -F $RARE: ${LRO_S} s wall, ${LRO_CPU} s cpu (medians of $RUNS)"
echo "rg -c -F $RARE (same files): ${RG_S} s wall, ${RG_CPU} s cpu (medians of $RUNS)"
echo "ratio lro/rg: $(ratio "$LRO_S" "$RG_S")   target: lro under 3 s"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
