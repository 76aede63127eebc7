#!/usr/bin/env bash
# Benchmark of a cold `lro ls` of a large S3 store (issue 41): COUNT results on s3rver (loopback, started here),
# listed whole (`ls --max-tokens 0`) by a machine with an empty cache, first before the store has an index of its
# headers (one ranged GET per result; that listing writes the index), then by another machine after (one GET of
# the index), and that machine listing it again, warm (its index objects kept in its cache: no GET of them). Beside them, the server's own listing of the same keys (the floor any listing stands on, from a
# process that has the SDK loaded and its connection open), and a cold ls of an empty store (what any lro ls pays:
# the process, the S3 worker and its SDK, one listing request). Prints the seconds of each and the ratios. Usage: bench/s3-ls.sh [COUNT]   (default 10000). Needs: npm run build.
. "$(dirname "$0")/lib.sh"
COUNT="${1:-10000}"
PORT="${S3_PORT:-45125}"
DATA="$WORK/s3rver-ls"
rm -rf "$DATA" "$WORK/ls-cache-"* "$WORK/ls-local" && mkdir -p "$DATA"
start_s3rver "$PORT" "$DATA"
seq 2000 | sed 's/^/one line of a result /' | LRO_DIR="$WORK/ls-local" node "$LRO" offload --force >/dev/null
RAW=$(node "$BENCH_DIR/s3-fill.mjs" "$(ls "$WORK/ls-local"/lro-offload-*.jsonl)" bench many "$COUNT")
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $COUNT results"

# cold MACHINE: seconds of a whole ls on a machine with its own cache (XDG_CACHE_HOME; empty the first time)
cold() {
  /usr/bin/time -f '%e' bash -c "XDG_CACHE_HOME=$WORK/ls-cache-$1 LRO_DIR=s3://bench/${2:-many} node $LRO ls \
    --max-tokens 0 > $WORK/ls-$1.out 2>/dev/null" 2>&1 | tail -1
}
settle
BEFORE=$(cold first)
settle
AFTER=$(cold second)
cp "$WORK/ls-second.out" "$WORK/ls-second-cold.out"
settle
WARM=$(cold second) # the same machine again: its cache kept
settle
EMPTY=$(cold empty nothing-here)
for out in second-cold second; do
  cmp -s "$WORK/ls-first.out" "$WORK/ls-$out.out" || { echo "the listings differ ($out)" >&2; exit 1; }
done
printf '%-44s %8s s\n' "server's own listing (SDK)" "$RAW" "lro ls, cold, no index (a GET per header)" "$BEFORE" \
  "lro ls, cold, with the index" "$AFTER" "lro ls, warm (the index objects kept)" "$WARM" \
  "lro ls, cold, of an empty store" "$EMPTY"
echo "cold ls with the index / server's listing:   $(ratio "$AFTER" "$RAW")"
echo "the same, less the empty store's ls:         $(ratio "$(awk -v a="$AFTER" -v e="$EMPTY" 'BEGIN { print a - e }')" "$RAW")"
echo "cold ls without / with the index:            $(ratio "$BEFORE" "$AFTER")"
echo "ls with the index, cold / warm:              $(ratio "$AFTER" "$WARM")"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
