#!/usr/bin/env bash
# Benchmark of the hook a project's Gemini settings hold (`lro init gemini --project`: lro-hook by PATH, stepping
# aside where there is none) against the one a user's settings hold (`LRO_NODE=<node> <abs>/bin/lro-hook`), each run
# as Gemini CLI 0.61.0 runs a hook: `bash -c COMMAND`, the input through a pipe. lro-hook is found through npm's
# layout (a relative link in <prefix>/bin to <prefix>/lib/node_modules/lro, itself a link to this folder): the
# links it follows are its extra cost. A teammate without lro runs the portable command too; its reference there is
# a hook that only reads its input (`cat >/dev/null`). Inputs: a shell call of a few lines (no Node) and one of
# 30,000 lines (stored: Node runs). Printed: each median and the ratio. Usage: bench/portable-hook.sh (RUNS=40)
. "$(dirname "$0")/lib.sh"
RUNS="${RUNS:-40}"
export LRO_DIR="$WORK/portable-hook-store"
NODE="$(command -v node)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

prefix="$WORK/portable-hook-npm"
rm -rf "$prefix"
mkdir -p "$prefix/lib/node_modules" "$prefix/bin"
ln -s "$ROOT" "$prefix/lib/node_modules/lro"
ln -s ../lib/node_modules/lro/bin/lro-hook "$prefix/bin/lro-hook"
nodedir="$WORK/portable-hook-node"
rm -rf "$nodedir" && mkdir -p "$nodedir" && ln -s "$NODE" "$nodedir/node"
# the command as `lro init gemini --project` writes it, read from the file it writes
proj="$WORK/portable-hook-project"
rm -rf "$proj" && mkdir -p "$proj/work"
(cd "$proj/work" && HOME="$proj" XDG_STATE_HOME="$proj/state" "$NODE" "$LRO" init gemini --project >/dev/null 2>&1)
PORTABLE=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).hooks.AfterTool[0].hooks[0].command)' \
  "$proj/work/.gemini/settings.json")
echo "portable hook: $PORTABLE"
ABSOLUTE="LRO_NODE='$NODE' '$ROOT/bin/lro-hook' __gemini-hook"

# input N: the AfterTool input of a shell call that printed N lines
input() {
  node -e '
    const n = +process.argv[1];
    const out = Array.from({ length: n }, (_, i) => i).join("\n");
    process.stdout.write(JSON.stringify({
      session_id: "9a130d1b-0f0c-4074-9671-2f99ca25ea21", cwd: "/home/user/work", hook_event_name: "AfterTool",
      tool_name: "run_shell_command", tool_input: { command: `seq 0 ${n - 1}` },
      tool_response: { llmContent: `<untrusted_context>\nOutput: ${out}\n</untrusted_context>`, returnDisplay: "" },
    }));' "$1" >"$WORK/portable-hook-$1.json"
}

us() { local t=${1/./}; echo $((10#$t)); }
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
ms() { awk -v u="$1" 'BEGIN { printf "%.1f ms", u / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
strip() { sed 's/id: [0-9A-Z]*//g; s/expires [^)]*//g'; }

WITH="$prefix/bin:$nodedir:/usr/bin:/bin"
WITHOUT="$nodedir:/usr/bin:/bin"
for spec in "3:a few lines" "30000:30,000 lines, stored"; do
  n=${spec%%:*} what=${spec#*:}
  input "$n"
  f="$WORK/portable-hook-$n.json"
  a=$(PATH="$WITH" bash -c "$PORTABLE" <"$f" | strip)
  b=$(bash -c "$ABSOLUTE" <"$f" | strip)
  [[ $a == "$b" ]] || { echo "the portable and the absolute hook answered differently for $what" >&2; exit 1; }
  runs=$RUNS
  ((n >= 30000)) && runs=$((RUNS < 10 ? RUNS : 10))
  p_t=() a_t=()
  for ((i = 0; i < runs; i++)); do
    t0=$(us "$EPOCHREALTIME"); cat "$f" | PATH="$WITH" bash -c "$PORTABLE" >/dev/null
    t1=$(us "$EPOCHREALTIME"); cat "$f" | bash -c "$ABSOLUTE" >/dev/null
    t2=$(us "$EPOCHREALTIME")
    p_t+=($((t1 - t0))) a_t+=($((t2 - t1)))
  done
  p=$(median "${p_t[@]}") q=$(median "${a_t[@]}")
  echo "shell call, $what ($runs runs): portable (by PATH, npm's links) $(ms "$p"); by absolute paths $(ms "$q");" \
    "ratio $(ratio "$p" "$q")"
done
# a teammate without lro: the portable hook steps aside; the reference reads the input and does nothing else
f="$WORK/portable-hook-30000.json"
s_t=() c_t=()
for ((i = 0; i < RUNS; i++)); do
  t0=$(us "$EPOCHREALTIME"); cat "$f" | PATH="$WITHOUT" bash -c "$PORTABLE" >/dev/null
  t1=$(us "$EPOCHREALTIME"); cat "$f" | PATH="$WITHOUT" bash -c 'cat >/dev/null' >/dev/null
  t2=$(us "$EPOCHREALTIME")
  s_t+=($((t1 - t0))) c_t+=($((t2 - t1)))
done
s=$(median "${s_t[@]}") c=$(median "${c_t[@]}")
echo "no lro on PATH, 30,000 lines ($RUNS runs): portable hook steps aside $(ms "$s"); a hook that only reads" \
  "$(ms "$c"); ratio $(ratio "$s" "$c")"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
