#!/usr/bin/env bash
# The torture suite turned up: the same tests as `npm run test:soak` runs from test/torture, with more cases. Prints the figures
# for the note: cases run, SIGKILLs survived, concurrent writers, and losses (which must be 0).
# Usage: bench/soak.sh            (needs: npm run build)
# Tune with LRO_TORTURE_RUNS (property cases per property, in-process), LRO_TORTURE_CLI_RUNS (through the
# binary), LRO_TORTURE_KILLS (SIGKILL trials), LRO_TORTURE_WRITERS (offloads at once); a failing property
# prints a seed, replayed with LRO_TORTURE_SEED.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export LRO_TORTURE_RUNS="${LRO_TORTURE_RUNS:-5000}"
export LRO_TORTURE_CLI_RUNS="${LRO_TORTURE_CLI_RUNS:-300}"
export LRO_TORTURE_KILLS="${LRO_TORTURE_KILLS:-300}"
export LRO_TORTURE_WRITERS="${LRO_TORTURE_WRITERS:-200}"
OUT="$ROOT/bench/out"
mkdir -p "$OUT"
export LRO_TORTURE_REPORT="$OUT/soak-report.jsonl"
: > "$LRO_TORTURE_REPORT"
LOG="$OUT/soak.log"

[ -f dist/cli.js ] || { echo "soak: build first (npm run build)" >&2; exit 2; }
echo "soak: LRO_TORTURE_RUNS=$LRO_TORTURE_RUNS LRO_TORTURE_CLI_RUNS=$LRO_TORTURE_CLI_RUNS LRO_TORTURE_KILLS=$LRO_TORTURE_KILLS LRO_TORTURE_WRITERS=$LRO_TORTURE_WRITERS"
start=$(date +%s)
status=0
# a soak-tagged test takes its time limit from its tag (vitest.config.ts), not --testTimeout: LRO_SOAK_TIMEOUT_MS
LRO_SOAK_TIMEOUT_MS=3600000 npx vitest run test/torture --testTimeout=3600000 --hookTimeout=3600000 >"$LOG" 2>&1 || status=$?
secs=$(( $(date +%s) - start ))
sed -E 's/\x1b\[[0-9;]*m//g' "$LOG" | grep -E "Test Files|Tests  " | sed 's/^ */vitest: /'

node - "$LRO_TORTURE_REPORT" "$secs" "$status" <<'JS'
const [file, secs, status] = process.argv.slice(2);
const rows = require('fs').readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const by = (s) => rows.filter((r) => r.suite === s);
const sum = (rs, k) => rs.reduce((a, r) => a + (r[k] ?? 0), 0);
const losses = sum(rows, 'losses');
const rt = by('roundtrip'), cr = by('crash'), cc = by('concurrency'), co = by('corruption'), ho = by('hostile'), gc = by('gc-concurrency');
console.log(`round trips:  ${sum(rt, 'cases')} cases (offload --force then cat, in-process and through the binary), losses ${sum(rt, 'losses')}`);
console.log(`crashes:      ${sum(cr, 'cases')} SIGKILL trials, ${sum(cr, 'kills')} offloads killed (${sum(cr, 'killed_mid_write')} mid-write), ${sum(cr, 'completed')} completed, losses ${sum(cr, 'losses')}`);
console.log(`concurrency:  ${sum(cc, 'writers')} writers at once + ${sum(cc, 'staggered')} staggered, ${sum(cc, 'reader_runs')} reader runs meanwhile, losses ${sum(cc, 'losses')}`);
console.log(`corruption:   ${sum(co, 'cases')} commands on ${sum(co, 'damaged_files')} damaged files, wrong answers ${sum(co, 'losses')}`);
console.log(`hostile:      ${sum(ho, 'cases')} hostile invocations, store entries changed ${sum(ho, 'losses')}`);
if (gc.length) console.log(`gc race:      ${sum(gc, 'writers')} writers while gc looped ${sum(gc, 'gc_runs')} times, losses ${sum(gc, 'losses')}`);
const cases = sum(rt, 'cases') + sum(cr, 'cases') + sum(co, 'cases') + sum(ho, 'cases') + sum(cc, 'writers') + sum(cc, 'staggered') + sum(gc, 'writers');
console.log(`total:        ${cases} cases, ${sum(cr, 'kills')} kills survived, ${sum(cc, 'writers')} concurrent writers, losses ${losses}; ${secs} s; vitest ${status === '0' ? 'passed' : `FAILED (exit ${status}, see bench/out/soak.log)`}`);
process.exitCode = losses === 0 && status === '0' ? 0 : 1;
JS
