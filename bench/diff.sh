#!/usr/bin/env bash
# Benchmark of `lro diff A B` (issue 26): two results of SIZE bytes each (default 200 MB) diffed in bounded
# memory, for a log (text), for JSONL records and for go test -json output, each stored once by lro offload in this benchmark's own folder
# (a rerun skips making them); prints the time and the peak RSS (/usr/bin/time) of
#   lro diff A B              (the summary and the first page of changes)
#   lro diff A B --lines      (the log only: with the unified diff on line hashes)
# Target: peak RSS <= 200 MB. Usage: bench/diff.sh. Needs: npm run build.
. "$(dirname "$0")/lib.sh"
SIZE="${SIZE:-200000000}"
WORK="$WORK/diff"
mkdir -p "$WORK"
store="$WORK/store-$SIZE"
export LRO_DIR="$store"

# stored KIND: makes and offloads the two inputs of KIND once; prints "ID_A ID_B"
stored() {
  local kind=$1
  if [ ! -f "$store/$kind.ids" ]; then
    echo "making two $kind inputs of $SIZE bytes (once; kept in $store)" >&2
    mkdir -p "$store"
    node "$BENCH_DIR/make-diff.mjs" "$kind" "$SIZE" "$WORK/$kind"
    local a b
    a=$(node "$LRO" offload --force --no-dedupe --ttl 7d --query "bench $kind a" <"$WORK/$kind-a" | node -e 'process.stdin.on("data",d=>process.stdout.write(JSON.parse(d).id))')
    b=$(node "$LRO" offload --force --no-dedupe --ttl 7d --query "bench $kind b" <"$WORK/$kind-b" | node -e 'process.stdin.on("data",d=>process.stdout.write(JSON.parse(d).id))')
    rm -f "$WORK/$kind-a" "$WORK/$kind-b"
    echo "$a $b" >"$store/$kind.ids"
  fi
  cat "$store/$kind.ids"
}

# measure LABEL ARGS...: runs lro diff once, prints its seconds, peak RSS and exit code, and its first lines (A, B
# side by side, and what differs)
measure() {
  local label=$1
  shift
  local out status
  set +e
  out=$( { /usr/bin/time -v node "$LRO" diff "$@" >"$WORK/out.txt"; } 2>&1)
  status=$?
  set -e
  local rss secs
  rss=$(echo "$out" | awk -F': ' '/Maximum resident set size/ {print $2}')
  secs=$(echo "$out" | awk -F': ' '/Elapsed \(wall clock\)/ {print $2}')
  printf '%-28s %10s  peak RSS %6d MB  exit %s\n' "$label" "$secs" $((rss / 1024)) "$status"
  sed -n 1,3p "$WORK/out.txt" | cut -c1-200 | sed "s/^/    /"
}

read -r LA LB < <(stored log)
read -r JA JB < <(stored jsonl)
read -r GA GB < <(stored gotest)
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
measure 'log: lro diff' "$LA" "$LB"
measure 'log: lro diff --lines' "$LA" "$LB" --lines
measure 'jsonl: lro diff' "$JA" "$JB"
measure 'go test -json: lro diff' "$GA" "$GB"
