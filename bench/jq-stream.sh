#!/usr/bin/env bash
# Benchmark of the readers on one record that is huge or whose output is (issue 27, items 5 and 6): wall time
# and peak RSS of each command, with its exit code and the last line it printed, one line per case:
#   1. lro jq ID 'range(1e7)' on a one-record result (before: stopped after 10 s, nothing printed)
#   2. lro jq ID -c 'to_entries[]' on one object of 1M keys (before: 827 MB peak), beside native jq's peak
#   3. lro grep ID 'a+b' over one line of 20 MB of `a` (before: reported as catastrophic backtracking)
# LRO=path/to/bin/lro.js runs another build (for before/after figures). The machine's load average is printed at
# the start and the end: quote it with a figure. Usage: bench/jq-stream.sh. Needs: npm run build.
. "$(dirname "$0")/lib.sh"
LRO="${LRO_BIN:-$LRO}"
export LRO_DIR="$WORK/jq-stream-store"
need jq jq

# stored NAME: the id of the result made by make_NAME (kept in the store between runs)
stored() {
  local marker="$WORK/jq-stream-$1.id"
  if [ -f "$marker" ] && node "$LRO" info "$(cat "$marker")" >/dev/null 2>&1; then cat "$marker"; return; fi
  "make_$1" | node "$LRO" offload --force --ttl 7d --operation "bench-$1" | jq -r .id > "$marker"
  cat "$marker"
}
make_one() { echo '{"a":1}'; }
make_keys() { node -e 'let s="{";for(let i=0;i<1e6;i++)s+=(i?",":"")+`"key${i}":${i}`;process.stdout.write(s+"}\n")'; }
make_line() { node -e 'process.stdout.write("a".repeat(20<<20)+"\n")'; }

# case LABEL CMD: seconds, peak RSS, exit code and the last line (cut to 150 characters) of CMD
case_() {
  local label="$1" cmd="$2" t
  t=$( { /usr/bin/time -f '%e %M' bash -c "$cmd >'$WORK/js.out' 2>'$WORK/js.err'; echo \$? >'$WORK/js.rc'"; } 2>&1 | tail -1)
  read -r s kb <<<"$t"
  printf '%-34s %6.2f s  %5d MB  exit %s  %s\n' "$label" "$s" $((kb / 1024)) "$(cat "$WORK/js.rc")" \
    "$(tail -qn1 "$WORK/js.out" "$WORK/js.err" 2>/dev/null | tail -n1 | cut -c1-150)"
}

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
ONE=$(stored one); KEYS=$(stored keys); LINE=$(stored line)
case_ "lro jq 'range(1e7)'" "node '$LRO' jq $ONE 'range(1e7)'"
case_ "lro jq -c 'to_entries[]' (1M keys)" "node '$LRO' jq $KEYS -c 'to_entries[]' --timeout 120"
make_keys > "$WORK/jq-stream-keys.json"
case_ "native jq -c 'to_entries[]'" "jq -c 'to_entries[]' '$WORK/jq-stream-keys.json' | head -200"
case_ "lro grep 'a+b' (20 MB line)" "node '$LRO' grep $LINE 'a+b'"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
