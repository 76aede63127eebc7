# Helpers shared by the benchmark scripts. Source it: . "$(dirname "$0")/lib.sh"
set -euo pipefail
BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"
LRO="$ROOT/bin/lro.js"
WORK="${BENCH_WORK:-${TMPDIR:-/tmp}/lro-bench}"
mkdir -p "$WORK"

# need TOOL PACKAGE: install a reference tool with apt when missing
need() {
  command -v "$1" >/dev/null 2>&1 && return 0
  echo "installing $2 (for $1)" >&2
  (apt-get install -y "$2" >/dev/null 2>&1 || (apt-get update >/dev/null 2>&1 && apt-get install -y "$2" >/dev/null 2>&1)) || {
    echo "could not install $2; skipping what needs $1" >&2
    return 1
  }
}

# settle: flush dirty pages and let the disk finish, so one run does not pay for the last one's writes
settle() {
  sync
  sleep "${SETTLE_SECONDS:-2}"
}

# timed LABEL CMD...: runs CMD with stdin/stdout as given by the caller's redirections inside CMD (a string
# for bash -c); prints "seconds peak_rss_kb"
timed() {
  local out
  out=$( { /usr/bin/time -f '%e %M' bash -c "$1" >/dev/null; } 2>&1 | tail -1)
  echo "$out"
}

# median of numbers on stdin
median() {
  sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# without_code_cache: prints the bin/lro.js of a copy of the build without V8's code cache (dist/code-cache, see
# bin/code-cache.js), to run beside $LRO in the same run
without_code_cache() {
  rm -rf "$WORK/no-code-cache"
  mkdir -p "$WORK/no-code-cache"
  cp -r "$ROOT/bin" "$ROOT/dist" "$WORK/no-code-cache/"
  rm -rf "$WORK/no-code-cache/dist/code-cache"
  echo "$WORK/no-code-cache/bin/lro.js"
}

# start_s3rver PORT DATA_DIR: a local S3 server (s3rver, a devDependency) with bucket `bench`, stopped when the
# script exits, and the AWS_* variables that point lro's S3 store at it
start_s3rver() {
  node --openssl-legacy-provider "$ROOT/node_modules/s3rver/bin/s3rver.js" --directory "$2" --address 127.0.0.1 \
    --port "$1" --configure-bucket bench --silent >/dev/null &
  S3RVER_PID=$!
  trap 'kill $S3RVER_PID' EXIT
  sleep 2
  export AWS_ENDPOINT_URL="http://127.0.0.1:$1" AWS_REGION=us-east-1
  export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER
  export AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true
}
