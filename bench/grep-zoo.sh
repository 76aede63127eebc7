#!/usr/bin/env bash
# The grep pattern zoo (issue 25): patterns of the kinds agents write, each timed as `lro grep -c ID PAT` on an
# offloaded log against `rg -c PAT` on the original file, in one run; prints a ratio table (lro/rg), the
# median and the worst ratio, and checks that both tools count the same. Target: every pattern <= 3x rg at 200 MB,
# median <= 2x. Times are hyperfine's medians (3 runs after a warm-up), else the best of 3 by `date +%s%N`.
# The log is bench/make-data.mjs text (loghub logs, repeated): 20 MB, and 200 MB too with ZOO_BIG=1.
# The load average is printed at the start and the end: quote it with a table.
# With LRO_BASELINE=/path/to/other/bin/lro.js, that build is timed too (its own store), beside: before/after.
# ZOO_ONLY=REGEX: only the zoo lines matching it (grep -E).
# Usage: bench/grep-zoo.sh [SIZE_BYTES ...] (default 20000000, plus 200000000 with ZOO_BIG=1). Needs: npm run build.
. "$(dirname "$0")/lib.sh"
export LRO_DIR="$WORK/zoo-store"
need rg ripgrep
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || { SIZES=(20000000); [ "${ZOO_BIG:-}" = 1 ] && SIZES+=(200000000); }

# the zoo: flags<TAB>pattern<TAB>kind, one per line (test/e2e/grep-zoo.test.ts checks each against rg)
ZOO=$(grep -E -- "${ZOO_ONLY:-.}" "$BENCH_DIR/grep-zoo.tsv")
BASE="${LRO_BASELINE:-}"
# base_id FILE SIZE: the baseline build's id of the log (its own store: the file format may differ)
base_id() {
  local marker="$WORK/zoo-base-$2.id"
  if ! { [ -f "$marker" ] && LRO_DIR="$WORK/zoo-base-store" "$BASE" info "$(cat "$marker")" --header >/dev/null 2>&1; }; then
    LRO_DIR="$WORK/zoo-base-store" "$BASE" offload --force --no-dedupe --ttl 7d --operation "bench-zoo" < "$1" |
      node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).id))' > "$marker"
  fi
  cat "$marker"
}

# seconds CMD: the command's time in seconds (hyperfine's median, else the best of 3)
seconds() {
  if command -v hyperfine >/dev/null; then
    hyperfine -i -w 1 -r 3 --style none --export-json "$WORK/zoo.json" "$1" >/dev/null 2>&1
    node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).results[0].median.toFixed(4))' "$WORK/zoo.json"
  else
    local best=0 t0 t
    for _ in 1 2 3; do
      t0=$(date +%s%N); bash -c "$1" >/dev/null; t=$(( $(date +%s%N) - t0 ))
      { [ "$best" = 0 ] || [ "$t" -lt "$best" ]; } && best=$t
    done
    awk -v n="$best" 'BEGIN { printf "%.4f", n / 1e9 }'
  fi
}

for SIZE in "${SIZES[@]}"; do
  text="$WORK/text-$SIZE.in"
  [ -f "$text" ] || node "$BENCH_DIR/make-data.mjs" text "$SIZE" "$text" >/dev/null
  marker="$WORK/zoo-$SIZE.id"
  if ! { [ -f "$marker" ] && "$LRO" info "$(cat "$marker")" --header >/dev/null 2>&1; }; then
    "$LRO" offload --force --no-dedupe --ttl 7d --operation "bench-zoo" < "$text" |
      node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).id))' > "$marker"
  fi
  ID=$(cat "$marker")
  [ -z "$BASE" ] || BID=$(base_id "$text" "$SIZE")
  echo "== grep zoo: $(stat -c %s "$text") bytes, $(wc -l < "$text") lines; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  # the start-up floor, which a small file's ratios mostly measure (issue 25, item 3)
  echo "start-up: lro --version $(seconds "'$LRO' --version") s, node -e 0 $(seconds "node -e 0") s"
  printf '| %-3s | %-64s | %-36s | %9s | %8s | %8s | %6s |%s\n' '#' 'pattern' 'kind' 'count' 'lro s' 'rg s' 'lro/rg' \
    "${BASE:+ $(printf ' %8s | %7s |' 'base s' 'base/rg')}"
  : > "$WORK/zoo.ratios"; : > "$WORK/zoo.base-ratios"
  k=0
  while IFS= read -r line; do
    # (split by hand: read with IFS=tab would merge an empty flags column into the next)
    flags=${line%%$'\t'*}; rest=${line#*$'\t'}; pat=${rest%%$'\t'*}; kind=${rest#*$'\t'}
    k=$((k + 1))
    qp=$(printf '%q' "$pat")
    ours="'$LRO' grep -c $flags $ID -- $qp"
    ref="rg -c $flags -- $qp '$text'"
    a=$(bash -c "$ours" || true); b=$(bash -c "$ref" || true)
    [ "${a:-0}" = "${b:-0}" ] || echo "COUNTS DIFFER for $flags $pat: lro ${a:-0}, rg ${b:-0}" >&2
    lo=$(seconds "$ours"); r=$(seconds "$ref"); q=$(ratio "$lo" "$r")
    echo "$q $flags $pat" >> "$WORK/zoo.ratios"
    extra=''
    if [ -n "$BASE" ]; then
      bl=$(seconds "LRO_DIR='$WORK/zoo-base-store' '$BASE' grep -c $flags $BID -- $qp"); bq=$(ratio "$bl" "$r")
      echo "$bq $flags $pat" >> "$WORK/zoo.base-ratios"
      extra=$(printf ' %8s | %7s |' "$bl" "$bq")
    fi
    printf '| %-3s | %-64s | %-36s | %9s | %8s | %8s | %6s |%s\n' "$k" "${flags:+$flags }$pat" "$kind" "${b:-0}" "$lo" "$r" "$q" "$extra"
  done <<< "$ZOO"
  echo "median lro/rg: $(cut -d' ' -f1 "$WORK/zoo.ratios" | median)   worst: $(sort -g "$WORK/zoo.ratios" | tail -1)"
  [ -z "$BASE" ] || echo "baseline: median $(cut -d' ' -f1 "$WORK/zoo.base-ratios" | median)   worst: $(sort -g "$WORK/zoo.base-ratios" | tail -1)"
  echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
done
