#!/usr/bin/env bash
# Benchmark of `lro ls` and `lro gc` (issue: keeping the store tidy). Builds stores of 10,000 and 100,000
# results (bench/make-store.mjs copies one real result with new ids), then times, at both sizes:
#   lro ls --json > /dev/null      and      lro gc --dry-run
# and prints the times, the 100k/10k ratio (linear growth is about 10) and the cost per 1,000 files beside the
# reference system's quoted 150 ms per 1,000 files. Target: each under 5 s at 100k.
# With TREE_SESSIONS=K (default 10) the results are spread over K session folders and the root, as
# `--session` lays them out; TREE_SESSIONS=0 puts them all in the root.
# Usage: bench/store.sh [SIZES...]   (default: 10000 100000). Needs: npm run build. Installs hyperfine if missing.
# Times are warm-cache means (hyperfine); RUNS (default 3) runs at 100k, three times as many below 50k.
. "$(dirname "$0")/lib.sh"
RUNS="${RUNS:-3}"
if [ $# -gt 0 ]; then SIZES=("$@"); else SIZES=(10000 100000); fi
REFERENCE_MS_PER_1000=150
TREE_SESSIONS="${TREE_SESSIONS:-10}"
# its own folder: other benchmarks share $WORK
WORK="$WORK/ls-gc"
mkdir -p "$WORK"

template="$WORK/store-template"
rm -rf "$template"
seq 1 40 | sed 's/^/line of output number /' | LRO_DIR="$template" "$LRO" offload --force >/dev/null
template_file=$(ls "$template"/lro-*.jsonl)

need hyperfine hyperfine
# mean ms of one command (hyperfine), runs given
mean_ms() {
  hyperfine -N --warmup 1 --runs "$1" --export-json "$WORK/h.json" "$2" >/dev/null 2>&1
  node -e 'console.log((require(process.argv[1]).results[0].mean * 1000).toFixed(0))' "$WORK/h.json"
}
per1000() { awk -v ms="$1" -v n="$2" 'BEGIN { printf "%.1f", ms / (n / 1000) }'; }

# start-up: the same command on an empty store, so growth can also be read net of Node's start
empty="$WORK/store-empty"; rm -rf "$empty"; mkdir -m 700 "$empty"
BASE=$(mean_ms 10 "$LRO ls --json --dir $empty")
echo "start-up (lro ls --json on an empty store): ${BASE} ms"

declare -A LS_MS GC_MS
for n in "${SIZES[@]}"; do
  store="$WORK/store-$n-s$TREE_SESSIONS"
  if [ "$(find "$store" -maxdepth 3 -name 'lro-*.jsonl' 2>/dev/null | wc -l)" != "$n" ]; then
    rm -rf "$store"
    echo "== building a store of $n results over $TREE_SESSIONS session folders and the root"
    node "$BENCH_DIR/make-store.mjs" "$template_file" "$n" "$store" "$TREE_SESSIONS" >/dev/null
    settle
  fi
  runs=$(( n >= 50000 ? RUNS : RUNS * 3 ))
  LS_MS[$n]=$(mean_ms "$runs" "bash -c \"$LRO ls --json --max-tokens 0 --dir $store > /dev/null\"")
  GC_MS[$n]=$(mean_ms "$runs" "$LRO gc --dry-run --dir $store")
  read -r _ rss < <(timed "'$LRO' ls --json --max-tokens 0 --dir '$store' > /dev/null")
  SS_MS=$(mean_ms "$runs" "$LRO ls --sessions --dir $store")
  echo "$n results: lro ls --sessions ${SS_MS} ms"
  echo "$n results: lro ls --json ${LS_MS[$n]} ms ($(per1000 "${LS_MS[$n]}" "$n") ms per 1,000 files; peak RSS $((rss / 1024)) MB)," \
    "lro gc --dry-run ${GC_MS[$n]} ms ($(per1000 "${GC_MS[$n]}" "$n") ms per 1,000 files);" \
    "reference: ${REFERENCE_MS_PER_1000} ms per 1,000 files; target < 5000 ms at 100,000"
done
if [ -n "${LS_MS[10000]:-}" ] && [ -n "${LS_MS[100000]:-}" ]; then
  net() { echo $(( $1 - BASE > 1 ? $1 - BASE : 1 )); }
  echo "growth 100k/10k: ls --json $(ratio "${LS_MS[100000]}" "${LS_MS[10000]}"), gc --dry-run $(ratio "${GC_MS[100000]}" "${GC_MS[10000]}") (linear is about 10);" \
    "net of start-up: ls --json $(ratio "$(net "${LS_MS[100000]}")" "$(net "${LS_MS[10000]}")"), gc --dry-run $(ratio "$(net "${GC_MS[100000]}")" "$(net "${GC_MS[10000]}")")"
fi
echo "(stores kept in $WORK/store-N-sK for the next run; remove them with rm -rf)"
