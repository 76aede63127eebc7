#!/usr/bin/env bash
# Benchmark of `lro offload` (issue: the foundation). Prints, in one run, lro beside its reference:
#   1. passthrough of a small input vs a bare `node -e 'process.stdin.pipe(process.stdout)'` (hyperfine)
#   2. a 100 KB result: lro's own time = lro's wall time minus the bare node pipe's
#   3. offloading 1 GB of text and 1 GB of JSONL vs `cat FILE > OUT` (and `cat FILE > OUT; sync`, since lro
#      fsyncs its result), with lro's peak RSS; then `lro offload --redact` (every byte scanned for secrets and
#      rewritten) beside plain `lro offload`
# With LRO_BASELINE=/path/to/other/bin/lro.js, step 3 also runs that build (e.g. a checkout before a change),
# alternating with this one, and prints the ratio: a before/after comparison on the same loaded machine.
# Usage: bench/offload.sh [SIZE_BYTES]   (default 1000000000). Needs: npm run build. Installs hyperfine if missing.
. "$(dirname "$0")/lib.sh"
SIZE="${1:-1000000000}"
RUNS="${RUNS:-3}"
export LRO_DIR="$WORK/store"
need hyperfine hyperfine

echo "== passthrough: echo hi | lro offload"
hyperfine -N --warmup 3 --runs 30 --export-json "$WORK/pass.json" \
  -n node "bash -c \"echo hi | node -e 'process.stdin.pipe(process.stdout)'\"" \
  -n lro "bash -c \"echo hi | $LRO offload\"" >/dev/null
node -e '
const r = require(process.argv[1]).results; const m = Object.fromEntries(r.map((x) => [x.command, x.mean * 1000]));
console.log(`node pipe ${m.node.toFixed(1)} ms, lro ${m.lro.toFixed(1)} ms, ratio ${(m.lro / m.node).toFixed(2)} (target <= 1.5)`);' "$WORK/pass.json"

echo "== a 100 KB result: lro offload --force"
node "$BENCH_DIR/make-data.mjs" text 100000 "$WORK/100k.log" >/dev/null
hyperfine -N --warmup 3 --runs 30 --export-json "$WORK/100k.json" \
  -n node "bash -c \"node -e 'process.stdin.pipe(process.stdout)' < $WORK/100k.log\"" \
  -n lro "bash -c \"$LRO offload --force < $WORK/100k.log\"" >/dev/null
node -e '
const r = require(process.argv[1]).results; const m = Object.fromEntries(r.map((x) => [x.command, x.mean * 1000]));
console.log(`node pipe ${m.node.toFixed(1)} ms, lro ${m.lro.toFixed(1)} ms, lro own time ${(m.lro - m.node).toFixed(1)} ms (target < 50)`);' "$WORK/100k.json"

for kind in text jsonl; do
  input="$WORK/$kind-$SIZE.in"
  [ -f "$input" ] || node "$BENCH_DIR/make-data.mjs" "$kind" "$SIZE" "$input" >/dev/null
  bytes=$(stat -c %s "$input")
  echo "== offload $kind: $bytes bytes, $RUNS runs each, alternating"
  : > "$WORK/cat.t"; : > "$WORK/catsync.t"; : > "$WORK/lro.t"; : > "$WORK/lro.rss"; : > "$WORK/base.t"; : > "$WORK/redact.t"
  for i in $(seq "$RUNS"); do
    rm -f "$WORK/out"; settle
    read -r s _ < <(timed "cat '$input' > '$WORK/out'"); echo "$s" >> "$WORK/cat.t"
    rm -f "$WORK/out"; settle
    read -r s _ < <(timed "cat '$input' > '$WORK/out'; sync"); echo "$s" >> "$WORK/catsync.t"
    rm -f "$WORK/out"; rm -rf "$LRO_DIR"; settle
    read -r s rss < <(timed "'$LRO' offload < '$input'"); echo "$s" >> "$WORK/lro.t"; echo "$rss" >> "$WORK/lro.rss"
    rm -rf "$LRO_DIR"; settle
    read -r s _ < <(timed "'$LRO' offload --redact < '$input'"); echo "$s" >> "$WORK/redact.t"
    if [ -n "${LRO_BASELINE:-}" ]; then
      rm -rf "$LRO_DIR"; settle
      read -r s _ < <(timed "'$LRO_BASELINE' offload < '$input'"); echo "$s" >> "$WORK/base.t"
    fi
    rm -rf "$LRO_DIR"
  done
  cat_s=$(median < "$WORK/cat.t"); catsync_s=$(median < "$WORK/catsync.t"); lro_s=$(median < "$WORK/lro.t")
  rss=$(sort -g "$WORK/lro.rss" | tail -1)
  echo "cat ${cat_s}s, cat+sync ${catsync_s}s, lro ${lro_s}s ($(awk -v b="$bytes" -v s="$lro_s" 'BEGIN{printf "%.0f", b/s/1e6}') MB/s)"
  echo "throughput ratio lro/cat $(ratio "$cat_s" "$lro_s") (target >= 0.5), lro/(cat+sync) $(ratio "$catsync_s" "$lro_s"); lro peak RSS $((rss / 1024)) MB (target < 150)"
  redact_s=$(median < "$WORK/redact.t")
  echo "lro offload --redact ${redact_s}s ($(awk -v b="$bytes" -v s="$redact_s" 'BEGIN{printf "%.0f", b/s/1e6}') MB/s), time ratio --redact/plain $(ratio "$redact_s" "$lro_s")"
  if [ -n "${LRO_BASELINE:-}" ]; then
    base_s=$(median < "$WORK/base.t")
    echo "baseline $LRO_BASELINE ${base_s}s; time ratio this/baseline $(ratio "$lro_s" "$base_s") (secret scan target: <= 1.05)"
  fi
done
rm -f "$WORK/out"
