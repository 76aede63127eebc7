#!/usr/bin/env bash
# Patterns on inputs made to hurt a regex engine (issue 40): `lro grep -c ID PAT` against `rg -c PAT` on the
# original, in one run, with the seconds per 100 MB of input. Target: no pattern that lro's own engine takes
# (search/dfa.ts; `lro grep --explain` says which) slower than 1 s per 100 MB. The inputs, made here:
#   runs:  lines of 100 kB of one letter (`aaaa...`), a few ending in b, c or a digit
#   near:  lines of near-matches of the patterns (qaa qzzv qaaau aaaa1 ...), a rare true match
#   line:  one line of 20 MB of words (a record far longer than a chunk), then a few short lines
#   lines: lines of 20 MB of words, each followed by a few short lines, to SIZE_BYTES (100 MB: 5 such lines), so
#          that its seconds per 100 MB are measured, not scaled from 20 MB with node's start-up in them
# KINDS="runs near line lines" (the default) picks the inputs.
# With LRO_BASELINE=/path/to/other/bin/lro.js, that build is timed too, once (its own store, --timeout 10: the
# JavaScript regex of a build without the engine may be stopped; that shows as `stopped` after its time).
# Usage: bench/grep-pathological.sh [SIZE_BYTES] (runs and near inputs; default 100000000). Needs: npm run build.
. "$(dirname "$0")/lib.sh"
export LRO_DIR="$WORK/patho-store"
need rg ripgrep
SIZE="${1:-100000000}"
BASE="${LRO_BASELINE:-}"

# make KIND FILE: writes the input (deterministic)
make() {
  node - "$1" "$2" "$SIZE" <<'EOF'
const [kind, out, sizeArg] = process.argv.slice(2);
const fs = require('node:fs');
const size = Number(sizeArg);
const fd = fs.openSync(out, 'w');
let seed = 42;
const rand = (n) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
let written = 0;
const put = (s) => { fs.writeSync(fd, s); written += Buffer.byteLength(s); };
if (kind === 'runs') {
  for (let i = 0; written < size; i++) put(`${'a'.repeat(100_000)}${i % 97 === 0 ? 'b' : i % 89 === 0 ? 'c' : i % 83 === 0 ? '7' : ''}\n`);
} else if (kind === 'near') {
  const words = ['qaa', 'qzzv', 'qaaa', 'qaaau'.slice(1), 'aaaa1'.slice(0, 4), 'xxxxxxxy'.slice(1), 'size 1234567', 'ABCD ipc', 'DataNod: block', 'aaaaaab', '    x'.slice(1)];
  for (let i = 0; written < size; i++) {
    let line = '';
    while (line.length < 200) line += `${words[rand(words.length)]} `;
    if (i % 10007 === 0) line += 'quux size 12345678 ABCDE ipc xxxy aaaaa1 ';
    put(`${line}\n`);
  }
} else {
  const words = ['alpha', 'beta', 'gamma', 'qaa', 'size', '1234', 'aaaaaaaa', 'x'];
  do {
    const parts = [];
    let n = 0;
    while (n < 20_000_000) { const w = words[rand(words.length)]; parts.push(w); n += w.length + 1; }
    put(`${parts.join(' ')} quux\n`);
    for (let i = 0; i < 10; i++) put(`short line ${i} qaau\n`);
  } while (kind === 'lines' && written < size);
}
fs.closeSync(fd);
EOF
}

# seconds CMD: the best of 3 runs, in seconds
seconds() {
  local best=0 t0 t
  for _ in 1 2 3; do
    t0=$(date +%s%N); bash -c "$1" >/dev/null 2>&1 || true; t=$(( $(date +%s%N) - t0 ))
    { [ "$best" = 0 ] || [ "$t" -lt "$best" ]; } && best=$t
  done
  awk -v n="$best" 'BEGIN { printf "%.4f", n / 1e9 }'
}

# idOf STORE LRO FILE: the id of FILE offloaded into STORE by that build
idOf() {
  LRO_DIR="$1" "$2" offload --force --no-dedupe --ttl 1d < "$3" |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).id))'
}

PATTERNS=('q[a-z]{2}u' 'a+b' 'a+\d' '(a+)+$' '(a|aa)+c' '[a-z]{5}\d' '.*a.*b.*c' '(x+x+)+y' '\s{3,}x' 'a{10,}b' '[^b]+c$' 'size\s[0-9]{8}\s' '[A-Z]{5}\sipc' '(DataNode|Server):\sblock')

echo "== pathological inputs; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| %-6s | %-28s | %9s | %8s | %8s | %6s | %10s |%s\n' input pattern count 'lro s' 'rg s' lro/rg 'lro s/100MB' "${BASE:+ $(printf ' %8s |' 'base s, once')}"
for kind in ${KINDS:-runs near line lines}; do
  f="$WORK/patho-$kind-$SIZE.in"
  [ -f "$f" ] || make "$kind" "$f"
  bytes=$(stat -c %s "$f")
  id=$(idOf "$LRO_DIR" "$LRO" "$f")
  [ -z "$BASE" ] || bid=$(idOf "$WORK/patho-base-store" "$BASE" "$f")
  for pat in "${PATTERNS[@]}"; do
    qp=$(printf '%q' "$pat")
    a=$("$LRO" grep -c "$id" -- "$pat" 2>/dev/null || true); b=$(rg -c -- "$pat" "$f" || true)
    [ "${a:-0}" = "${b:-0}" ] || echo "COUNTS DIFFER for $pat on $kind: lro ${a:-0}, rg ${b:-0}" >&2
    lo=$(seconds "'$LRO' grep -c $id -- $qp"); r=$(seconds "rg -c -- $qp '$f'")
    per=$(awk -v t="$lo" -v n="$bytes" 'BEGIN { printf "%.3f", t * 1e8 / n }')
    extra=''
    if [ -n "$BASE" ]; then
      t0=$(date +%s%N)
      code=0; LRO_DIR="$WORK/patho-base-store" "$BASE" grep -c --timeout 10 "$bid" -- "$pat" >/dev/null 2>&1 || code=$?
      if [ "$code" = 2 ]; then stop=' stopped'; else stop=''; fi
      extra=$(printf ' %8s |' "$(awk -v n="$(( $(date +%s%N) - t0 ))" 'BEGIN { printf "%.4f", n / 1e9 }')$stop")
    fi
    printf '| %-6s | %-28s | %9s | %8s | %8s | %6s | %10s |%s\n' "$kind" "$pat" "${b:-0}" "$lo" "$r" "$(ratio "$lo" "$r")" "$per" "$extra"
  done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
