#!/usr/bin/env bash
# Benchmark of the block hashes' checks (issue 42) on the readers of part of a remote result: `lro read --head`
# and `lro read --tail` of a SIZE-byte text result on s3rver (loopback, started here), each on a machine that has
# read nothing (an empty cache), against the same result with its line 1 as an lro before the block hashes wrote
# it (no `blocks` member: read unchecked, with its note). The two objects differ in line 1 only; the reads are
# the same lro. The same pair of files in two local stores is read too (lro read checks the blocks it shows there).
# Prints the median seconds of RUNS runs of each and the ratio checked / unchecked.
# Usage: bench/s3-ranged.sh [SIZE_BYTES] [RUNS]   (default 1000000000 and 9). Needs: npm run build.
. "$(dirname "$0")/lib.sh"
SIZE="${1:-1000000000}"
RUNS="${2:-9}"
PORT="${S3_PORT:-45124}"
DATA="$WORK/s3rver-ranged"
rm -rf "$DATA" "$WORK/ranged-cache" "$WORK/ranged-local" "$WORK/ranged-local-old" && mkdir -p "$DATA" "$WORK/ranged-local-old"
start_s3rver "$PORT" "$DATA"
export XDG_CACHE_HOME="$WORK/ranged-cache"
node "$BENCH_DIR/make-data.mjs" text "$SIZE" "$WORK/ranged.log" >/dev/null
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $(stat -c %s "$WORK/ranged.log") bytes of text"

# the result, stored by this lro (with block hashes), and a copy whose line 1 has none (the member's bytes become
# spaces, as JSON allows: the records, their offsets and the object's size are the same)
ID=$(LRO_DIR="$WORK/ranged-local" node "$LRO" offload --force --json < "$WORK/ranged.log" | node -e \
  'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).id))')
FILE="$WORK/ranged-local/lro-offload-$ID.jsonl"
node -e '
  const fs = require("fs");
  const [file, out] = process.argv.slice(1);
  const fd = fs.openSync(file, "r");
  const head = Buffer.alloc(1 << 20);
  const n = fs.readSync(fd, head, 0, head.length, 0);
  const nl = head.subarray(0, n).indexOf(10);
  const line = head.subarray(0, nl).toString("latin1");
  const m = /,"blocks":\{[^}]*\}/.exec(line);
  if (!m) throw new Error("no blocks member in line 1");
  fs.copyFileSync(file, out);
  const w = fs.openSync(out, "r+");
  fs.writeSync(w, Buffer.from(" ".repeat(m[0].length), "latin1"), 0, m[0].length, m.index);
  fs.closeSync(w);
' "$FILE" "$WORK/ranged-local-old/lro-offload-$ID.jsonl"
chmod 700 "$WORK/ranged-local-old"
node "$BENCH_DIR/s3-upload.mjs" up "$FILE" bench "checked/lro-offload-$ID.jsonl"
node "$BENCH_DIR/s3-upload.mjs" up "$WORK/ranged-local-old/lro-offload-$ID.jsonl" bench "unchecked/lro-offload-$ID.jsonl"

# once STORE ARGS...: the seconds of one read (a remote store's cold: its cache emptied first), to the millisecond
once() {
  local store="$1" t0
  shift
  rm -rf "$WORK/ranged-cache"
  t0=$EPOCHREALTIME
  LRO_DIR="$store" node "$LRO" read "$ID" "$@" >/dev/null 2>&1
  awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f\n", b - a }'
}
# pair CHECKED UNCHECKED ARGS...: RUNS reads of each, alternating (a change of the machine's load falls on both);
# prints the two medians
pair() {
  local c="$1" u="$2" i
  shift 2
  for i in $(seq "$RUNS"); do
    once "$c" "$@" >>"$WORK/ranged-c.txt"
    once "$u" "$@" >>"$WORK/ranged-u.txt"
  done
  echo "$(median <"$WORK/ranged-c.txt") $(median <"$WORK/ranged-u.txt")"
  rm -f "$WORK/ranged-c.txt" "$WORK/ranged-u.txt"
}
row() { printf '%-34s %8s s\n' "$1" "$2"; }
for where in s3 local; do
  for args in '--head 3' '--tail 3'; do
    settle
    if [ "$where" = s3 ]; then
      read -r C U < <(pair s3://bench/checked s3://bench/unchecked $args)
    else
      read -r C U < <(pair "$WORK/ranged-local" "$WORK/ranged-local-old" $args)
    fi
    row "$where read $args (checked)" "$C"
    row "$where read $args (unchecked)" "$U"
    echo "$where read $args checked / unchecked: $(ratio "$C" "$U")"
  done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
