// `lro count ID --by FIELD…`: how many records have each value of a field (or each combination of several),
// most frequent first; for text results, lines by log level, by template, or by what a regex captures. Within
// the output budget; --json for scripts; --explain prints the equivalent jq command.
import { DIR_OPTION, ID_ARGUMENT, MAX_TOKENS_OPTION, timeoutOption, type CommandDef } from './command.js';
import { STREAM_OPTION } from './stream-option.js';
import { DEFAULT_STALL_SECONDS } from '../watchdog.js';
import type { IO } from '../io.js';
import { OutputBatch } from '../render/batch.js';
import { printCount } from '../render/count-output.js';
import { countQuery, planCount, type CountOptions } from '../query/count.js';
import { countExplain, EXPLAIN_STREAM } from '../query/explain.js';
import { queryContentType, recordView } from '../query/view.js';
import { damaged, resolveResult } from '../store/resolve.js';
import { parseTimeout } from '../units.js';
import { refuseBinary } from './binary-result.js';
import { readIn } from './read.js';
import { UsageError } from '../errors.js';
import { commandAnswer, type NextOf } from '../budget.js';
import { nextCommand } from './argv.js';
import COUNT_HELP from 'help:count';

/** How a count continuation is printed: --by before the conditions, the options after them, --groups last. */
export const COUNT_LAYOUT = ['id', '--by', 'condition', '--any', '-i', '--distinct', '--records', '--json', '--stream', '--max-tokens', '--dir', '--groups'];

/** The next part of a cut output as a value (commands/argv.ts). */
const nextCount: NextOf = (input) => nextCommand(countCommand, input, COUNT_LAYOUT);

/** Counts and prints; returns the exit code. A --by pattern that could run away is watched. */
export async function runCount(ref: string, o: CountOptions, io: IO): Promise<number> {
  const rf = resolveResult(ref, { dir: o.dir, env: io.env });
  refuseBinary(rf, 'count');
  const view = recordView(rf, o.stream);
  const plan = planCount(o, queryContentType(rf), view.count, view.table?.names ?? null);
  const timeout = o.timeout !== undefined ? parseTimeout(o.timeout) : DEFAULT_STALL_SECONDS;
  if (o.explain) {
    if (o.stream !== undefined) throw new UsageError(EXPLAIN_STREAM);
    await io.stdout.write(commandAnswer(io, countExplain(rf.header.id, plan, view)));
    return 0;
  }
  const out = new OutputBatch(io.stdout);
  const err = (s: string) => io.stderr.write(s);
  try {
    const t = plan.query.text;
    const conditionsLinear = plan.query.conditions.every((c) => !c.matcher || c.matcher.linearTime);
    const linear = (t?.kind !== 'regex' || t.matcher.linearTime) && conditionsLinear;
    return await damaged(rf, async () => {
      const res = countQuery(rf, plan.query, view, linear ? undefined : timeout); // the values
      return printCount(rf, plan, res, view, io, (s) => out.add(s), err, { nextOf: nextCount, readOf: readIn(o.dir) }); // the text, within the budget
    });
  } finally {
    await out.flush();
  }
}

/** The `count` command's definition (options, help, action). */
/** `lro count`. */
export const countCommand: CommandDef<CountOptions & { id: string; condition: string[] }> = {
  name: 'count',
  description: 'count records by the values of a field, most frequent first (text: lines by level, template or regex)',
  arguments: [
    ID_ARGUMENT,
    {
      name: 'condition',
      variadic: true,
      optional: true,
      description: "count only records where these hold, as lro where takes them: status=error 'latency>500'",
      mcp: "as lro_where's",
    },
  ],
  options: [
    {
      flags: '--by <field>',
      description:
        "field to count by, a jq path (.status, user.name, .items[].kind); repeat for combinations; for text: level, template or 'REGEX' with a capture group; none: the number of records",
      repeatable: true,
      mcp: '',
    },
    { flags: '--any', description: 'records where any condition holds (OR), not all of them' },
    { flags: '-i, --ignore-case', description: 'FIELD~REGEX conditions ignore case' },
    {
      flags: '--distinct',
      description: 'with --by: how many distinct values, then the values (most frequent first)',
      mcp: 'the number of values, then them',
    },
    { flags: '--records <A:B>', description: 'count only records A to B (1-based, inclusive)', mcp: '' },
    { flags: '--groups <A:B>', description: 'print only groups A to B of the list (to continue a cut output)', mcp: '"A:B" of the groups' },
    { flags: '--json', description: 'one JSON object per group: {count, first, value}' },
    { flags: '--explain', description: 'print the equivalent lro jq command instead of counting', mcp: 'as a jq filter', manual: 'There is none for --by template.' },
    STREAM_OPTION,
    MAX_TOKENS_OPTION,
    timeoutOption('a --by pattern', DEFAULT_STALL_SECONDS),
    DIR_OPTION,
  ],
  examples: [
    'lro count 01JD2X3Y4Z5A6B7C8D9E0F1G2H --by status',
    'lro count last --by .user.name --by status        pairs of values',
    "lro count last --by '.items[].kind'               each element counts",
    'lro count last --by level                         text: lines per log level',
    'lro count last --by template                      text: the kinds of line, variable parts as <*>',
    "lro count last --by 'user=(\\w+)'                  text: what the group captures",
    'lro count last --by status --explain              the same question as a jq command',
    'lro count last                                    the number of records',
    'lro count last --by Test Action=fail              only the records where Action is fail',
    'lro count last --by user.id --distinct            how many users, and which',
  ],
  notes: COUNT_HELP,
  run: ({ id, condition, ...o }, io) => runCount(id, { ...o, condition }, io),
};
