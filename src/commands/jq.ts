// `lro jq ID FILTER`: jq over the records (the header skipped), as `tail -n +2 FILE | jq FILTER`, with jq's
// flags and exit codes (3 compile error, 5 runtime error), within the output budget. The filter runs in a
// worker thread that is stopped if it makes no progress (an endless loop), and the engine's limits become a
// clear message.
import { Command } from 'commander';
import type { Context } from '../cli.js';
import { shellQuote } from '../describe/shell.js';
import { DEFAULT_STALL_SECONDS, runGuarded } from '../engines/guard.js';
import { loadJq, runJqOn, type JqSpec } from '../engines/jq.js';
import { UsageError } from '../errors.js';
import { FormatError } from '../format/header.js';
import type { ResultFile } from '../format/reader.js';
import type { IO } from '../io.js';
import { parseRange } from '../ranges.js';
import { maxTokensFrom } from '../render/budget.js';
import { damagedError, resolveResult } from '../store/resolve.js';
import { formatCount, parseCount, parseTimeout } from '../units.js';

export interface JqOptions {
  dir?: string;
  rawOutput?: boolean;
  compactOutput?: boolean;
  joinOutput?: boolean;
  sortKeys?: boolean;
  tab?: boolean;
  indent?: string;
  slurp?: boolean;
  nullInput?: boolean;
  exitStatus?: boolean;
  arg?: string[];
  argjson?: string[];
  header?: boolean;
  records?: string;
  skipLines?: string;
  maxTokens?: string;
  timeout?: string;
}

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

function pairs(list: string[] | undefined, option: string): [string, string][] {
  return (list ?? []).map((p) => {
    const eq = p.indexOf('=');
    const name = p.slice(0, eq);
    if (eq <= 0 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new UsageError(`invalid ${option}: use ${option} NAME VALUE`);
    return [name, p.slice(eq + 1)];
  });
}

/** The jq spec from the options (shared by the main thread and the worker). */
export function jqSpec(id: string, filter: string, o: JqOptions, env: NodeJS.ProcessEnv): JqSpec {
  const outputFlags: string[] = [];
  if (o.rawOutput) outputFlags.push('-r');
  if (o.compactOutput) outputFlags.push('-c');
  if (o.joinOutput) outputFlags.push('-j');
  if (o.sortKeys) outputFlags.push('-S');
  if (o.tab) outputFlags.push('--tab');
  if (o.indent !== undefined) outputFlags.push('--indent', String(parseCount(o.indent, '--indent')));
  const args = pairs(o.arg, '--arg');
  const jsonArgs = pairs(o.argjson, '--argjson');
  const range = o.records !== undefined ? parseRange(o.records, '--records') : { from: 1, to: Infinity };
  if (o.header && o.records !== undefined) throw new UsageError('--header and --records cannot be used together');
  const spec: JqSpec = {
    filter,
    outputFlags,
    slurp: !!o.slurp,
    nullInput: !!o.nullInput,
    exitStatus: !!o.exitStatus,
    args,
    jsonArgs,
    header: !!o.header,
    range,
    skipLines: o.skipLines !== undefined ? parseCount(o.skipLines, '--skip-lines') : 0,
    maxTokens: maxTokensFrom(o.maxTokens, env),
    command: (extra) => {
      const words = ['lro', 'jq', id, shellQuote(filter), ...outputFlags];
      if (o.slurp) words.push('-s');
      if (o.nullInput) words.push('-n');
      if (o.exitStatus) words.push('-e');
      if (o.header) words.push('--header');
      for (const [k, v] of args) words.push('--arg', k, shellQuote(v));
      for (const [k, v] of jsonArgs) words.push('--argjson', k, shellQuote(v));
      const records = extra.records ?? o.records;
      if (records !== undefined) words.push('--records', records);
      if (extra.skipLines) words.push('--skip-lines', String(extra.skipLines));
      if (o.maxTokens !== undefined) words.push('--max-tokens', o.maxTokens);
      if (o.dir) words.push('--dir', shellQuote(o.dir));
      return words.join(' ');
    },
  };
  return spec;
}

/** Runs the filter on the calling thread (in the worker, or in-process when there is no built worker). */
export async function runJqHere(rf: ResultFile, filter: string, o: JqOptions, env: NodeJS.ProcessEnv, out: (s: string) => void | Promise<void>, err: (s: string) => void | Promise<void>, tick?: () => void): Promise<number> {
  const spec = jqSpec(rf.header.id, filter, o, env);
  const jq = await loadJq();
  try {
    return await runJqOn(rf, spec, { out, err, tick }, jq);
  } catch (e) {
    if (e instanceof FormatError) throw damagedError(rf, e);
    throw e;
  }
}

export async function runJq(ref: string, filter: string, o: JqOptions, io: IO): Promise<number> {
  const rf = resolveResult(ref, { dir: o.dir, env: io.env });
  const spec = jqSpec(rf.header.id, filter, o, io.env); // usage errors before starting anything
  const { count } = rf.header;
  if (o.records !== undefined && spec.range.from > count && count > 0) {
    throw new UsageError(`--records ${o.records} is past the end: the result has ${formatCount(count)} records`);
  }
  const timeout = o.timeout !== undefined ? parseTimeout(o.timeout) : DEFAULT_STALL_SECONDS;
  const out = (s: string) => io.stdout.write(s);
  const err = (s: string) => io.stderr.write(s);
  return runGuarded(
    { task: 'jq', path: rf.path, filter, options: { ...o }, env: { LRO_MAX_OUTPUT_TOKENS: io.env.LRO_MAX_OUTPUT_TOKENS } },
    out,
    err,
    'jq',
    () => runJqHere(rf, filter, o, io.env, out, err),
    timeout,
  );
}

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
