#!/usr/bin/env bash
# Benchmark of the readers (issues 7 and 13). Prints, in one run, lro beside its references, one line per target:
#   1. lro grep on a 1 GB offloaded log vs ripgrep on the original file, for each pattern class (target: within
#      3x rg; moonshot 2x), and vs GNU grep for each literal (target: faster), with lro's peak RSS (target:
#      at most 120 MB)
#   2. lro jq on a 1 GB offloaded JSONL vs native jq and gojq (target: within 2x jq), and a 100 MB `jq -s`
#   3. every reader on a 1 MB result, start-up included, run round-robin with `node -e 0` (targets: at most
#      150 ms and 2x `node -e 0`)
# Every tool's output goes through a pipe (`| cat >/dev/null`): GNU grep stops at the first match when its
# output is /dev/null. The machine's load average is printed at the start and the end: quote it with a figure.
# Usage: bench/readers.sh [SIZE_BYTES] (default 1000000000). SECTIONS="grep jq small" picks sections.
# Needs: npm run build.
. "$(dirname "$0")/lib.sh"
SIZE="${1:-1000000000}"
RUNS="${RUNS:-3}"
SECTIONS="${SECTIONS:-grep jq small}"
export LRO_DIR="$WORK/readers-store"
need rg ripgrep
need jq jq
need gojq gojq || true

# offload_once KIND FILE: the id of FILE offloaded (cached in the store between runs)
offload_once() {
  local marker="$WORK/readers-$1-$SIZE.id"
  if [ -f "$marker" ] && "$LRO" info "$(cat "$marker")" --header >/dev/null 2>&1; then cat "$marker"; return; fi
  "$LRO" offload --force --no-dedupe --ttl 7d --operation "bench-$1" < "$2" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).id))' > "$marker"
  cat "$marker"
}

# verdict VALUE OP LIMIT: "ok" or "MISSED" for VALUE OP LIMIT (OP: le or ge)
verdict() { awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN { ok = op == "le" ? v <= l : v >= l; print ok ? "ok" : "MISSED" }'; }

# race LABEL REF_NAME REF_CMD LRO_CMD TARGET [RSS_MB]: median wall time of each over RUNS alternating runs;
# prints the ratio against TARGET (a ratio lro/ref to stay under) and lro's peak RSS (against RSS_MB if given)
race() {
  local label="$1" refname="$2" ref="$3" ours="$4" target="$5" rss_target="${6:-}"
  : > "$WORK/r.t"; : > "$WORK/o.t"; : > "$WORK/o.rss"
  for _ in $(seq "$RUNS"); do
    read -r s _ < <(timed "$ref"); echo "$s" >> "$WORK/r.t"
    read -r s rss < <(timed "$ours"); echo "$s" >> "$WORK/o.t"; echo "$rss" >> "$WORK/o.rss"
  done
  local r o q mb
  r=$(median < "$WORK/r.t"); o=$(median < "$WORK/o.t"); q=$(ratio "$o" "$r"); mb=$(( $(sort -g "$WORK/o.rss" | tail -1) / 1024 ))
  printf '%-46s %-5s %6.2fs  lro %6.2fs  lro/%-5s %5s (target <= %s: %s)  lro peak RSS %d MB%s\n' \
    "$label" "$refname" "$r" "$o" "$refname" "$q" "$target" "$(verdict "$q" le "$target")" "$mb" \
    "$([ -n "$rss_target" ] && echo " (target <= $rss_target: $(verdict "$mb" le "$rss_target"))")"
}

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
text="$WORK/text-$SIZE.in"; jsonl="$WORK/jsonl-$SIZE.in"
[ -f "$text" ] || node "$BENCH_DIR/make-data.mjs" text "$SIZE" "$text" >/dev/null
[ -f "$jsonl" ] || node "$BENCH_DIR/make-data.mjs" jsonl "$SIZE" "$jsonl" >/dev/null

if [[ " $SECTIONS " == *" grep "* ]]; then
  T=$(offload_once text "$text")
  echo "== grep: $(stat -c %s "$text") bytes of logs, $RUNS runs each (median); lro with --max-tokens 0"
  g() { echo "'$LRO' grep $T $1 --max-tokens 0 | cat >/dev/null"; }
  race "rare literal (1,120 matches)" rg "rg -n -F 'Invalid user webmaster' '$text' | cat >/dev/null" "$(g "'Invalid user webmaster' -F")" 3 120
  race "literal, 291,085 matches" rg "rg -n -F 'Failed password' '$text' | cat >/dev/null" "$(g "'Failed password' -F")" 3 120
  race "literal, no match" rg "rg -n -F 'zzq-no-such-line' '$text' | cat >/dev/null" "$(g "'zzq-no-such-line' -F")" 3 120
  race "alternation 'ERROR|FATAL|Exception'" rg "rg -n 'ERROR|FATAL|Exception' '$text' | cat >/dev/null" "$(g "'ERROR|FATAL|Exception'")" 3 120
  race "regex 'blk_-?[0-9]+ terminating'" rg "rg -n 'blk_-?[0-9]+ terminating' '$text' | cat >/dev/null" "$(g "'blk_-?[0-9]+ terminating'")" 3 120
  race "ignore case -i 'failed password'" rg "rg -n -i 'failed password' '$text' | cat >/dev/null" "$(g "'failed password' -i")" 3 120
  race "count -c 'Failed password'" rg "rg -c 'Failed password' '$text' | cat >/dev/null" "'$LRO' grep $T 'Failed password' -c | cat >/dev/null" 3 120
  race "words -w 'root'" rg "rg -n -w 'root' '$text' | cat >/dev/null" "$(g "'root' -w")" 3 120
  race "invert count -v -c 'INFO'" rg "rg -v -c 'INFO' '$text' | cat >/dev/null" "'$LRO' grep $T 'INFO' -v -c | cat >/dev/null" 3 120
  # the floor for lro: Node starting and reading the stored file once, with nothing found or printed
  race "floor: node reads the stored result once" rg "rg -n -F 'zzq-no-such-line' '$text' | cat >/dev/null" "node '$BENCH_DIR/read-floor.mjs' '$LRO_DIR/lro-bench-text-$T.jsonl' | cat >/dev/null" 3
  for p in 'Invalid user webmaster' 'Failed password' 'zzq-no-such-line'; do
    race "literal '$p' (faster than GNU grep)" grep "LC_ALL=C grep -n -F '$p' '$text' | cat >/dev/null" "$(g "'$p' -F")" 1 120
  done
fi

if [[ " $SECTIONS " == *" jq "* ]]; then
  J=$(offload_once jsonl "$jsonl")
  echo "== jq: $(stat -c %s "$jsonl") bytes of JSONL, streaming filters (median of $RUNS)"
  F='select(.Action? == "fail") | .Test'
  race "jq '$F'" jq "jq -c '$F' '$jsonl' | cat >/dev/null" "'$LRO' jq $J -c '$F' --max-tokens 0 | cat >/dev/null" 2
  command -v gojq >/dev/null && race "jq '$F'" gojq "gojq -c '$F' '$jsonl' | cat >/dev/null" "'$LRO' jq $J -c '$F' --max-tokens 0 | cat >/dev/null" 2
  F2='.user?.screen_name? // empty'
  race "jq '$F2'" jq "jq -r '$F2' '$jsonl' | cat >/dev/null" "'$LRO' jq $J -r '$F2' --max-tokens 0 | cat >/dev/null" 2

  echo "== jq -s on 100 MB of JSONL"
  head -c 100000000 "$jsonl" | head -n -1 > "$WORK/jsonl-100m.in"
  J100=$(SIZE=100m offload_once jsonl100m "$WORK/jsonl-100m.in")
  race "jq -s 'length'" jq "jq -s 'length' '$WORK/jsonl-100m.in' | cat >/dev/null" "'$LRO' jq $J100 -s 'length' | cat >/dev/null" 2
  printf 'lro jq -s length -> %s\n' "$("$LRO" jq "$J100" -s 'length' 2>&1)"
fi

if [[ " $SECTIONS " == *" small "* ]]; then
  echo "== readers on a 1 MB result, start-up included, round-robin with node -e 0 (median of ${SMALL_RUNS:-15})"
  node "$BENCH_DIR/make-data.mjs" text 1000000 "$WORK/1m.log" >/dev/null
  node "$BENCH_DIR/make-data.mjs" jsonl 1000000 "$WORK/1m.jsonl" >/dev/null
  # offloaded anew by this build each run (cheap at 1 MB): info reads the statistics an offload keeps in line 1
  rm -f "$WORK/readers-text1m-1m.id" "$WORK/readers-jsonl1m-1m.id"
  T1=$(SIZE=1m offload_once text1m "$WORK/1m.log"); J1=$(SIZE=1m offload_once jsonl1m "$WORK/1m.jsonl")
  readers=(
    node "node -e 0"
    "read --head 50" "$LRO read $T1 --head 50"
    "read --records 5000:5100" "$LRO read $T1 --records 5000:5100"
    "grep literal" "$LRO grep $T1 WindowManager"
    "grep -i error" "$LRO grep $T1 error -i"
    "grep regex" "$LRO grep $T1 'blk_[0-9]+'"
    "grep -c regex" "$LRO grep $T1 'pid=[0-9]+' -c"
    "jq select" "$LRO jq $J1 -c 'select(.Action? == \"pass\") | .Test'"
    "jq -s length" "$LRO jq $J1 -s length"
    "jq map/group_by" "$LRO jq $J1 -s -c 'map(.type?) | group_by(.) | map(length)'"
    "cat" "$LRO cat $T1"
    "info (text)" "$LRO info $T1"
    "info (jsonl)" "$LRO info $J1"
  )
  readers+=(
    "count --by" "$LRO count $J1 --by Action"
    "where" "$LRO where $J1 Action=fail 'Elapsed>0'"
    "where regex" "$LRO where $J1 'Test~^Test[A-Z]'"
  )
  # the same build without V8's code cache (bin/code-cache.js), for what the cache gains
  NOCACHE=$(without_code_cache)
  readers+=(
    "read --head 50, no code cache" "$NOCACHE read $T1 --head 50"
    "grep literal, no code cache" "$NOCACHE grep $T1 WindowManager"
    "jq select, no code cache" "$NOCACHE jq $J1 -c 'select(.Action? == \"pass\") | .Test'"
    "info (text), no code cache" "$NOCACHE info $T1"
  )
  node "$BENCH_DIR/interleave.mjs" "${SMALL_RUNS:-15}" "${readers[@]}" > "$WORK/small.json"
  node -e '
const r = require(process.argv[1]); const node = r.node.median_ms;
console.log(`node -e 0                      ${node.toFixed(0).padStart(5)} ms`);
for (const [name, v] of Object.entries(r)) {
  if (name === "node") continue;
  if (v.error) { console.log(`${name.padEnd(30)} failed: ${v.error.split("\n")[0]}`); continue; }
  const x = v.median_ms / node, ok = v.median_ms <= 150 && x <= 2;
  console.log(`${name.padEnd(30)} ${v.median_ms.toFixed(0).padStart(5)} ms  x${x.toFixed(2)} node (targets <= 150 ms, <= 2x: ${ok ? "ok" : "MISSED"})`);
}' "$WORK/small.json"
fi
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
