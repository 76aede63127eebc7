#!/usr/bin/env bash
# Benchmark of the S3 store (issue 22), against s3rver on loopback (started here, with the OpenSSL legacy provider
# its listings need): offloading SIZE bytes of text and `grep -c` on the result, on a local store and on an
# s3:// store, beside the raw transfer of the same bytes with the SDK (bench/s3-upload.mjs, as `aws s3 cp` does).
# Prints seconds and peak RSS (KB) of each, and the ratios: s3 offload / (local offload + raw upload) says what
# lro adds to the transfer itself, s3 grep on a fresh cache / (local grep + raw download) the same for a read.
# Usage: bench/s3.sh [SIZE_BYTES]   (default 200000000). Needs: npm run build.
. "$(dirname "$0")/lib.sh"
SIZE="${1:-200000000}"
PORT="${S3_PORT:-45123}"
DATA="$WORK/s3rver"
rm -rf "$DATA" "$WORK/s3-cache" "$WORK/s3-local" && mkdir -p "$DATA"
start_s3rver "$PORT" "$DATA"
export XDG_CACHE_HOME="$WORK/s3-cache"
node "$BENCH_DIR/make-data.mjs" text "$SIZE" "$WORK/s3.log" >/dev/null
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $(stat -c %s "$WORK/s3.log") bytes of text"

row() { printf '%-34s %8s s %9s KB\n' "$1" $2; }
settle
LOCAL_OFF=$(timed "LRO_DIR=$WORK/s3-local node $LRO offload < $WORK/s3.log")
row "local offload" "$LOCAL_OFF"
settle
S3_OFF=$(timed "LRO_DIR=s3://bench/lro node $LRO offload < $WORK/s3.log")
row "s3 offload" "$S3_OFF"
settle
RAW_UP=$(timed "node $BENCH_DIR/s3-upload.mjs up $WORK/s3.log bench raw/s3.log")
row "raw SDK upload" "$RAW_UP"
settle
LOCAL_GREP=$(timed "LRO_DIR=$WORK/s3-local node $LRO grep -c -i last error")
row "local grep -c" "$LOCAL_GREP"
rm -rf "$WORK/s3-cache"
settle
S3_GREP=$(timed "LRO_DIR=s3://bench/lro node $LRO grep -c -i last error")
row "s3 grep -c (fetched)" "$S3_GREP"
S3_GREP2=$(timed "LRO_DIR=s3://bench/lro node $LRO grep -c -i last error")
row "s3 grep -c (cached)" "$S3_GREP2"
settle
RAW_DOWN=$(timed "node $BENCH_DIR/s3-upload.mjs down $WORK/s3.down bench raw/s3.log")
row "raw SDK download" "$RAW_DOWN"
rm -f "$WORK/s3.down"

s() { echo "$1" | cut -d' ' -f1; }
echo "s3 offload / local offload:                 $(ratio "$(s "$S3_OFF")" "$(s "$LOCAL_OFF")")"
echo "s3 offload / raw upload:                    $(ratio "$(s "$S3_OFF")" "$(s "$RAW_UP")")"
sum() { awk -v a="$(s "$1")" -v b="$(s "$2")" 'BEGIN { print a + b }'; }
echo "s3 offload / (local offload + raw upload):  $(ratio "$(s "$S3_OFF")" "$(sum "$LOCAL_OFF" "$RAW_UP")")"
echo "s3 grep fetched / local grep:               $(ratio "$(s "$S3_GREP")" "$(s "$LOCAL_GREP")")"
echo "s3 grep fetched / (local grep + raw down):  $(ratio "$(s "$S3_GREP")" "$(sum "$LOCAL_GREP" "$RAW_DOWN")")"
echo "s3 grep cached / local grep:                $(ratio "$(s "$S3_GREP2")" "$(s "$LOCAL_GREP")")"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
