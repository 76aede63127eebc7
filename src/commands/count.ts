// `lro count ID --by FIELD…`: how many records have each value of a field (or each combination of several),
// most frequent first; for text results, lines by log level, by template, or by what a regex captures. Within
// the output budget; --json for scripts; --explain prints the equivalent jq command.
import { Command } from 'commander';
import type { Context } from '../cli.js';
import { DEFAULT_STALL_SECONDS } from '../engines/watchdog.js';
import type { IO } from '../io.js';
import { OutputBatch } from '../render/batch.js';
import { printCount } from '../render/count-output.js';
import { planCount, type CountOptions } from '../query/count.js';
import { countExplain } from '../query/explain.js';
import { damaged, resolveResult } from '../store/resolve.js';
import { parseTimeout } from '../units.js';

/** Counts and prints; returns the exit code. A --by pattern that could run away is watched. */
export async function runCount(ref: string, o: CountOptions, io: IO): Promise<number> {
  const rf = resolveResult(ref, { dir: o.dir, env: io.env });
  const plan = planCount(o, rf.header.content_type, rf.header.count);
  const timeout = o.timeout !== undefined ? parseTimeout(o.timeout) : DEFAULT_STALL_SECONDS;
  if (o.explain) {
    await io.stdout.write(countExplain(rf.header.id, plan));
    return 0;
  }
  const out = new OutputBatch(io.stdout);
  const err = (s: string) => io.stderr.write(s);
  try {
    const t = plan.query.text;
    const linear = t?.kind !== 'regex' || t.matcher.linearTime;
    return await damaged(rf, () => printCount(rf, plan, io.env, (s) => out.add(s), err, linear ? undefined : timeout));
  } finally {
    await out.flush();
  }
}

/** The `count` command's definition (options, help, action). */
export function countCommand(ctx: Context): Command {
  return new Command('count')
    .description('count records by the values of a field, most frequent first (text: lines by level, template or regex)')
    .argument('<id>', "result id, 'last', or the path of a result file")
    .option('--by <field>', "field to count by, a jq path (.status, user.name, .items[].kind); repeat for combinations; for text: level, template or 'REGEX' with a capture group; none: the number of records", (v: string, acc: string[] = []) => [...acc, v])
    .option('--records <A:B>', 'count only records A to B (1-based, inclusive)')
    .option('--groups <A:B>', 'print only groups A to B of the list (to continue a cut output)')
    .option('--json', 'one JSON object per group: {count, first, value}')
    .option('--explain', 'print the equivalent lro jq command instead of counting')
    .option('--max-tokens <n>', 'output budget in tokens (default: $LRO_MAX_OUTPUT_TOKENS, else 2000; 0 = no limit)')
    .option('--timeout <seconds>', `stop a --by pattern that makes no progress for this long (default: ${DEFAULT_STALL_SECONDS}s)`)
    .option('--dir <dir>', 'store directory')
    .addHelpText(
      'after',
      `
Examples:
  lro count 01JD2X3Y4Z5A6B7C8D9E0F1G2H --by status
  lro count last --by .user.name --by status        pairs of values
  lro count last --by '.items[].kind'               each element counts
  lro count last --by level                         text: lines per log level
  lro count last --by template                      text: the kinds of line, variable parts as <*>
  lro count last --by 'user=(\\w+)'                  text: what the group captures
  lro count last --by status --explain              the same question as a jq command
  lro count last                                    the number of records

Each row is: count, the first record with that value, the value (as lro where reads it: status=VALUE).
A record without the field counts as null. Exit status: 0, or 2 on error (a field no record has is one).`,
    )
    .action(async (id: string, opts: CountOptions) => {
      ctx.exitCode = await runCount(id, opts, ctx.io);
    });
}
