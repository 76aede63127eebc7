// `lro jq`'s options (as on the command line, also sent to a worker) turned into a JqSpec for engines/jq.ts, and
// running it on the calling thread. Usage errors surface here, before the engine loads.
import { UsageError } from '../errors.js';
import { FormatError } from '../format/header.js';
import type { ResultFile } from '../format/reader.js';
import { parseRange } from '../ranges.js';
import { maxTokensFrom } from '../budget.js';
import { damagedError } from '../store/resolve.js';
import { parseCount } from '../units.js';
import { loadJq, runJqOn, type JqIO, type JqSpec } from './jq.js';
import { callsRow, rowDefinition, tableOf } from '../query/table.js';

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
  const indent = o.indent !== undefined ? String(parseCount(o.indent, '--indent')) : undefined;
  if (indent !== undefined) outputFlags.push('--indent', indent);
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
    // the options that shape the output and select the input, as given (--timeout is not repeated)
    nextInput: (extra) => ({
      id,
      filter,
      rawOutput: o.rawOutput,
      compactOutput: o.compactOutput,
      joinOutput: o.joinOutput,
      sortKeys: o.sortKeys,
      tab: o.tab,
      indent,
      slurp: o.slurp,
      nullInput: o.nullInput,
      exitStatus: o.exitStatus,
      header: o.header,
      arg: o.arg,
      argjson: o.argjson,
      records: extra.records ?? o.records,
      skipLines: extra.skipLines ? String(extra.skipLines) : undefined,
      maxTokens: o.maxTokens,
      dir: o.dir || undefined,
    }),
  };
  return spec;
}

/** Runs the filter, each call of the engine stopped after `io.stallSeconds` (an endless loop). */
export async function runJqHere(
  rf: ResultFile,
  filter: string,
  o: JqOptions,
  env: NodeJS.ProcessEnv,
  io: JqIO,
  /** Called before jq's engine is loaded, if it is (a filter jq-fast.ts answers runs without it). */
  beforeEngine?: () => void,
): Promise<number> {
  const spec = jqSpec(rf.header.id, filter, o, env);
  const table = callsRow(filter) ? tableOf(rf) : null;
  if (table) spec.prelude = rowDefinition(table);
  const load = () => {
    beforeEngine?.();
    return loadJq();
  };
  try {
    return await runJqOn(rf, spec, io, load);
  } catch (e) {
    if (e instanceof FormatError) throw damagedError(rf, e);
    throw e;
  }
}

/**
 * Runs a filter with compact output (`o.compactOutput`) and gives each of its outputs as its JSON text, one call
 * each, as jq makes them (a compact output is one line: JSON text holds no raw newline), with nothing printed: the
 * library's jq (api/search.ts). Its messages go to `io.err`. Returns jq's exit code.
 */
export async function jqOutputs(
  rf: ResultFile,
  filter: string,
  o: JqOptions,
  io: Pick<JqIO, 'err' | 'stallSeconds'>,
  onOutput: (text: string) => void,
): Promise<number> {
  if (!o.compactOutput || o.joinOutput || o.rawOutput) throw new Error('jqOutputs takes compact JSON output only');
  let partial = '';
  const out = (s: string) => {
    const lines = (partial + s).split('\n');
    partial = lines.pop()!;
    for (const line of lines) if (line !== '') onOutput(line);
  };
  const code = await runJqHere(rf, filter, o, {}, { ...io, out });
  if (partial !== '') onOutput(partial);
  return code;
}

