#!/usr/bin/env bash
# The everyday calls on an S3 store, each in a process of its own as an agent makes them: an offload of 115 KB of
# log lines, then `ls`, `read last --head 2`, `grep -c` and `info` on a fresh cache, against s3rver on loopback.
# Each call is timed round-robin (median of ROUNDS, default 9) with this build, with a copy of it without V8's code
# cache (the S3 worker then compiles the AWS SDK anew: bin/s3-worker.js), with LRO_BASELINE=/path/to/bin/lro.js
# when given (a checkout before a change), and on a local store (what S3 adds). Prints medians in ms and ratios.
# Usage: bench/s3-calls.sh   Needs: npm run build.
. "$(dirname "$0")/lib.sh"
ROUNDS="${ROUNDS:-9}"
PORT="${S3_PORT:-45124}"
DATA="$WORK/s3rver-calls"
rm -rf "$DATA" && mkdir -p "$DATA"
start_s3rver "$PORT" "$DATA"
seq 1 3000 | sed 's/.*/2026-11-30T00:00:00Z INFO request & served in 12 ms/' > "$WORK/s3-calls.log"
NOCACHE=$(without_code_cache)
builds=("this:$LRO" "no-cache:$NOCACHE")
[ -n "${LRO_BASELINE:-}" ] && builds+=("baseline:$LRO_BASELINE")
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds"

ms() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N); echo $(((t1 - t0) / 1000000)); }
declare -A times
for ((r = 0; r < ROUNDS; r++)); do
  for b in "${builds[@]}" "local:$LRO"; do
    name=${b%%:*} bin=${b#*:}
    dir="s3://bench/calls-$name"
    [ "$name" = local ] && dir="$WORK/s3-calls-local"
    export XDG_CACHE_HOME="$WORK/s3-calls-cache-$name-$r"
    times[$name offload]+=" $(LRO_DIR=$dir ms node "$bin" offload --force < "$WORK/s3-calls.log")"
    rm -rf "$XDG_CACHE_HOME"
    times[$name ls]+=" $(LRO_DIR=$dir ms node "$bin" ls)"
    times[$name read]+=" $(LRO_DIR=$dir ms node "$bin" read last --head 2)"
    times[$name grep]+=" $(LRO_DIR=$dir ms node "$bin" grep -c last INFO)"
    times[$name info]+=" $(LRO_DIR=$dir ms node "$bin" info last)"
    rm -rf "$XDG_CACHE_HOME"
  done
done

med() { tr ' ' '\n' | grep . | median; }
printf '%-8s' call; for b in "${builds[@]}" local:; do printf '%10s' "${b%%:*}"; done; printf '%14s%14s\n' this/no-cache this/local
for c in offload ls read grep info; do
  printf '%-8s' "$c"
  for b in "${builds[@]}" local:; do printf '%10s' "$(echo "${times[${b%%:*} $c]}" | med)"; done
  this=$(echo "${times[this $c]}" | med)
  printf '%14s%14s\n' "$(ratio "$this" "$(echo "${times[no-cache $c]}" | med)")" "$(ratio "$this" "$(echo "${times[local $c]}" | med)")"
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
