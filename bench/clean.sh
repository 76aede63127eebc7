#!/usr/bin/env bash
# Benchmark of what issue 12 made of stored content. Prints, in one run:
#   1. terminal noise on the real captures (fixtures/terminal, and the vitest capture of the corpus): bytes,
#      noise_bytes and its share, and the tokens of the bytes as written beside the tokens lro counts (as a
#      terminal shows them), both with js-tiktoken o200k_base
#   2. the cost of a dedupe hit: offloading bytes already stored (the same id and descriptor back, nothing
#      written) beside storing them anew (--no-dedupe), round-robin, for a 1 MB and a 100 MB log
# The 100,000-result tree (ls and gc with results in session folders) is bench/store.sh.
# Usage: bench/clean.sh   (SIZES="1000000 100000000" picks the dedupe sizes). Needs: npm run build.
. "$(dirname "$0")/lib.sh"
export LRO_DIR="$WORK/clean-store"
rm -rf "$LRO_DIR"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

echo "== terminal noise on real captures"
printf '%-36s %9s %9s %6s %12s %12s %6s\n' capture bytes noise share raw-tokens lro-tokens saved
for f in "$ROOT"/fixtures/terminal/*.tty "$ROOT"/fixtures/corpus/shell-output/vitest-test-output-fail.ansi; do
  header=$(node "$LRO" offload --force --no-dedupe < "$f" >/dev/null && node "$LRO" info last --header)
  node -e '
const { readFileSync } = require("node:fs");
const { getEncoding } = require(require.resolve("js-tiktoken", { paths: [process.argv[3]] }));
const h = JSON.parse(process.argv[2]);
const raw = getEncoding("o200k_base").encode(readFileSync(process.argv[1], "latin1")).length;
const noise = h.noise_bytes ?? 0;
const name = process.argv[1].split("/").pop();
console.log(`${name.padEnd(36)} ${String(h.bytes).padStart(9)} ${String(noise).padStart(9)} ${(100 * noise / h.bytes).toFixed(1).padStart(5)}% ${String(raw).padStart(12)} ${String(h.estimated_tokens).padStart(12)} ${(100 * (1 - h.estimated_tokens / raw)).toFixed(1).padStart(5)}%`);
' "$f" "$header" "$ROOT"
done

echo "== dedupe: the same bytes again (a hit) beside storing them anew (--no-dedupe), round-robin, median of ${ROUNDS:-9}"
for size in ${SIZES:-1000000 100000000}; do
  input="$WORK/clean-$size.log"
  [ -f "$input" ] || node "$BENCH_DIR/make-data.mjs" text "$size" "$input" >/dev/null
  rm -rf "$LRO_DIR"
  first=$(node "$LRO" offload < "$input" | head -c 300 | grep -o '"id": *"[0-9A-Z]*"' | head -1)
  node "$BENCH_DIR/interleave.mjs" "${ROUNDS:-9}" \
    hit "node '$LRO' offload < '$input'" \
    store "node '$LRO' offload --no-dedupe < '$input'" > "$WORK/clean.json"
  again=$(node "$LRO" offload < "$input" | head -c 300 | grep -o '"id": *"[0-9A-Z]*"' | head -1)
  node -e '
const r = require(process.argv[1]); const size = Number(process.argv[2]);
const hit = r.hit.median_ms, store = r.store.median_ms;
console.log(`${(size / 1e6).toFixed(0)} MB: hit ${hit.toFixed(0)} ms, store ${store.toFixed(0)} ms, hit/store ${(hit / store).toFixed(2)}; same id back: ${process.argv[3] === process.argv[4] && process.argv[3] !== ""}`);
' "$WORK/clean.json" "$size" "$first" "$again"
done
rm -rf "$LRO_DIR"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
