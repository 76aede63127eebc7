// grep and jq over a stored result for programs: the same engines, guards and limits as `lro grep --json` and
// `lro jq -c`, with the output parsed back into values instead of printed. A pattern or filter that could run
// away is watched and stopped when it makes no progress, so a host (an MCP server) never hangs.
import { printGrep } from '../render/grep-output.js';
import { planGrep, type GrepOptions } from '../search/grep-plan.js';
import { jqSpec, runJqHere, type JqOptions } from '../engines/jq-spec.js';
import { DEFAULT_STALL_SECONDS } from '../engines/watchdog.js';
import { EXIT, LroError } from '../errors.js';
import { formatRange } from '../ranges.js';
import { damaged } from '../store/resolve.js';
import { openResult, type ResultRef, type StoreOptions } from './results.js';

/** Options of grepResult, as lro grep's flags. `from`/`to` limit the records searched (1-based, inclusive). */
export interface GrepResultOptions extends StoreOptions {
  fixedStrings?: boolean;
  ignoreCase?: boolean;
  wordRegexp?: boolean;
  invertMatch?: boolean;
  maxCount?: number;
  before?: number;
  after?: number;
  context?: number;
  from?: number;
  to?: number;
  /** Stop a pattern that makes no progress for this long (default 10 s). */
  timeoutSeconds?: number;
}

/**
 * A selected record (`match`) or a context record, as `lro grep --json` prints it. A record longer than 1,000
 * characters comes as windows around its matches: `text` is the window, starting at `offset` of the record.
 */
export interface GrepLine {
  type: 'match' | 'context';
  record: number;
  text: string;
  offset: number;
  record_length: number;
  matches: { start: number; end: number }[];
}

/** What grepResult found: the lines, and how many records were selected. */
export interface GrepOutput {
  lines: GrepLine[];
  matched: number;
}

const count = (n: number | undefined) => (n === undefined ? undefined : String(n));
const range = (from?: number, to?: number) => (from === undefined && to === undefined ? undefined : formatRange(from ?? 1, to ?? Infinity));

/** Searches the records of a stored result with a JavaScript regular expression (or a fixed string). */
export async function grepResult(ref: ResultRef, pattern: string, opts: GrepResultOptions = {}): Promise<GrepOutput> {
  const rf = openResult(ref, opts);
  const o: GrepOptions = {
    fixedStrings: opts.fixedStrings,
    ignoreCase: opts.ignoreCase,
    wordRegexp: opts.wordRegexp,
    invertMatch: opts.invertMatch,
    maxCount: count(opts.maxCount),
    beforeContext: count(opts.before),
    afterContext: count(opts.after),
    context: count(opts.context),
    records: range(opts.from, opts.to),
    json: true,
    maxTokens: '0', // values, not a reader's screen: no output budget
  };
  const plan = planGrep(pattern, o, rf.header.count);
  const lines: GrepLine[] = [];
  const collect = (s: string) => {
    for (const line of s.split('\n')) if (line) lines.push(JSON.parse(line) as GrepLine);
  };
  const stall = plan.query.matcher.linearTime ? undefined : opts.timeoutSeconds ?? DEFAULT_STALL_SECONDS;
  await damaged(rf, () => printGrep(rf, plan, {}, (s) => collect(typeof s === 'string' ? s : Buffer.from(s).toString('utf8')), stall));
  return { lines, matched: new Set(lines.filter((l) => l.type === 'match').map((l) => l.record)).size };
}

/** Options of jqResult, as lro jq's flags. `from`/`to` limit the records fed to jq (1-based, inclusive). */
export interface JqResultOptions extends StoreOptions {
  slurp?: boolean;
  nullInput?: boolean;
  /** Run the filter on the header instead of the records. */
  header?: boolean;
  from?: number;
  to?: number;
  /** $name bindings: strings (--arg) and JSON values (--argjson). */
  args?: Record<string, string>;
  jsonArgs?: Record<string, unknown>;
  /** Return each output as its compact JSON text instead of parsing it (keeps numbers beyond 2^53 exact). */
  raw?: boolean;
  /** Stop a filter that makes no progress for this long (default 10 s). */
  timeoutSeconds?: number;
}

/** What jqResult produced: the outputs, jq's exit code (0, or 5 after a runtime error) and its messages. */
export interface JqOutput {
  values: unknown[];
  exitCode: number;
  stderr: string;
}

/** Runs a jq filter over the records of a stored result (each record one input, as `tail -n +2 FILE | jq`). */
export async function jqResult(ref: ResultRef, filter: string, opts: JqResultOptions = {}): Promise<JqOutput> {
  const rf = openResult(ref, opts);
  const o: JqOptions = {
    compactOutput: true, // one value per line, so the output splits back into values
    slurp: opts.slurp,
    nullInput: opts.nullInput,
    header: opts.header,
    records: range(opts.from, opts.to),
    arg: Object.entries(opts.args ?? {}).map(([k, v]) => `${k}=${v}`),
    argjson: Object.entries(opts.jsonArgs ?? {}).map(([k, v]) => `${k}=${JSON.stringify(v)}`),
    maxTokens: '0',
  };
  jqSpec(rf.header.id, filter, o, {}); // usage errors before starting anything
  let out = '';
  let stderr = '';
  const write = async (s: string) => void (out += s);
  const writeErr = async (s: string) => void (stderr += s);
  const exitCode = await runJqHere(rf, filter, o, {}, write, writeErr, opts.timeoutSeconds ?? DEFAULT_STALL_SECONDS);
  if (exitCode === EXIT.error || exitCode === EXIT.jqCompile) {
    throw new LroError(stderr.trim().split('\n')[0] || `jq exited with ${exitCode}`, exitCode);
  }
  const texts = out.split('\n').filter((l) => l !== '');
  return { values: opts.raw ? texts : texts.map((t) => JSON.parse(t) as unknown), exitCode, stderr };
}
