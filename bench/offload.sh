#!/usr/bin/env bash
# Benchmark of `lro offload` (issues 1 and 13). Prints, in one run, lro beside its reference, one line per target:
#   1. passthrough of a small input vs a bare `node -e 'process.stdin.pipe(process.stdout)'`, round-robin
#      (target: at most 1.5x)
#   2. a 100 KB result: lro's own time = lro's wall time minus the bare node pipe's, round-robin (target: at
#      most 50 ms)
#   3. offloading 1 GB of text and 1 GB of JSONL, beside `cat FILE > OUT` (and `cat FILE > OUT; sync`, since lro
#      fsyncs its result) and `sha256sum FILE` (the floor: lro hashes every byte; target for text: at most 1.5x),
#      with lro's peak RSS (targets: text at least 450 MB/s, JSONL at least 300 MB/s, RSS at most 120 MB); then
#      `lro offload --redact` (every byte scanned for secrets and rewritten) beside it
#   4. (SECTIONS=doc) offloading one pretty-printed JSON document of DOC_SIZE bytes (default 100 MB; {"items": [...]}
#      as `kubectl get -o json` prints it; stored as one compact record per item) beside `jq -c '.items[]'`, which
#      parses it and prints the same records, and `sha256sum`; with lro's peak RSS
# With LRO_BASELINE=/path/to/other/bin/lro.js, step 3 also runs that build (e.g. a checkout before a change),
# alternating with this one, and prints the ratio: a before/after comparison on the same loaded machine.
# The machine's load average is printed at the start and the end: quote it with a figure.
# Usage: bench/offload.sh [SIZE_BYTES]   (default 1000000000). SECTIONS="small big" picks sections (add doc).
# Needs: npm run build.
. "$(dirname "$0")/lib.sh"
SIZE="${1:-1000000000}"
RUNS="${RUNS:-3}"
SECTIONS="${SECTIONS:-small big}"
export LRO_DIR="$WORK/store"

verdict() { awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN { ok = op == "le" ? v <= l : v >= l; print ok ? "ok" : "MISSED" }'; }

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
if [[ " $SECTIONS " == *" small "* ]]; then
  node "$BENCH_DIR/make-data.mjs" text 100000 "$WORK/100k.log" >/dev/null
  echo "== passthrough and a 100 KB result, round-robin with a bare node pipe (median of ${SMALL_RUNS:-20})"
  NOCACHE=$(without_code_cache) # the same build without V8's code cache (bin/code-cache.js)
  node "$BENCH_DIR/interleave.mjs" "${SMALL_RUNS:-20}" \
    pipe "echo hi | node -e 'process.stdin.pipe(process.stdout)'" \
    passthrough "echo hi | $LRO offload" \
    pipe100k "node -e 'process.stdin.pipe(process.stdout)' < $WORK/100k.log" \
    offload100k "$LRO offload --force < $WORK/100k.log" \
    offload100k-threshold "$LRO offload < $WORK/100k.log" \
    offload100k-nocache "$NOCACHE offload --force < $WORK/100k.log" > "$WORK/small.json"
  node -e '
const r = require(process.argv[1]); const v = (k) => r[k].median_ms;
const pass = v("passthrough") / v("pipe"), own = v("offload100k") - v("pipe100k"), own2 = v("offload100k-threshold") - v("pipe100k");
const ok = (b) => (b ? "ok" : "MISSED");
console.log(`passthrough: node pipe ${v("pipe").toFixed(1)} ms, lro ${v("passthrough").toFixed(1)} ms, ratio ${pass.toFixed(2)} (target <= 1.5: ${ok(pass <= 1.5)})`);
console.log(`100 KB --force: node pipe ${v("pipe100k").toFixed(1)} ms, lro ${v("offload100k").toFixed(1)} ms, lro own time ${own.toFixed(1)} ms (target <= 50: ${ok(own <= 50)})`);
console.log(`100 KB, counted to the threshold: lro ${v("offload100k-threshold").toFixed(1)} ms, own time ${own2.toFixed(1)} ms`);
console.log(`100 KB --force without the code cache: lro ${v("offload100k-nocache").toFixed(1)} ms, own time ${(v("offload100k-nocache") - v("pipe100k")).toFixed(1)} ms`);' "$WORK/small.json"
  rm -rf "$LRO_DIR"
fi

if [[ " $SECTIONS " == *" big "* ]]; then
  for kind in text jsonl; do
    input="$WORK/$kind-$SIZE.in"
    [ -f "$input" ] || node "$BENCH_DIR/make-data.mjs" "$kind" "$SIZE" "$input" >/dev/null
    bytes=$(stat -c %s "$input")
    echo "== offload $kind: $bytes bytes, $RUNS runs each, alternating"
    : > "$WORK/sha.t"
    : > "$WORK/cat.t"; : > "$WORK/catsync.t"; : > "$WORK/lro.t"; : > "$WORK/lro.rss"; : > "$WORK/base.t"; : > "$WORK/redact.t"
    for i in $(seq "$RUNS"); do
      rm -f "$WORK/out"; settle
      read -r s _ < <(timed "cat '$input' > '$WORK/out'"); echo "$s" >> "$WORK/cat.t"
      rm -f "$WORK/out"; settle
      read -r s _ < <(timed "cat '$input' > '$WORK/out'; sync"); echo "$s" >> "$WORK/catsync.t"
      rm -f "$WORK/out"; settle
      read -r s _ < <(timed "sha256sum '$input'"); echo "$s" >> "$WORK/sha.t"
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
    mbs=$(awk -v b="$bytes" -v s="$lro_s" 'BEGIN{printf "%.0f", b/s/1e6}')
    rss=$(( $(sort -g "$WORK/lro.rss" | tail -1) / 1024 ))
    target=$([ "$kind" = text ] && echo 450 || echo 300)
    echo "cat ${cat_s}s, cat+sync ${catsync_s}s, lro ${lro_s}s: $mbs MB/s (target >= $target: $(verdict "$mbs" ge "$target")); lro/cat throughput $(ratio "$cat_s" "$lro_s"), lro/(cat+sync) $(ratio "$catsync_s" "$lro_s")"
    sha_s=$(median < "$WORK/sha.t"); sha_x=$(ratio "$lro_s" "$sha_s")
    target_sha=""
    if [ "$kind" = text ]; then target_sha=" (target <= 1.5: $(verdict "$sha_x" le 1.5))"; fi
    echo "sha256sum ${sha_s}s, lro/sha256sum $sha_x$target_sha"
    echo "lro peak RSS $rss MB (target <= 120: $(verdict "$rss" le 120))"
    redact_s=$(median < "$WORK/redact.t")
    echo "lro offload --redact ${redact_s}s ($(awk -v b="$bytes" -v s="$redact_s" 'BEGIN{printf "%.0f", b/s/1e6}') MB/s), time ratio --redact/plain $(ratio "$redact_s" "$lro_s")"
    if [ -n "${LRO_BASELINE:-}" ]; then
      base_s=$(median < "$WORK/base.t")
      echo "baseline $LRO_BASELINE ${base_s}s; time ratio this/baseline $(ratio "$lro_s" "$base_s")"
    fi
  done
  rm -f "$WORK/out"
fi

if [[ " $SECTIONS " == *" doc "* ]]; then
  DOC_SIZE="${DOC_SIZE:-100000000}"
  input="$WORK/json-$DOC_SIZE.in"
  [ -f "$input" ] || node "$BENCH_DIR/make-data.mjs" json "$DOC_SIZE" "$input" >/dev/null
  bytes=$(stat -c %s "$input")
  echo "== offload of one pretty-printed JSON document: $bytes bytes, $RUNS runs each, alternating"
  : > "$WORK/lro.t"; : > "$WORK/lro.rss"; : > "$WORK/jq.t"; : > "$WORK/sha.t"; : > "$WORK/base.t"
  has_jq=0; need jq jq && has_jq=1
  for i in $(seq "$RUNS"); do
    rm -rf "$LRO_DIR"; settle
    read -r s rss < <(timed "'$LRO' offload < '$input'"); echo "$s" >> "$WORK/lro.t"; echo "$rss" >> "$WORK/lro.rss"
    if [ "$has_jq" = 1 ]; then settle; read -r s _ < <(timed "jq -c '.items[]' '$input' > '$WORK/out'"); echo "$s" >> "$WORK/jq.t"; fi
    settle; read -r s _ < <(timed "sha256sum '$input'"); echo "$s" >> "$WORK/sha.t"
    if [ -n "${LRO_BASELINE:-}" ]; then
      rm -rf "$LRO_DIR"; settle
      read -r s _ < <(timed "'$LRO_BASELINE' offload < '$input'"); echo "$s" >> "$WORK/base.t"
    fi
  done
  lro_s=$(median < "$WORK/lro.t"); sha_s=$(median < "$WORK/sha.t")
  echo "lro ${lro_s}s ($(awk -v b="$bytes" -v s="$lro_s" 'BEGIN{printf "%.0f", b/s/1e6}') MB/s), sha256sum ${sha_s}s, lro/sha256sum $(ratio "$lro_s" "$sha_s")"
  if [ "$has_jq" = 1 ]; then jq_s=$(median < "$WORK/jq.t"); echo "jq -c '.items[]' ${jq_s}s, lro/jq $(ratio "$lro_s" "$jq_s")"; fi
  echo "lro peak RSS $(( $(sort -g "$WORK/lro.rss" | tail -1) / 1024 )) MB"
  if [ -n "${LRO_BASELINE:-}" ]; then
    base_s=$(median < "$WORK/base.t")
    echo "baseline $LRO_BASELINE ${base_s}s; time ratio this/baseline $(ratio "$lro_s" "$base_s")"
  fi
  rm -f "$WORK/out"; rm -rf "$LRO_DIR"
fi
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
