#!/usr/bin/env bash
# Benchmark of a table's facts over the whole output (issue 38): `lro offload` of a large CSV and of a large
# ps-like table (every row cut into its columns, each column's range, the line of its largest value and its
# frequent values counted as the output is stored) beside `awk`, which computes the same column maximums and a
# count of one column's values over the same file, and beside `cat FILE > OUT` (the floor of a copy). One run,
# the median of RUNS, the ratios printed. With LRO_BASELINE=/path/to/other/bin/lro.js that build runs too (e.g.
# one that described its first 256 KB only), and the ratio of the two.
# Usage: bench/table-facts.sh [ROWS]   (default 2000000). Needs: npm run build.
. "$(dirname "$0")/lib.sh"
ROWS="${1:-2000000}"
RUNS="${RUNS:-3}"
export LRO_DIR="$WORK/store-tables"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
node - "$ROWS" "$WORK/table.csv" "$WORK/table-ps.txt" "$ROOT/fixtures/outputs/ps-aux.txt" <<'JS'
const [rows, csv, ps, psFixture] = process.argv.slice(2);
const fs = require('node:fs');
let seed = 7;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const out = fs.createWriteStream(csv);
out.write('id,status,region,amount,created,note\n');
let buf = '';
for (let i = 0; i < Number(rows); i++) {
  buf += `${i},${['ok', 'error', 'pending'][Math.floor(rand() * 3)]},${['eu', 'us', 'ap'][Math.floor(rand() * 3)]},${(rand() * 1000).toFixed(2)},2026-11-${String(1 + Math.floor(rand() * 28)).padStart(2, '0')},item ${Math.floor(rand() * 1e6)}\n`;
  if (buf.length > 1 << 20) (out.write(buf), (buf = ''));
}
out.end(buf);
const lines = fs.readFileSync(psFixture, 'utf8').trimEnd().split('\n');
const body = [];
for (let i = 0; i < Number(rows) / 2; i++) body.push(lines[1 + (i % (lines.length - 1))]);
fs.writeFileSync(ps, `${lines[0]}\n${body.join('\n')}\n`);
JS
run() { # LABEL CMD: median seconds of RUNS
  local t=()
  for _ in $(seq "$RUNS"); do t+=("$(timed "$2" | cut -d' ' -f1)"); done
  printf '%s\n' "${t[@]}" | median
}
for f in table.csv table-ps.txt; do
  file="$WORK/$f"
  echo "== $f ($(du -h "$file" | cut -f1))"
  if [ "$f" = table.csv ]; then
    ref="awk -F, 'NR>1{ if (\$4>m) {m=\$4; l=NR}; c[\$2]++ } END { print m, l; for (k in c) print k, c[k] }' '$file'"
  else
    ref="awk 'NR>1{ if (\$4>m) {m=\$4; l=NR}; c[\$1]++ } END { print m, l; for (k in c) print k, c[k] }' '$file'"
  fi
  c=$(run cat "cat '$file' > '$WORK/table.out'")
  a=$(run awk "$ref")
  l=$(run lro "node '$LRO' offload --force < '$file'")
  echo "cat ${c}s  awk ${a}s  lro offload ${l}s  lro/awk $(ratio "$l" "$a")  lro/cat $(ratio "$l" "$c")"
  if [ -n "${LRO_BASELINE:-}" ]; then
    b=$(run baseline "node '$LRO_BASELINE' offload --force < '$file'")
    echo "baseline ${b}s  lro/baseline $(ratio "$l" "$b")"
  fi
done
rm -rf "$LRO_DIR"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
