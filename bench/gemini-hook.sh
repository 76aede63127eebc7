#!/usr/bin/env bash
# Benchmark of Gemini CLI's hook (bin/lro-hook __gemini-hook, what `lro init gemini` installs for the shell tool and
# MCP tools) on the inputs Gemini CLI 0.61.0 sends, as it sends them (the result twice: llmContent for the model,
# returnDisplay for the screen): an MCP result of a few lines, one just under the threshold in bytes (5.7 kB: the
# input is 12 kB, over the threshold), medium ones of 9.2 kB and 19 kB (over the threshold in bytes, under it in
# tokens: the resident helper answers), and a large one (190 kB: stored). The Node hook
# (`node bin/lro.js __gemini-hook`) runs beside it, paired, as the reference bin/lro-hook replaces. Then what lro
# adds to a call: without lro no hook of lro's runs, so the reference is a hook that only reads its input (a bash
# script, `cat >/dev/null`: what any hook costs), paired with bin/lro-hook on the results lro leaves. The input
# comes through a pipe, as Gemini CLI gives it (bash reads a pipe a byte at a time, a file by blocks). The bench has
# its own TMPDIR, so its resident helper is the one the first Node hook leaves (stopped at the end).
# Printed: each median and the ratio. Usage: bench/gemini-hook.sh   (RUNS=40 by default)
. "$(dirname "$0")/lib.sh"
HOOK="$ROOT/bin/lro-hook"
RUNS="${RUNS:-40}"
export LRO_DIR="$WORK/gemini-hook-store"
NODE="$(command -v node)"
export TMPDIR="$WORK/gemini-hook-tmp"
rm -rf "$TMPDIR" && mkdir -p "$TMPDIR"
stop_helper() {
  local f="$TMPDIR/lro-prefix-$UID/resident" pid
  [[ -f $f ]] && read -r _ _ pid _ <"$f" && kill "$pid" 2>/dev/null
  return 0
}
trap stop_helper EXIT
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

# input N: the AfterTool input of an MCP tool that answered N lines
input() {
  node -e '
    const n = +process.argv[1];
    const text = Array.from({ length: n }, (_, i) => `line ${i + 1} of the fake upstream`).join("\n");
    process.stdout.write(JSON.stringify({
      session_id: "9a130d1b-0f0c-4074-9671-2f99ca25ea21", cwd: "/home/user/work", hook_event_name: "AfterTool",
      timestamp: "2026-11-28T09:00:07.833Z", tool_name: "mcp_fake_lines", tool_input: { lines: n },
      tool_response: { llmContent: [{ text: `<untrusted_context>\n${text}\n</untrusted_context>` }], returnDisplay: text },
      mcp_context: { server_name: "fake", tool_name: "lines", command: "/usr/bin/node", args: ["/opt/fake-upstream.mjs"] },
    }));' "$1" >"$WORK/gemini-hook-$1.json"
}

us() { local t=${1/./}; echo $((10#$t)); }
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
ms() { awk -v u="$1" 'BEGIN { printf "%.1f ms", u / 1000 }'; }
for spec in "3:a few lines" "195:5.7 kB" "300:9.2 kB, under the threshold in tokens" \
  "600:19 kB, under the threshold in tokens" "6000:190 kB, stored"; do
  n=${spec%%:*} what=${spec#*:}
  input "$n"
  f="$WORK/gemini-hook-$n.json"
  # both answer alike
  a=$(LRO_NODE="$NODE" "$HOOK" __gemini-hook <"$f" | sed 's/id: [0-9A-Z]*//g; s/lro-fake_lines-[0-9A-Z]*//g; s/expires [^)]*//g')
  b=$("$NODE" "$ROOT/bin/lro.js" __gemini-hook <"$f" | sed 's/id: [0-9A-Z]*//g; s/lro-fake_lines-[0-9A-Z]*//g; s/expires [^)]*//g')
  [[ $a == "$b" ]] || { echo "bin/lro-hook and the Node hook answered differently for $what" >&2; exit 1; }
  runs=$RUNS
  ((n >= 6000)) && runs=$((RUNS < 10 ? RUNS : 10))
  hook_t=() node_t=()
  for ((i = 0; i < runs; i++)); do
    t0=$(us "$EPOCHREALTIME"); cat "$f" | LRO_NODE="$NODE" "$HOOK" __gemini-hook >/dev/null
    t1=$(us "$EPOCHREALTIME"); cat "$f" | "$NODE" "$ROOT/bin/lro.js" __gemini-hook >/dev/null
    t2=$(us "$EPOCHREALTIME")
    hook_t+=($((t1 - t0))) node_t+=($((t2 - t1)))
  done
  h=$(median "${hook_t[@]}") j=$(median "${node_t[@]}")
  echo "MCP result, $what (input $(wc -c <"$f") bytes, $runs runs): bin/lro-hook $(ms "$h"); Node hook $(ms "$j");" \
    "ratio $(awk -v a="$h" -v b="$j" 'BEGIN { printf "%.2f", a / b }')"
done

# what lro adds: bin/lro-hook against a hook that only reads its input, on results lro leaves as they are (with
# Node there: a call the helper did not settle would show its Node start)
[[ -f $TMPDIR/lro-prefix-$UID/resident ]] || { echo "no resident helper was left by the Node hook" >&2; exit 1; }
READER="$WORK/gemini-hook-reader"
printf '#!/bin/bash\ncat >/dev/null\n' >"$READER"
chmod +x "$READER"
for spec in "3:a few lines" "195:5.7 kB" "300:9.2 kB, under the threshold in tokens" \
  "600:19 kB, under the threshold in tokens"; do
  n=${spec%%:*} what=${spec#*:}
  f="$WORK/gemini-hook-$n.json"
  hook_t=() read_t=()
  for ((i = 0; i < RUNS; i++)); do
    t0=$(us "$EPOCHREALTIME"); cat "$f" | LRO_NODE="$NODE" "$HOOK" __gemini-hook >/dev/null
    t1=$(us "$EPOCHREALTIME"); cat "$f" | "$READER" >/dev/null
    t2=$(us "$EPOCHREALTIME")
    hook_t+=($((t1 - t0))) read_t+=($((t2 - t1)))
  done
  h=$(median "${hook_t[@]}") r=$(median "${read_t[@]}")
  echo "left as it is, $what: bin/lro-hook $(ms "$h"); a hook that only reads $(ms "$r");" \
    "lro adds $(ms $((h - r))), ratio $(awk -v a="$h" -v b="$r" 'BEGIN { printf "%.2f", a / b }')"
done

# memory: a shell command's large output (25 MB and 100 MB, sent twice as Gemini CLI sends it) through bin/lro-hook,
# stored; the peak resident size of the Node it starts (target: at most 120 MB for any output). MEMORY=0 skips it.
if [[ ${MEMORY:-1} != 0 ]]; then
  for mb in 25 100; do
    f="$WORK/gemini-hook-shell-$mb.json"
    [[ -f $f ]] || node -e '
      const n = +process.argv[1] * 1e6; const lines = []; let size = 0;
      for (let i = 0; size < n; i++) { const l = `${i} ${"x".repeat(i % 80)} build step ${(i * 7) % 1000} ok`; lines.push(l); size += l.length + 1; }
      const out = lines.join("\n");
      process.stdout.write(JSON.stringify({ hook_event_name: "AfterTool", tool_name: "run_shell_command", tool_input: { command: "make" },
        tool_response: { llmContent: `<untrusted_context>\nOutput: ${out}\nExit Code: 0\n</untrusted_context>`, returnDisplay: out } }));' "$mb" >"$f"
    out=$( { cat "$f" | LRO_DIR="$WORK/gemini-hook-mem-store" LRO_NODE="$NODE" /usr/bin/time -f '%e %M' "$HOOK" __gemini-hook >/dev/null; } 2>&1 | tail -1)
    rm -rf "$WORK/gemini-hook-mem-store"
    echo "a $mb MB shell output, stored: ${out%% *} s, peak RSS $(( ${out##* } / 1024 )) MB (target <= 120)"
  done
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
