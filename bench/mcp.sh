#!/usr/bin/env bash
# Benchmark of `lro mcp proxy` (issue 10), with the MCP SDK's client (bench/mcp-driver.mjs):
#   1. the proxy's overhead on a small pass-through call: server-everything's echo, straight and through the
#      proxy, median of N calls in one session each (target: <= 5 ms more)
#   2. a 10 MB result: server-filesystem's read_text_file through the proxy (stored, the descriptor answered) vs
#      `lro offload` of the same bytes (target: within 1.5x)
# Usage: bench/mcp.sh [CALLS] [RUNS]   (default 200 calls, 5 runs). Needs: npm run build, npm ci (the servers
# are devDependencies).
. "$(dirname "$0")/lib.sh"
CALLS="${1:-200}"
RUNS="${2:-5}"
echo "load: $(uptime)"
echo "== small pass-through call"
node "$BENCH_DIR/mcp-driver.mjs" small "$CALLS"
echo "== a 10 MB result"
input="$WORK/mcp-10m.log"
[ -f "$input" ] || node "$BENCH_DIR/make-data.mjs" text 10000000 "$input" >/dev/null
node "$BENCH_DIR/mcp-driver.mjs" big "$input" "$RUNS"
