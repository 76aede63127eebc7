#!/usr/bin/env bash
# Benchmark of the readers (issue: read, grep, jq). Prints, in one run, lro beside its references:
#   1. lro grep on a 1 GB offloaded log vs ripgrep and GNU grep on the original file (targets: within 3x rg;
#      faster than GNU grep for a literal)
#   2. lro jq on a 1 GB offloaded JSONL vs native jq and gojq on the original file, with peak RSS (target:
#      within 2x jq, memory flat), and a 100 MB `jq -s` slurp
#   3. each reader on a 1 MB result, start-up included (target: under 150 ms wall)
# Every tool's output goes through a pipe (`| cat >/dev/null`): GNU grep stops at the first match when its
# output is /dev/null. Usage: bench/readers.sh [SIZE_BYTES] (default 1000000000). Needs: npm run build.
. "$(dirname "$0")/lib.sh"
SIZE="${1:-1000000000}"
RUNS="${RUNS:-3}"
export LRO_DIR="$WORK/readers-store"
need rg ripgrep
need jq jq
need gojq gojq || true
need hyperfine hyperfine

# offload_once KIND FILE: the id of FILE offloaded (cached in the store between runs)
offload_once() {
  local marker="$WORK/readers-$1-$SIZE.id"
  if [ -f "$marker" ] && "$LRO" info "$(cat "$marker")" >/dev/null 2>&1; then cat "$marker"; return; fi
  "$LRO" offload --force --ttl 7d --operation "bench-$1" < "$2" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).id))' > "$marker"
  cat "$marker"
}

# race LABEL REF_NAME REF_CMD LRO_CMD: median wall time of each over RUNS alternating runs; prints the ratio
race() {
  local label="$1" refname="$2" ref="$3" ours="$4"
  : > "$WORK/r.t"; : > "$WORK/o.t"; : > "$WORK/o.rss"
  for _ in $(seq "$RUNS"); do
    read -r s _ < <(timed "$ref"); echo "$s" >> "$WORK/r.t"
    read -r s rss < <(timed "$ours"); echo "$s" >> "$WORK/o.t"; echo "$rss" >> "$WORK/o.rss"
  done
  local r o
  r=$(median < "$WORK/r.t"); o=$(median < "$WORK/o.t")
  printf '%-44s %-5s %6.2fs  lro %6.2fs  ratio lro/%s %s  (lro peak RSS %d MB)\n' "$label" "$refname" "$r" "$o" "$refname" "$(ratio "$o" "$r")" "$(( $(sort -g "$WORK/o.rss" | tail -1) / 1024 ))"
}

text="$WORK/text-$SIZE.in"; jsonl="$WORK/jsonl-$SIZE.in"
[ -f "$text" ] || node "$BENCH_DIR/make-data.mjs" text "$SIZE" "$text" >/dev/null
[ -f "$jsonl" ] || node "$BENCH_DIR/make-data.mjs" jsonl "$SIZE" "$jsonl" >/dev/null
T=$(offload_once text "$text"); J=$(offload_once jsonl "$jsonl")

echo "== grep: $(stat -c %s "$text") bytes of logs, $RUNS runs each (median)"
for p in 'Failed password for root' 'Failed password' 'zzq-no-such-line'; do
  race "literal '$p'" rg "rg -n -F '$p' '$text' | cat >/dev/null" "'$LRO' grep $T '$p' -F --max-tokens 0 | cat >/dev/null"
  race "literal '$p'" grep "LC_ALL=C grep -n -F '$p' '$text' | cat >/dev/null" "'$LRO' grep $T '$p' -F --max-tokens 0 | cat >/dev/null"
done
for p in 'ERROR|FATAL|Exception' 'blk_-?[0-9]+ terminating'; do
  race "regex '$p'" rg "rg -n '$p' '$text' | cat >/dev/null" "'$LRO' grep $T '$p' --max-tokens 0 | cat >/dev/null"
done
race "ignore case 'failed password'" rg "rg -n -i 'failed password' '$text' | cat >/dev/null" "'$LRO' grep $T 'failed password' -i --max-tokens 0 | cat >/dev/null"
race "count 'Failed password' (-c)" rg "rg -c 'Failed password' '$text' | cat >/dev/null" "'$LRO' grep $T 'Failed password' -c | cat >/dev/null"

echo "== jq: $(stat -c %s "$jsonl") bytes of JSONL, streaming filters (median of $RUNS)"
F='select(.Action? == "fail") | .Test'
race "jq '$F'" jq "jq -c '$F' '$jsonl' | cat >/dev/null" "'$LRO' jq $J -c '$F' --max-tokens 0 | cat >/dev/null"
command -v gojq >/dev/null && race "jq '$F'" gojq "gojq -c '$F' '$jsonl' | cat >/dev/null" "'$LRO' jq $J -c '$F' --max-tokens 0 | cat >/dev/null"
F2='.user?.screen_name? // empty'
race "jq '$F2'" jq "jq -r '$F2' '$jsonl' | cat >/dev/null" "'$LRO' jq $J -r '$F2' --max-tokens 0 | cat >/dev/null"

echo "== jq -s on 100 MB of JSONL"
head -c 100000000 "$jsonl" | head -n -1 > "$WORK/jsonl-100m.in"
J100=$(SIZE=100m offload_once jsonl100m "$WORK/jsonl-100m.in")
race "jq -s 'length'" jq "jq -s 'length' '$WORK/jsonl-100m.in' | cat >/dev/null" "'$LRO' jq $J100 -s 'length' | cat >/dev/null"
printf 'lro jq -s length -> %s\n' "$("$LRO" jq "$J100" -s 'length' 2>&1)"

echo "== readers on a 1 MB result (hyperfine, start-up included; target < 150 ms)"
node "$BENCH_DIR/make-data.mjs" text 1000000 "$WORK/1m.log" >/dev/null
node "$BENCH_DIR/make-data.mjs" jsonl 1000000 "$WORK/1m.jsonl" >/dev/null
T1=$(SIZE=1m offload_once text1m "$WORK/1m.log"); J1=$(SIZE=1m offload_once jsonl1m "$WORK/1m.jsonl")
hyperfine -N --warmup 2 --runs 15 --export-json "$WORK/small.json" \
  -n "read --head 50" "$LRO read $T1 --head 50" \
  -n "read --records 5000:5100" "$LRO read $T1 --records 5000:5100" \
  -n "grep -i error" "$LRO grep $T1 error -i" \
  -n "grep regex" "$LRO grep $T1 'blk_[0-9]+'" \
  -n "jq select" "$LRO jq $J1 -c 'select(.Action? == \"pass\") | .Test'" \
  -n "jq -s length" "$LRO jq $J1 -s length" \
  -n "cat" "$LRO cat $T1" \
  -n "info" "$LRO info $T1" >/dev/null
node -e '
for (const r of require(process.argv[1]).results) console.log(`${r.command.padEnd(28)} ${(r.mean * 1000).toFixed(0).padStart(5)} ms mean, ${(r.max * 1000).toFixed(0).padStart(5)} ms max`);' "$WORK/small.json"
