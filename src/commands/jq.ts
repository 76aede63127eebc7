// `lro jq ID FILTER`: jq over the records (the header skipped), as `tail -n +2 FILE | jq FILTER`, with jq's
// flags and exit codes (3 compile error, 5 runtime error), within the output budget. Each call of the engine is
// watched and stopped if it makes no progress (an endless loop), and the engine's limits become a clear message.
import { DIR_OPTION, ID_ARGUMENT, MAX_TOKENS_OPTION, timeoutOption, type CommandDef } from './command.js';
import { DEFAULT_STALL_SECONDS } from '../watchdog.js';
import { jqSpec, runJqHere, type JqOptions } from '../engines/jq-spec.js';
import { jqModule } from '../engines/jq.js';
import type { IO } from '../io.js';
import { resolveResult } from '../store/resolve.js';
import { formatCount, parseTimeout } from '../units.js';
import { UsageError } from '../errors.js';
import { refuseBinary } from './binary-result.js';
import { setV8Flags } from '../v8-flags.js';
import type { NextOf } from '../budget.js';
import { nextCommand } from './argv.js';
import { readIn } from './read.js';
import JQ_HELP from 'help:jq';


export async function runJq(ref: string, filter: string, o: JqOptions, io: IO): Promise<number> {
  const rf = resolveResult(ref, { dir: o.dir, env: io.env });
  refuseBinary(rf, 'jq');
  const spec = jqSpec(rf.header.id, filter, o, io.env); // usage errors before starting anything
  const { count } = rf.header;
  if (o.records !== undefined && spec.range.from > count && count > 0) {
    throw new UsageError(`--records ${o.records} is past the end: the result has ${formatCount(count)} records`);
  }
  const timeout = o.timeout !== undefined ? parseTimeout(o.timeout) : DEFAULT_STALL_SECONDS;
  // A small result is done before V8's optimising tier would pay for itself: compiling jq's WebAssembly with
  // the baseline compiler only saves its background work (1 MB: about 40 ms less on a busy 2-core machine). The
  // flag is process-wide: set by the CLI's jq (not for an MCP tool call), once jq's engine is needed.
  const beforeEngine = () => {
    jqModule(); // loaded before the flag changes, for its code cache (see jqModule)
    if (io.ownProcess && rf.size <= BASELINE_ONLY_BYTES) setV8Flags('--liftoff-only');
  };
  const jqIO = {
    out: (s: string) => io.stdout.write(s),
    err: (s: string) => io.stderr.write(s),
    stallSeconds: timeout,
    nextOf: nextJq,
    readOf: readIn(o.dir),
    run: io.run,
  };
  return runJqHere(rf, filter, o, io.env, jqIO, beforeEngine);
}

/**
 * The order lro jq's next command shows its words in (as it printed them before its continuations were values): the
 * output flags, the input's, the variables, then --records and --skip-lines.
 */
export const JQ_LAYOUT = ['id', 'filter', '-r', '-c', '-j', '-S', '--tab', '--indent', '-s', '-n', '-e', '--header', '--arg', '--argjson', '--records', '--skip-lines', '--max-tokens', '--dir'];

const nextJq: NextOf = (input) => nextCommand(jqCommand, input, JQ_LAYOUT);

/** Results up to this size run jq compiled by V8's baseline compiler only. */
const BASELINE_ONLY_BYTES = 16 << 20;

/** `lro jq`. */
export const jqCommand: CommandDef<JqOptions & { id: string; filter: string }> = {
  name: 'jq',
  description: 'run a jq filter over the records of a stored result (each record one input; the header skipped)',
  arguments: [ID_ARGUMENT, { name: 'filter', description: 'jq filter', mcp: '' }],
  options: [
    { flags: '-r, --raw-output', description: 'strings without quotes', mcp: '' },
    { flags: '-c, --compact-output', description: 'one line per value', mcp: '' },
    { flags: '-j, --join-output', description: 'like -r, without newlines' },
    { flags: '-S, --sort-keys', description: 'sort object keys', mcp: '' },
    { flags: '--tab', description: 'indent with tabs' },
    { flags: '--indent <n>', description: 'indent with n spaces' },
    { flags: '-s, --slurp', description: 'all records as one array', mcp: 'all records as one array' },
    { flags: '-n, --null-input', description: 'run once with null input (records through input/inputs)', mcp: '' },
    { flags: '-e, --exit-status', description: 'exit 1 if the last output is false or null, 4 if there is none' },
    { flags: '--arg <name value>', description: 'set $name to the string value (repeatable)', repeatable: true, mcp: '{name: text} sets $name' },
    { flags: '--argjson <name value>', description: 'set $name to the JSON value (repeatable)', repeatable: true, mcp: '{name: JSON}' },
    { flags: '--header', description: 'run the filter on the header (line 1) instead of the records', mcp: 'on the header line' },
    { flags: '--records <A:B>', description: 'only records A to B (1-based, inclusive)', mcp: '' },
    { flags: '--skip-lines <n>', description: 'skip the first n output lines (to continue a cut output)', mcp: 'skip n output lines' },
    MAX_TOKENS_OPTION,
    timeoutOption('a filter', DEFAULT_STALL_SECONDS),
    DIR_OPTION,
  ],
  examples: [
    `lro jq 01JD2X3Y4Z5A6B7C8D9E0F1G2H -c 'select(.status == "error") | {id, msg}'`,
    "lro jq last -s 'group_by(.level) | map({level: .[0].level, n: length})'",
    "lro jq last -r --arg user alice 'select(.user == $user) | .id'",
    "lro jq last --header '.count'",
  ],
  notes: JQ_HELP,
  run: ({ id, filter, ...o }, io) => runJq(id, filter, o, io),
};
