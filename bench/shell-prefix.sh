#!/usr/bin/env bash
# Benchmark of lro's shell prefix for Claude Code (issue 20; target: at most 20 ms added to the median small Bash
# call). Claude Code runs a Bash call as `bash -c SCRIPT` (its snapshot, `eval '<command>'`, its cwd tracking);
# with lro installed it runs `lro-shell-prefix SCRIPT`. Both run here on the same small command, round-robin (one
# of each in turn, so a change in the machine's load hits both alike), timed with bash's $EPOCHREALTIME (no
# process started to read the clock). Printed: each median, the median of the paired differences (the figure to
# quote), and the CPU time (user + system) of all runs of each, which a loaded machine stretches less than wall
# time. The load average is printed at the start and the end: quote it with the figure.
# Usage: bench/shell-prefix.sh [COMMAND]   (default: ls / | head -3). RUNS=300 by default.
. "$(dirname "$0")/lib.sh"
PREFIX="$ROOT/bin/lro-shell-prefix"
COMMAND="${1:-ls / | head -3}"
RUNS="${RUNS:-300}"
export LRO_DIR="$WORK/store"
SCRIPT="eval '${COMMAND//\'/\'\\\'\'}' < /dev/null && pwd -P >| $WORK/cwd"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "command: $COMMAND ($RUNS runs of each)"

# both must print the same bytes
if ! cmp -s <(bash -c "$SCRIPT" 2>&1) <("$PREFIX" "$SCRIPT" 2>&1); then
  echo "the prefix changed the output of a small command" >&2
  exit 1
fi

us() { local t=${1/./}; echo $((10#$t)); } # $EPOCHREALTIME in microseconds
without=() with=() diff=()
for ((i = 0; i < RUNS; i++)); do
  t0=$(us "$EPOCHREALTIME"); bash -c "$SCRIPT" >/dev/null 2>&1
  t1=$(us "$EPOCHREALTIME"); "$PREFIX" "$SCRIPT" >/dev/null 2>&1
  t2=$(us "$EPOCHREALTIME")
  without+=($((t1 - t0))) with+=($((t2 - t1))) diff+=($((t2 - t1 - (t1 - t0))))
done
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
ms() { awk -v u="$1" 'BEGIN { printf "%.2f ms", u / 1000 }'; }
echo "median without lro: $(ms "$(median "${without[@]}")"); with lro-shell-prefix: $(ms "$(median "${with[@]}")")"
echo "added median (paired): $(ms "$(median "${diff[@]}")") (target: at most 20 ms)"

# CPU: the same two commands again under perf-free accounting (the children's user + system time)
cpu_of() {
  local n=$1; shift
  bash -c 'for ((i = 0; i < '"$n"'; i++)); do "$@" >/dev/null 2>&1; done; times' _ "$@" | tail -1 |
    awk '{ split($1, u, "m"); split($2, s, "m"); printf "%.2f", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000 / '"$n"' }'
}
a=$(cpu_of 100 bash -c "$SCRIPT"); b=$(cpu_of 100 "$PREFIX" "$SCRIPT")
echo "CPU per call (user + system): without lro ${a} ms; with lro-shell-prefix ${b} ms; added $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b - a }') ms"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

# The hooks of Codex and Gemini CLI on one small call: bin/lro-hook (what `lro init` installs) against the Node
# hook it replaced (`node bin/lro.js __codex-hook`), paired as above. Codex's is answered by the resident helper
# (started by the first call), Gemini's small output by bash alone.
HOOK="$ROOT/bin/lro-hook"
codex_in='{"hook_event_name":"PreToolUse","tool_name":"Bash","cwd":"/tmp","tool_input":{"command":"ls / | head -3"}}'
gemini_in='{"hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{"command":"ls"},"tool_response":{"llmContent":"<untrusted_context>\nOutput: bin\nExit Code: 0\n</untrusted_context>"}}'
HRUNS=$((RUNS < 60 ? RUNS : 60))
for verb in __codex-hook __gemini-hook; do
  input=$codex_in; [[ $verb == __gemini-hook ]] && input=$gemini_in
  LRO_NODE="$(command -v node)" "$HOOK" "$verb" <<<"$input" >/dev/null # the first call leaves the helper
  sleep 1
  node_t=() bash_t=() d=()
  for ((i = 0; i < HRUNS; i++)); do
    t0=$(us "$EPOCHREALTIME"); node "$ROOT/bin/lro.js" "$verb" <<<"$input" >/dev/null
    t1=$(us "$EPOCHREALTIME"); LRO_NODE="$(command -v node)" "$HOOK" "$verb" <<<"$input" >/dev/null
    t2=$(us "$EPOCHREALTIME")
    node_t+=($((t1 - t0))) bash_t+=($((t2 - t1)))
  done
  echo "$verb, one small call ($HRUNS runs): Node hook $(ms "$(median "${node_t[@]}")"); bin/lro-hook $(ms "$(median "${bash_t[@]}")")"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

# A medium output (seq 1 2000: 8.9 kB, ~4,000 tokens) where sockets lead nowhere (a network namespace of its own,
# as in Claude Code's bubblewrap; Codex's workspace-write sandbox refuses them): the prefix knocks at the resident
# helper's door (a FIFO) instead of its port; against plain bash in the same namespace, and against the same call
# answered by Node (LRO_RESIDENT=0), as every such call was before the door. Needs `unshare -n` (root).
if unshare -n true 2>/dev/null; then
  MEDIUM="eval 'seq 1 2000' < /dev/null && pwd -P >| $WORK/cwd"
  "$PREFIX" "eval 'seq 1 100000' < /dev/null && pwd -P >| $WORK/cwd" >/dev/null 2>&1 # leaves the helper
  sleep 1
  plain_t=() door_t=() node_t=()
  for ((i = 0; i < HRUNS; i++)); do
    t0=$(us "$EPOCHREALTIME"); unshare -n bash -c "$MEDIUM" >/dev/null 2>&1
    t1=$(us "$EPOCHREALTIME"); unshare -n "$PREFIX" "$MEDIUM" >/dev/null 2>&1
    t2=$(us "$EPOCHREALTIME"); LRO_RESIDENT=0 unshare -n "$PREFIX" "$MEDIUM" >/dev/null 2>&1
    t3=$(us "$EPOCHREALTIME")
    plain_t+=($((t1 - t0))) door_t+=($((t2 - t1 - (t1 - t0)))) node_t+=($((t3 - t2 - (t1 - t0))))
  done
  echo "medium output without a network ($HRUNS runs): plain bash $(ms "$(median "${plain_t[@]}")"); added through the helper's door $(ms "$(median "${door_t[@]}")"), answered by Node instead $(ms "$(median "${node_t[@]}")")"
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
fi
