// `lro jq ID FILTER`: jq over the records (the header skipped), as `tail -n +2 FILE | jq FILTER`, with jq's
// flags and exit codes (3 compile error, 5 runtime error), within the output budget. Each call of the engine is
// watched and stopped if it makes no progress (an endless loop), and the engine's limits become a clear message.
import { setFlagsFromString } from 'node:v8';
import { Command } from 'commander';
import type { Context } from '../cli.js';
import { DEFAULT_STALL_SECONDS } from '../engines/watchdog.js';
import { jqSpec, runJqHere, type JqOptions } from '../engines/jq-spec.js';
import { jqModule } from '../engines/jq.js';
import type { IO } from '../io.js';
import { resolveResult } from '../store/resolve.js';
import { formatCount, parseTimeout } from '../units.js';
import { UsageError } from '../errors.js';

/**
 * jq takes `--arg NAME VALUE` (two words); commander takes one value per option. Rewrites each pair as
 * `--arg NAME=VALUE` (jq variable names cannot contain "=") before parsing.
 */
export function preprocessJqArgv(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if ((a === '--arg' || a === '--argjson') && i + 2 < argv.length + 0 && argv[i + 1] !== undefined && argv[i + 2] !== undefined) {
      out.push(a, `${argv[i + 1]}=${argv[i + 2]}`);
      i += 2;
    } else out.push(a);
  }
  return out;
}

export async function runJq(ref: string, filter: string, o: JqOptions, io: IO): Promise<number> {
  const rf = resolveResult(ref, { dir: o.dir, env: io.env });
  const spec = jqSpec(rf.header.id, filter, o, io.env); // usage errors before starting anything
  const { count } = rf.header;
  if (o.records !== undefined && spec.range.from > count && count > 0) {
    throw new UsageError(`--records ${o.records} is past the end: the result has ${formatCount(count)} records`);
  }
  const timeout = o.timeout !== undefined ? parseTimeout(o.timeout) : DEFAULT_STALL_SECONDS;
  // A small result is done before V8's optimising tier would pay for itself: compiling jq's WebAssembly with
  // the baseline compiler only saves its background work (1 MB: about 40 ms less on a busy 2-core machine). The
  // flag is process-wide, so only this command, which runs nothing else, sets it.
  jqModule(); // loaded before the flag changes, for its code cache (see jqModule)
  if (rf.size <= BASELINE_ONLY_BYTES) setFlagsFromString('--liftoff-only');
  return runJqHere(rf, filter, o, io.env, (s) => io.stdout.write(s), (s) => io.stderr.write(s), timeout);
}

/** Results up to this size run jq compiled by V8's baseline compiler only. */
const BASELINE_ONLY_BYTES = 16 << 20;

export function jqCommand(ctx: Context): Command {
  return new Command('jq')
    .description('run a jq filter over the records of a stored result (each record one input; the header skipped)')
    .argument('<id>', "result id, 'last', or the path of a result file")
    .argument('<filter>', 'jq filter')
    .option('-r, --raw-output', 'strings without quotes')
    .option('-c, --compact-output', 'one line per value')
    .option('-j, --join-output', 'like -r, without newlines')
    .option('-S, --sort-keys', 'sort object keys')
    .option('--tab', 'indent with tabs')
    .option('--indent <n>', 'indent with n spaces')
    .option('-s, --slurp', 'all records as one array')
    .option('-n, --null-input', 'run once with null input (records through input/inputs)')
    .option('-e, --exit-status', 'exit 1 if the last output is false or null, 4 if there is none')
    .option('--arg <name value>', 'set $name to the string value (repeatable)', (v: string, acc: string[] = []) => [...acc, v])
    .option('--argjson <name value>', 'set $name to the JSON value (repeatable)', (v: string, acc: string[] = []) => [...acc, v])
    .option('--header', 'run the filter on the header (line 1) instead of the records')
    .option('--records <A:B>', 'only records A to B (1-based, inclusive)')
    .option('--skip-lines <n>', 'skip the first n output lines (to continue a cut output)')
    .option('--max-tokens <n>', 'output budget in tokens (default: $LRO_MAX_OUTPUT_TOKENS, else 2000; 0 = no limit)')
    .option('--timeout <seconds>', `stop a filter that makes no progress for this long (default: ${DEFAULT_STALL_SECONDS}s)`)
    .option('--dir <dir>', 'store directory')
    .addHelpText(
      'after',
      `
Examples:
  lro jq 01JD2X3Y4Z5A6B7C8D9E0F1G2H -c 'select(.status == "error") | {id, msg}'
  lro jq last -s 'group_by(.level) | map({level: .[0].level, n: length})'
  lro jq last -r --arg user alice 'select(.user == $user) | .id'
  lro jq last --header '.count'

Records go to jq in batches, so an ordinary filter runs in flat memory; -s, -n and filters using input/inputs
get all records at once (up to about 150 MB). Exit status as jq: 3 compile error, 5 runtime error; 2 for lro's
own errors (a missing result, a filter stopped after --timeout, input too large for the engine).`,
    )
    .action(async (id: string, filter: string, opts: JqOptions) => {
      ctx.exitCode = await runJq(id, filter, opts, ctx.io);
    });
}
