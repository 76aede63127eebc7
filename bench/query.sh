#!/usr/bin/env bash
# Benchmark of lro where and lro count (issue 11). Prints, in one run, each question answered by lro where/count,
# by lro jq with the filter --explain prints (the same question), and by native jq and gojq on the original
# file, with the ratios (targets: where/count within 1.5x lro jq; faster is the aim):
#   1. a 100 MB JSONL result (go test events, GitHub events, tweets, phone listings, repeated)
#   2. a 1 MB result, start-up included (target: under 150 ms each)
# Usage: bench/query.sh [SIZE_BYTES] (default 100000000). Needs: npm run build. Installs jq, gojq, hyperfine.
. "$(dirname "$0")/lib.sh"
SIZE="${1:-100000000}"
RUNS="${RUNS:-3}"
export LRO_DIR="$WORK/query-store"
need jq jq
need gojq gojq || true
need hyperfine hyperfine

# stored KIND FILE: the id of FILE offloaded (kept in the store between runs of this script)
stored() {
  local marker="$WORK/query-$1.id"
  if [ -f "$marker" ] && "$LRO" info "$(cat "$marker")" >/dev/null 2>&1; then cat "$marker"; return; fi
  "$LRO" offload --force --ttl 7d --operation "bench-$1" < "$2" | jq -r .id > "$marker"
  cat "$marker"
}

# question LABEL FILE ID LRO_ARGS...: lro's answer against lro jq, jq and gojq running the --explain filter
question() {
  local label="$1" file="$2" id="$3"; shift 3
  local explain flags filter
  explain=$("$LRO" "$@" --explain)
  flags=$(sed -E "s/^lro jq [^ ]+ (-s -c|-c) '.*'$/\1/" <<<"$explain")
  filter=$(sed -E "s/^lro jq [^ ]+ (-s -c|-c) '(.*)'$/\2/" <<<"$explain")
  local q; q=$(printf '%q ' "$@")
  local cmds=(-n "lro $1" "$LRO $q --max-tokens 0 | cat >/dev/null"
    -n "lro jq" "$LRO jq $id $flags '$filter' --max-tokens 0 | cat >/dev/null"
    -n "jq" "jq $flags '$filter' '$file' | cat >/dev/null")
  command -v gojq >/dev/null && cmds+=(-n "gojq" "gojq $flags '$filter' '$file' | cat >/dev/null")
  hyperfine --runs "$RUNS" --export-json "$WORK/q.json" "${cmds[@]}" >/dev/null 2>&1 || { echo "$label: a command failed"; return; }
  node -e '
const r = require(process.argv[1]).results; const t = Object.fromEntries(r.map((x) => [x.command, x.median]));
const ours = r[0].median;
const ratio = (k) => (t[k] === undefined ? "" : `${k} ${t[k].toFixed(2)}s (lro/${k} ${(ours / t[k]).toFixed(2)})`);
console.log(`${process.argv[2].padEnd(46)} lro ${ours.toFixed(2)}s  ${["lro jq", "jq", "gojq"].map(ratio).filter(Boolean).join("  ")}`);' "$WORK/q.json" "$label"
}

jsonl="$WORK/jsonl-$SIZE.in"
[ -f "$jsonl" ] || node "$BENCH_DIR/make-data.mjs" jsonl "$SIZE" "$jsonl" >/dev/null
J=$(stored "jsonl-$SIZE" "$jsonl")
echo "== $(stat -c %s "$jsonl") bytes of JSONL, median of $RUNS runs; load: $(cut -d' ' -f1-3 /proc/loadavg)"
question "where Action=fail" "$jsonl" "$J" where "$J" Action=fail
question "where (3 conditions)" "$jsonl" "$J" where "$J" user.lang=ja 'retweet_count>5' 'user.followers_count>=100'
question "where Output~FAIL" "$jsonl" "$J" where "$J" 'Output~FAIL'
question "where id=505874924095815700 (beyond 2^53)" "$jsonl" "$J" where "$J" id=505874924095815700
question "count --by Action" "$jsonl" "$J" count "$J" --by Action
question "count --by user.lang" "$jsonl" "$J" count "$J" --by user.lang

echo "== a 1 MB result (hyperfine, start-up included; target < 150 ms)"
node "$BENCH_DIR/make-data.mjs" jsonl 1000000 "$WORK/q1m.jsonl" >/dev/null
node "$BENCH_DIR/make-data.mjs" text 1000000 "$WORK/q1m.log" >/dev/null
J1=$(stored jsonl1m "$WORK/q1m.jsonl"); T1=$(stored text1m "$WORK/q1m.log")
hyperfine -N --warmup 2 --runs 15 --export-json "$WORK/q1m.json" \
  -n "where Action=fail" "$LRO where $J1 Action=fail" \
  -n "where 3 conditions" "$LRO where $J1 user.lang=ja retweet_count>5 user.followers_count>=100" \
  -n "count --by Action" "$LRO count $J1 --by Action" \
  -n "count --by level (text)" "$LRO count $T1 --by level" \
  -n "count --by template (text)" "$LRO count $T1 --by template" \
  -n "jq select (reference)" "$LRO jq $J1 -c 'select(.Action?==\"fail\")'" >/dev/null
node -e '
for (const r of require(process.argv[1]).results) console.log(`${r.command.padEnd(28)} ${(r.mean * 1000).toFixed(0).padStart(5)} ms mean, ${(r.max * 1000).toFixed(0).padStart(5)} ms max`);' "$WORK/q1m.json"
