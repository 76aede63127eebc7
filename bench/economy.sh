#!/usr/bin/env bash
# Economy benchmark (issue 11): agent tasks over real outputs of 1 MB or more, generated from the corpus
# (bench/make-economy.mjs); for each, the shortest lro call sequence (the descriptor is call 1), the tokens it
# printed against the output's own tokens (js-tiktoken o200k_base), the number of calls, and whether the answer
# equals the one python computes on the original. Prints a table. Needs: npm run build, python3.
. "$(dirname "$0")/lib.sh"
need python3 python3
rm -rf "$WORK/economy" && mkdir -p "$WORK/economy"
node "$BENCH_DIR/make-economy.mjs" "$WORK/economy" >/dev/null
node "$BENCH_DIR/economy.mjs" "$WORK/economy"
