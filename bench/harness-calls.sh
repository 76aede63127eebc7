#!/usr/bin/env bash
# What lro adds to each small shell call in the real harnesses (issue 37; target: at most 20 ms per call under the
# threshold): Claude Code, Codex and Gemini CLI, pinned and installed into the test cache on first use, each run
# with N small calls (default 20) by a scripted model, with lro installed and without, in turns; printed per
# harness: the median run time of each and the added milliseconds per call (median of the pairs). The load average
# is printed at the start and the end: quote it with the figures.
# Usage: bench/harness-calls.sh   (LRO_BENCH_CALLS=20 LRO_BENCH_PAIRS=3 LRO_BENCH_COMMAND='ls / | head -3';
# LRO_BENCH_CODEX_SANDBOX=workspace-write runs Codex's calls in its own sandbox, which refuses sockets)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f dist/cli.cjs ] || npm run build >/dev/null
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
LRO_BENCH_HARNESS=1 npx vitest run --config vitest.harness.config.ts test/harness/per-call.test.ts 2>&1 |
  grep -a -o 'PER-CALL .*' | sed 's/^PER-CALL //'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
