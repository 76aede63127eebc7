// grep and jq over a stored result for programs: the same engines, guards and limits as `lro grep --json` and
// `lro jq -c`. grep's lines are the search's values (search/grep-values.ts, which --json prints as they are);
// jq's outputs are the engine's, each its compact JSON text (engines/jq-spec.ts jqOutputs), parsed into a value. A pattern or filter that could run
// away is watched and stopped when it makes no progress, so a host (an MCP server) never hangs.
import { planGrep, type GrepOptions } from '../search/grep-plan.js';
import { grepValues, type GrepLineValue } from '../search/grep-values.js';
import { walkStore } from '../search/grep-store.js';
import { jqOutputs, jqSpec, type JqOptions } from '../engines/jq-spec.js';
import { DEFAULT_STALL_SECONDS } from '../watchdog.js';
import { EXIT, LroError } from '../errors.js';
import { ByteScanner } from '../kernel/scan.js';
import { formatRange } from '../ranges.js';
import { damaged } from '../store/resolve.js';
import { storeFor } from '../store/open.js';
import type { ResultName } from '../store/scan.js';
import { commandOf, parseSince, type ResultFilter } from '../store/select.js';
import { checkSession } from '../store/session.js';
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

/** The search's own options as lro grep's flags (the output is values, not a reader's screen: no budget). */
function grepOptions(opts: GrepResultOptions): GrepOptions {
  return {
    fixedStrings: opts.fixedStrings,
    ignoreCase: opts.ignoreCase,
    wordRegexp: opts.wordRegexp,
    invertMatch: opts.invertMatch,
    maxCount: count(opts.maxCount),
    beforeContext: count(opts.before),
    afterContext: count(opts.after),
    context: count(opts.context),
  };
}

/** Searches the records of a stored result with a JavaScript regular expression (or a fixed string). */
export async function grepResult(ref: ResultRef, pattern: string, opts: GrepResultOptions = {}): Promise<GrepOutput> {
  const rf = openResult(ref, opts);
  const o: GrepOptions = { ...grepOptions(opts), records: range(opts.from, opts.to), json: true, maxTokens: '0' };
  const plan = planGrep(pattern, o, rf.header.count);
  const lines: GrepLine[] = [];
  const stall = plan.query.matcher.linearTime ? undefined : opts.timeoutSeconds ?? DEFAULT_STALL_SECONDS;
  await damaged(rf, () => grepValues(rf, plan, { stallSeconds: stall }, (v) => void lines.push(asLine(v))));
  return { lines, matched: matchedIn(lines) };
}

/** A search's value as the library's GrepLine (the same fields; a result of grep --stream has its stream too). */
const asLine = (v: GrepLineValue): GrepLine => v;

/** How many records were selected. */
const matchedIn = (lines: GrepLine[]) => new Set(lines.filter((l) => l.type === 'match').map((l) => l.record)).size;

/** Options of grepStore, as `lro grep --all`'s flags: which results (all by default), then grep's own. */
export interface GrepStoreOptions extends Omit<GrepResultOptions, 'from' | 'to'> {
  /** Only results of this session. */
  session?: string;
  /** Only results stored since then: a Date, a time ('2026-01-31T12:00:00Z') or a duration back ('2h', '7d'). */
  since?: Date | string;
  /** Only results whose command (else --query, else operation) contains this text. */
  source?: string;
}

/** A stored result with selected records, and its lines (as grepResult's). */
export interface GrepStoreResult {
  id: string;
  timestamp: string;
  records: number;
  operation: string;
  /** The command that made it, when known (lro run, a shell hook, a proxied call), else its --query, else null. */
  command: string | null;
  matched: number;
  lines: GrepLine[];
}

/** What grepStore found: every result with a selected record, newest first; those that could not be read. */
export interface GrepStoreOutput {
  results: GrepStoreResult[];
  /** One line per result skipped because it could not be read (damaged, unreadable). */
  skipped: string[];
}

/** Searches every stored result (newest first), as `lro grep --all`: the same matching as grepResult. */
export async function grepStore(pattern: string, opts: GrepStoreOptions = {}): Promise<GrepStoreOutput> {
  const env = opts.env ?? process.env;
  const filter: ResultFilter = {};
  if (opts.session !== undefined) filter.session = checkSession(opts.session, 'session');
  if (opts.since !== undefined) {
    filter.sinceMs = opts.since instanceof Date ? opts.since.getTime() : parseSince(opts.since, Date.now(), 'since');
  }
  if (opts.source !== undefined) filter.source = opts.source;
  const o: GrepOptions = { ...grepOptions(opts), json: true, maxTokens: '0' };
  const plan = planGrep(pattern, o, 0);
  const store = storeFor(opts.dir, env); // a folder, or an S3 bucket: its results fetched as they are searched
  const out: GrepStoreOutput = { results: [], skipped: [] };
  const stallSeconds = plan.query.matcher.linearTime ? undefined : opts.timeoutSeconds ?? DEFAULT_STALL_SECONDS;
  const scanner = new ByteScanner(1 << 20);
  const walk = {
    results: store.results(filter),
    filter,
    fetch: (entry: ResultName) => void store.fetchListed(entry),
    fromRecord: 1,
    warn: (line: string) => {
      if (!line.startsWith('lro: no stored results')) out.skipped.push(line.trim());
    },
  };
  await walkStore(walk, false, async (rf) => {
    const h = rf.header;
    let r: GrepStoreResult | undefined; // listed at its first line, as --json prints its heading
    await grepValues(rf, plan, { scanner, stallSeconds }, (v) => {
      if (!r) {
        r = { id: h.id, timestamp: h.timestamp, records: h.count, operation: h.operation, command: commandOf(h), matched: 0, lines: [] };
        out.results.push(r);
      }
      r.lines.push(asLine(v));
    });
    return true;
  });
  for (const r of out.results) r.matched = matchedIn(r.lines);
  return out;
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
    compactOutput: true, // each output its JSON text (jqOutputs)
    slurp: opts.slurp,
    nullInput: opts.nullInput,
    header: opts.header,
    records: range(opts.from, opts.to),
    arg: Object.entries(opts.args ?? {}).map(([k, v]) => `${k}=${v}`),
    argjson: Object.entries(opts.jsonArgs ?? {}).map(([k, v]) => `${k}=${JSON.stringify(v)}`),
    maxTokens: '0',
  };
  jqSpec(rf.header.id, filter, o, {}); // usage errors before starting anything
  const texts: string[] = [];
  let stderr = '';
  const err = async (s: string) => void (stderr += s);
  const exitCode = await jqOutputs(rf, filter, o, { err, stallSeconds: opts.timeoutSeconds ?? DEFAULT_STALL_SECONDS }, (t) => void texts.push(t));
  if (exitCode === EXIT.error || exitCode === EXIT.jqCompile) {
    throw new LroError(stderr.trim().split('\n')[0] || `jq exited with ${exitCode}`, exitCode);
  }
  return { values: opts.raw ? texts : texts.map((t) => JSON.parse(t) as unknown), exitCode, stderr };
}
