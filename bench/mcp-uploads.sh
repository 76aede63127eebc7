#!/usr/bin/env bash
# Benchmark of `lro mcp --http` under uploads (issue 41): N clients upload 10 MB each with lro_offload at once while
# another client's lro_ls is timed every 20 ms (bench/mcp-uploads.mjs). Each body used to be decoded and parsed on
# the server's one thread, and lro_ls queued behind the uploads; now a large body is parsed on a thread of its own
# as it arrives, its long strings handed to the tool's worker as shared memory (src/mcp/body-parser.ts), the
# server's thread reads at most 1 MB of bodies a turn (src/mcp/http.ts), lro_ls has the pool's quick worker, ready
# from the start, and the other workers run below the server's thread's priority (src/mcp/tool-pool.ts).
# Usage: bench/mcp-uploads.sh [N] [MB] [BEFORE_BIN]   (default 20 clients, 10 MB). With BEFORE_BIN (the bin/lro.js
# of a build of an earlier commit), that build is measured first and the ratio of the probe's worst latency,
# before / now, is printed. Needs: npm run build.
. "$(dirname "$0")/lib.sh"
N="${1:-20}"
MB="${2:-10}"
BEFORE="${3:-}"
echo "load: $(uptime)"
measure() {
  local out
  out=$(node "$BENCH_DIR/mcp-uploads.mjs" "$1" "$N" "$MB")
  grep -v '^RESULT' <<<"$out"
  read -r _ worst median failed <<<"$(grep '^RESULT' <<<"$out")"
}
if [ -n "$BEFORE" ]; then
  echo "== before: $BEFORE"
  measure "$BEFORE"
  before=$worst
fi
echo "== now: $LRO"
measure "$LRO"
if [ -n "$BEFORE" ]; then
  echo "the probe's worst lro_ls: before ${before} ms, now ${worst} ms, ratio $(ratio "$before" "$worst")x"
fi
echo "load: $(uptime)"
