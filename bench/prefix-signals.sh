#!/usr/bin/env bash
# The shell prefix under signals at random moments of its first tenth of a second, many calls in a row: each call
# runs a 3-second command, and its process group gets a TERM 10 to 120 ms in, as a harness's interrupt sends it.
# Counts, per place: calls not ended by TERM (143: the command ran whole: the TERM was lost), calls still running
# 8 s after the TERM (hung: KILLed then), "Terminated"/"Killed" notes of bash's own in the output, and output files
# left in the prefix's folder (a killed call's, which a later call removes once a minute old).
# Places: bash 5; no /proc (LRO_SHELL_PREFIX_NO_PROC=1, the paths macOS takes); bash 3.2 with no /proc, when
# LRO_BASH32 names one; bubblewrap --unshare-pid (Claude Code's sandbox), when bwrap is on PATH or LRO_BWRAP names it.
# Usage: bench/prefix-signals.sh [calls per place, default 150]; an older copy beside it: LRO_PREFIX=bin/COPY
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX="${LRO_PREFIX:-$ROOT/bin/lro-shell-prefix}" # (LRO_PREFIX: another copy of it, placed next to bin/lro.js)
N="${1:-150}"
BWRAP="${LRO_BWRAP:-$(command -v bwrap || true)}"
WORK="$(mktemp -d)" # (removed at the end: an EXIT trap here ran in a subshell killed under bubblewrap)
printf 'i=0\nwhile [ $i -lt 30 ]; do seq 1 2000; i=$((i+1)); sleep 0.1; done\n' >"$WORK/slow.sh"
script="source /nonexistent/snapshot-bash-1.sh 2>/dev/null || true && eval 'bash $WORK/slow.sh' < /dev/null && pwd -P >| $WORK/cwd"

place() { # name, bash, then the wrapper and env words before the bash
  local name=$1 bash=$2 tmp lost=0 hung=0 notes=0 i d pid guard c
  shift 2
  tmp="$WORK/tmp-${name//[^a-z0-9]/-}"
  mkdir -p "$tmp"
  for ((i = 0; i < N; i++)); do
    d=$((10 + RANDOM % 110))
    env -i PATH="$(dirname "$bash"):/usr/bin:/bin" SHELL="$bash" HOME="$WORK" TMPDIR="$tmp" LRO_DIR="$WORK/store" "$@" \
      setsid bash -c 'exec "$@" 2>&1' bash "${WRAP[@]}" "$bash" "$PREFIX" "$script" >"$WORK/out" &
    pid=$!
    sleep "0.$(printf %03d "$d")"
    kill -TERM -- -"$pid" 2>/dev/null
    (sleep 8; kill -KILL -- -"$pid" 2>/dev/null) &
    guard=$!
    wait "$pid"
    c=$?
    kill "$guard" 2>/dev/null
    wait "$guard" 2>/dev/null
    ((c == 137)) && hung=$((hung + 1))
    ((c == 143)) || lost=$((lost + 1))
    grep -qE 'Terminated|Killed|Hangup' "$WORK/out" && notes=$((notes + 1))
  done
  local left
  left=$(find "$tmp" -type f ! -name resident ! -name 'gc-*' ! -name 'door.*' | wc -l)
  printf '%-34s calls %4d  not ended by TERM %3d  hung %3d  notes %3d  files left %3d\n' "$name" "$N" "$((lost - hung))" "$hung" "$notes" "$left"
}

WRAP=()
place 'bash 5' /bin/bash
place 'no /proc' /bin/bash LRO_SHELL_PREFIX_NO_PROC=1
if [[ -n ${LRO_BASH32-} ]]; then place 'bash 3.2, no /proc' "$LRO_BASH32" LRO_SHELL_PREFIX_NO_PROC=1; fi
if [[ -n $BWRAP ]] && "$BWRAP" --ro-bind / / --dev /dev --unshare-pid --proc /proc true 2>/dev/null; then
  WRAP=("$BWRAP" --new-session --die-with-parent --ro-bind / / --bind "$WORK" "$WORK" --dev /dev --unshare-pid --proc /proc)
  place 'bubblewrap --unshare-pid' /bin/bash
else
  echo 'bubblewrap --unshare-pid: skipped (no bwrap that can make a sandbox here; LRO_BWRAP names one)'
fi
rm -rf "$WORK"
