#!/usr/bin/env bash
# Benchmark of the readers on huge records and a huge result (issue 27, items 3 and 4). One line per case:
# lro beside the reference on the original file (cat, wc -l, tail -n 2), wall time, the ratio, lro's peak RSS
# and the target:
#   read of a 20 MB one-line result and of a 500 MB one-line result (target: <= 1 s, <= 150 MB)
#   count without --by on a 1 GB result (vs wc -l), read --tail 2 on it (vs tail -n 2)
#   cat of the 1 GB result and of the 500 MB line (target: >= 200 MB/s, bounded memory)
# LRO_BIN=path/to/bin/lro.js runs another build (e.g. the commit before) on the same data. KEEP=1 keeps the data
# (about 3 GB with the store) for a second run; by default it is deleted at the end. Careful with an old build:
# before these fixes, read of the 500 MB line grew past 14 GB of RSS in 8 minutes (give it a smaller LINE_BYTES).
# Usage: bench/huge-records.sh [BIG_BYTES] [LINE_BYTES] (default 1000000000 500000000). Needs: npm run build.
. "$(dirname "$0")/lib.sh"
BIG="${1:-1000000000}"
LINE="${2:-500000000}"
LRO="${LRO_BIN:-$LRO}"
export LRO_DIR="$WORK/huge-store"
DATA="$WORK/huge"
mkdir -p "$DATA"

# verdict VALUE OP LIMIT: "ok" or "MISSED"
verdict() { awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN { ok = op == "le" ? v <= l : v >= l; print ok ? "ok" : "MISSED" }'; }

# one_line FILE BYTES: BYTES of the letter a and a newline
one_line() { [ -f "$1" ] || { head -c "$2" /dev/zero | tr '\0' a; echo; } > "$1"; }

# stored NAME FILE FORMAT: the id of FILE offloaded (kept between runs with KEEP=1)
stored() {
  local marker="$DATA/$1.id"
  if [ -f "$marker" ] && "$LRO" info "$(cat "$marker")" --header >/dev/null 2>&1; then cat "$marker"; return; fi
  "$LRO" offload --force --no-dedupe --format "$3" --operation "bench-$1" < "$2" |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).id))' > "$marker"
  cat "$marker"
}

# case LABEL REF_CMD LRO_CMD [TIME_TARGET_S] [RSS_TARGET_MB] [BYTES]: one run each (the data is page-cached),
# wall times, lro/ref ratio, lro's peak RSS; with BYTES, lro's throughput
case_() {
  local label="$1" ref="$2" ours="$3" tt="${4:-}" rt="${5:-}" bytes="${6:-}" rs os rss
  settle
  read -r rs _ < <(timed "$ref")
  read -r os rss < <(timed "$ours")
  local mb=$((rss / 1024)) line
  line=$(printf '%-34s ref %7.2fs  lro %7.2fs  lro/ref %7s  lro peak RSS %5d MB' "$label" "$rs" "$os" "$(ratio "$os" "$rs")" "$mb")
  [ -n "$bytes" ] && line+=$(printf '  %5.0f MB/s' "$(awk -v b="$bytes" -v s="$os" 'BEGIN { print b / 1e6 / (s > 0 ? s : 0.01) }')")
  [ -n "$tt" ] && line+="  (time <= ${tt}s: $(verdict "$os" le "$tt"))"
  [ -n "$rt" ] && line+="  (RSS <= ${rt} MB: $(verdict "$mb" le "$rt"))"
  echo "$line"
}

df -h "$WORK" | tail -1 | awk '{ print "free space in the bench folder: " $4 }'
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "lro: $LRO"
one_line "$DATA/line20m.txt" 20000000
one_line "$DATA/line-big.txt" "$LINE"
[ -f "$DATA/big.log" ] || node "$BENCH_DIR/make-data.mjs" text "$BIG" "$DATA/big.log" >/dev/null
L20=$(stored line20m "$DATA/line20m.txt" text)
LB=$(stored line-big "$DATA/line-big.txt" text)
B=$(stored big "$DATA/big.log" text)
cat "$DATA"/*.txt "$DATA/big.log" "$LRO_DIR"/*.jsonl > /dev/null # page-cache everything once

# the floor of every lro figure: Node starting (on a loaded machine, a good part of the 1 s target)
echo "node -e 0 (start-up floor): $(timed 'node -e 0' | cut -d' ' -f1)s"
echo "== read of one very long record (the default budgeted window)"
case_ "read, 20 MB line" "head -c 8000 '$DATA/line20m.txt'" "'$LRO' read $L20" 1 150
case_ "read, $((LINE / 1000000)) MB line" "head -c 8000 '$DATA/line-big.txt'" "'$LRO' read $LB" 1 150
case_ "read --columns 1:100, $((LINE / 1000000)) MB line" "cut -c 2-100 '$DATA/line-big.txt'" "'$LRO' read $LB --columns 1:100" 1 150
echo "== a $((BIG / 1000000)) MB result of log lines"
case_ "count (no --by) vs wc -l" "wc -l < '$DATA/big.log'" "'$LRO' count $B" 1 150
case_ "read --tail 2 vs tail -n 2" "tail -n 2 '$DATA/big.log'" "'$LRO' read $B --tail 2" 1 150
case_ "cat vs cat" "cat '$DATA/big.log' | cat" "'$LRO' cat $B | cat" "" 150 "$BIG"
case_ "cat of the $((LINE / 1000000)) MB line vs cat" "cat '$DATA/line-big.txt' | cat" "'$LRO' cat $LB | cat" "" 150 "$LINE"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -z "${KEEP:-}" ]; then rm -rf "$DATA" "$LRO_DIR"; fi
