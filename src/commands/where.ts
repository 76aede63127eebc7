// `lro where ID COND…`: the records where every condition holds (or any, with --any), numbered like `lro read`,
// within the output budget; --explain prints the equivalent jq command instead. Exit 0 if a record matched,
// 1 if none did, 2 on error (a condition naming a field no record has is one).
import { DIR_OPTION, ID_ARGUMENT, MAX_TOKENS_OPTION, timeoutOption, type CommandDef } from './command.js';
import { STREAM_OPTION } from './stream-option.js';
import { DEFAULT_STALL_SECONDS } from '../watchdog.js';
import type { ResultFile } from '../format/reader.js';
import type { IO } from '../io.js';
import { OutputBatch } from '../render/batch.js';
import { printWhere } from '../render/where-output.js';
import { planWhere, requireWhereFields, whereFilter, whereMatches, type WhereOptions, type WherePlan } from '../query/where.js';
import { damaged, resolveResult } from '../store/resolve.js';
import { tableRowRange } from '../query/table.js';
import { recordView } from '../query/view.js';
import { EXPLAIN_STREAM, explainCommand, mapEntriesJq } from '../query/explain.js';
import { parseTimeout } from '../units.js';
import { refuseBinary } from './binary-result.js';
import { readIn } from './read.js';
import { UsageError } from '../errors.js';
import { commandAnswer, type Next, type NextOf } from '../budget.js';
import { nextCommand } from './argv.js';
import WHERE_HELP from 'help:where';


/** The jq command that gives what the query gives (`lro where --explain`), as a value. */
export function whereExplain(rf: ResultFile, plan: WherePlan): Next {
  const q = plan.query;
  const slurp = q.countOnly;
  const compact = !slurp;
  const id = rf.header.id;
  const dir = plan.options.dir;
  // a table's lines are made its row objects first (only its rows: --records from the line after the header)
  const { table, map } = recordView(rf);
  let records = plan.options.records;
  if (table) records = tableRowRange(table, q.range);
  // a map's entries are taken from its one document (the range is of entries, so in the filter)
  if (map) {
    const entries = mapEntriesJq(map, q.range);
    const filter = q.countOnly ? `[.[] | ${entries} | ${whereFilter({ ...q, fields: null })}] | length` : `${entries} | ${whereFilter(q)}`;
    return explainCommand({ id, slurp, compact, filter, records: map.inputs ? records : undefined, dir });
  }
  const row = table ? 'row | ' : ''; // lro jq's own row on a table (query/table.ts)
  const filter = q.countOnly ? `map(${row}${whereFilter({ ...q, fields: null })}) | length` : row + whereFilter(q);
  return explainCommand({ id, slurp, compact, filter, records, dir });
}

/** How a where continuation is printed: the conditions, then the options that shape the output, --records last. */
export const WHERE_LAYOUT = ['id', 'condition', '--any', '-i', '--fields', '-m', '--stream', '--max-tokens', '--dir', '--records'];

/** The next part of a cut output as a value (commands/argv.ts). */
const nextWhere: NextOf = (input) => nextCommand(whereCommand, input, WHERE_LAYOUT);

/** Runs the query and prints it; returns the exit code. A pattern that could run away is watched. */
export async function runWhere(ref: string, conditions: string[], o: WhereOptions, io: IO): Promise<number> {
  const rf = resolveResult(ref, { dir: o.dir, env: io.env });
  refuseBinary(rf, 'where');
  const view = recordView(rf, o.stream);
  const plan = planWhere(conditions, o, view.count, view.table?.names);
  const timeout = o.timeout !== undefined ? parseTimeout(o.timeout) : DEFAULT_STALL_SECONDS;
  if (o.explain) {
    if (o.stream !== undefined) throw new UsageError(EXPLAIN_STREAM);
    await io.stdout.write(commandAnswer(io, whereExplain(rf, plan)));
    return 0;
  }
  const out = new OutputBatch(io.stdout);
  const err = (s: string) => io.stderr.write(s);
  try {
    const linear = plan.query.conditions.every((c) => !c.matcher || c.matcher.linearTime);
    return await damaged(rf, async () => {
      requireWhereFields(rf, plan.query, view);
      const matches = whereMatches(rf, plan.query, view, linear ? undefined : timeout); // the values, as found
      return printWhere(rf, plan, matches, view, io, (s) => out.add(s), err, { nextOf: nextWhere, readOf: readIn(o.dir) }); // the text
    });
  } finally {
    await out.flush();
  }
}

/** The `where` command's definition (options, help, action). */
/** `lro where`. */
export const whereCommand: CommandDef<WhereOptions & { id: string; condition: string[] }> = {
  name: 'where',
  description: 'print the records where every condition holds (FIELD=VALUE, !=, <, <=, >, >=, FIELD~REGEX, FIELD?, FIELD in A,B)',
  arguments: [
    ID_ARGUMENT,
    { name: 'condition', variadic: true, description: "conditions, e.g. status=error 'latency>500' 'msg~time(d )?out' user.id? 'level in warn,error'", mcp: '' },
  ],
  options: [
    { flags: '--any', description: 'records where any condition holds (OR), not all of them', mcp: 'OR' },
    { flags: '--fields <list>', description: 'print only these fields of each record, e.g. --fields id,status,user.name', mcp: '"id,status": only these', manual: 'Each record is printed as an object keyed by the paths.' },
    { flags: '-c, --count', description: 'print only the number of matching records', mcp: 'only the number' },
    { flags: '-m, --max-count <n>', description: 'stop after n matching records', mcp: '' },
    { flags: '-i, --ignore-case', description: 'FIELD~REGEX ignores case', mcp: 'for ~' },
    { flags: '--records <A:B>', description: 'look only at records A to B (1-based, inclusive)', mcp: '' },
    { flags: '--explain', description: 'print the equivalent lro jq command instead of running the query', mcp: 'as a jq filter' },
    STREAM_OPTION,
    MAX_TOKENS_OPTION,
    timeoutOption('a pattern', DEFAULT_STALL_SECONDS),
    DIR_OPTION,
  ],
  examples: [
    'lro where 01JD2X3Y4Z5A6B7C8D9E0F1G2H status=error',
    "lro where last 'latency>500' 'status!=ok' --fields id,latency",
    "lro where last 'msg=connection refused' 'user.name in alice,bob'",
    "lro where last 'id=505874924095815681'           numbers compare exactly, whatever their size",
    "lro where last 'tags[]=urgent' -c                 [] looks at each element",
    'lro where last status=error --explain             the same question as a jq command',
  ],
  notes: WHERE_HELP,
  run: ({ id, condition, ...o }, io) => runWhere(id, condition, o, io),
};
