#!/usr/bin/env bash
# Benchmark of client isolation in `lro mcp --http` (issue 27, item 11): the latency of client B's lro_ls while
# client A runs slow calls (a jq filter that computes until lro's 10 s watchdog stops it, again and again), with
# the MCP SDK's client (bench/mcp-isolation.mjs). Before, every call ran on the server's one thread: B waited for
# A's call to end. Now lro's tools run on a pool of worker threads (src/mcp/tool-pool.ts).
# Usage: bench/mcp-isolation.sh [SECONDS] [BEFORE_BIN]   (default 20 s of A's slow calls). With BEFORE_BIN (the
# bin/lro.js of a build of an earlier commit, e.g. a `git worktree add` of it, built), that build is measured
# first and the ratio of B's median latency under load, before / now, is printed. Needs: npm run build.
. "$(dirname "$0")/lib.sh"
SECONDS_LOAD="${1:-20}"
BEFORE="${2:-}"
echo "load: $(uptime)"
# measure BIN: prints the driver's lines, sets $median (B's median lro_ls latency under A's load, in ms)
measure() {
  local out
  out=$(node "$BENCH_DIR/mcp-isolation.mjs" "$1" "$SECONDS_LOAD")
  grep -v '^RESULT' <<<"$out"
  median=$(awk '/^RESULT/ { print $3 }' <<<"$out")
}
if [ -n "$BEFORE" ]; then
  echo "== before: $BEFORE"
  measure "$BEFORE"
  before=$median
fi
echo "== now: $LRO"
measure "$LRO"
now=$median
if [ -n "$BEFORE" ]; then
  echo "B's lro_ls median under A's load: before $(printf '%.1f' "$before") ms, now $(printf '%.1f' "$now") ms, ratio $(ratio "$before" "$now")x"
fi
echo "load: $(uptime)"
