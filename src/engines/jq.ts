// `lro jq` on jq-wasm (3.0.0-jq-1.8.2, memory cap raised to 1 GB by scripts/build-jq.mjs). Records are fed to
// jq in batches of about 1 MB, each batch one call, so memory stays flat and an ordinary filter sees one record
// at a time as with `tail -n +2 FILE | jq FILTER`. Slurp (-s), null input (-n) and filters that read `input`
// themselves get all records in one call. Output is cut at a record boundary when the budget is full (found by
// bisecting the batch), so the next command can resume with --records. jq's output is watched as it is written
// (jq-output.ts): a call is stopped once its output is past the budget, and an engine stopped so is replaced.
// The filters agents write most are answered by jq-fast.ts with jq's exact output, and the engine is loaded only
// for a call it declines.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { runInNewContext } from 'node:vm';
import { fileURLToPath } from 'node:url';
import type { Jq } from 'jq-wasm';
import { boundedMessage, EXIT, LroError, UsageError } from '../errors.js';
import { runWatched, Stalled } from '../watchdog.js';
import { FormatError, serializeHeader, type Header } from '../format/header.js';
import { readRecords, type ResultFile } from '../format/reader.js';
import { yamlOf } from '../query/view.js';
import { notJsonNote } from '../query/records.js';
import { invalidSet } from '../format/record-text.js';
import type { Range } from '../ranges.js';
import { formatRange } from '../ranges.js';
import { OutputBudget, type NextOf } from '../budget.js';
import type { RunCapture } from '../io.js';
import { formatCount } from '../units.js';
import { BudgetedLines, StopJq, TrialOutput, type Cut, type StdoutWatch } from './jq-output.js';
import { runFast } from './jq-fast.js';
import { setV8Flags } from '../v8-flags.js';

export interface JqSpec {
  filter: string;
  /** Output flags passed to jq as they are: -r, -c, -j, -S, --tab, --indent N. */
  outputFlags: string[];
  slurp: boolean;
  nullInput: boolean;
  exitStatus: boolean;
  args: [string, string][];
  jsonArgs: [string, string][];
  header: boolean;
  range: Range;
  /** Output lines to skip (to continue a cut output that cannot resume by record). */
  skipLines: number;
  maxTokens: number;
  /**
   * jq definitions the filter may call, on a line before it (lro's own `row` on a table); jq's messages then
   * count the filter's lines from 1 again.
   */
  prelude?: string;
  /** The input of the command again (lro jq's, by attribute), for the next command of a cut output. */
  nextInput: (extra: { records?: string; skipLines?: number }) => Record<string, unknown>;
}

export interface JqIO {
  out: (s: string) => void | Promise<void>;
  err: (s: string) => void | Promise<void>;
  /** Stop a call of the engine that runs longer than this (an endless loop); none: unwatched. */
  stallSeconds?: number;
  /**
   * Makes the next command of a cut output from its input (lro jq's declaration, commands/jq.ts); a caller without
   * one (the library's jqResult) runs with no budget, so its output is never cut.
   */
  nextOf?: NextOf;
  /**
   * Makes the `lro read` command that shows a record (lro read's declaration, in the run's store); without one (the
   * library) a note gives the record's number alone.
   */
  readOf?: NextOf;
  /** The run's capture (IO.run), when its caller takes continuations as data (an MCP tool call). */
  run?: RunCapture;
}

/** Batches start small (a first answer comes fast, and a cut output is found with little rework) and grow. */
const FIRST_BATCH_BYTES = 256 << 10;
const BATCH_BYTES = 1 << 20;
/** jq's own error messages shown on stderr before they are only counted. */
const MAX_ERROR_LINES = 10;

/**
 * Loads the patched copy of jq-wasm in dist/jq (scripts/build-jq.mjs: bulk input as bytes, output untrimmed,
 * a larger heap). The package as published would read input byte by byte and trim output, so it is not used.
 */
export async function loadJq(): Promise<Jq> {
  compiled ??= WebAssembly.compile(readFileSync(fileURLToPath(new URL('./jq/jq.wasm', import.meta.url))));
  return jqModule().loadJq({ wasmModule: await compiled });
}

/** jq's WebAssembly compiled once, for every instance (one is replaced after being stopped mid-call). */
let compiled: Promise<WasmModule> | undefined;
/** The one WebAssembly name used here (TypeScript's ES libraries do not declare them). */
type WasmModule = NonNullable<Parameters<typeof import('jq-wasm').loadJq>[0]>['wasmModule'];
declare const WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> };

/**
 * The glue's module, required once. Commands that set V8 flags for jq (commands/jq.ts) require it first: V8 takes
 * the glue's code cache only under the flags it was made with (bin/code-cache.js).
 */
export function jqModule(): typeof import('jq-wasm') {
  try {
    // CommonJS, required: no ES module loader to start (scripts/build-jq.mjs)
    return createRequire(import.meta.url)('./jq/jq.cjs') as typeof import('jq-wasm');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw e;
    throw new LroError('the jq engine is missing from this build: run npm run build');
  }
}

/** Records joined as jq input: each line and a newline (so jq's error line numbers count records). */
function jqInput(lines: Buffer[]): Buffer {
  let size = 0;
  for (const l of lines) size += l.length + 1;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const l of lines) {
    at += l.copy(out, at);
    out[at++] = 0x0a;
  }
  return out;
}

/** Whether the filter reads inputs itself (then records cannot be split into batches). */
export function readsInputs(filter: string): boolean {
  return /(^|[^A-Za-z0-9_$])(input|inputs|input_line_number|\$__loc__)([^A-Za-z0-9_]|$)/.test(filter);
}

/** A jq engine failure (memory, nesting, the native stack): the instance is dead and must not be reused. */
function engineFailure(e: unknown): boolean {
  const m = String((e as Error)?.message ?? e);
  return (e as Error)?.name === 'RuntimeError' || /Aborted|memory access out of bounds|unreachable|Maximum call stack size exceeded/.test(m);
}

type JqResult = { stdout: string; stderr: string; exitCode: number };

/**
 * Runs f with console.error muted for the engine's own abort notice: jq-wasm prints "Aborted(...)" there when
 * it dies (out of memory, endless recursion); lro reports that itself, in one line.
 */
function quietly<T>(f: () => T): T {
  const original = console.error;
  console.error = (...args: unknown[]) => {
    if (!(typeof args[0] === 'string' && args[0].startsWith('Aborted('))) original(...args);
  };
  try {
    return f();
  } finally {
    console.error = original;
  }
}

const INPUT_PARSE_ERROR = /^jq: (?:error \(at [^)]*\): )?parse error: (.*?) at line (\d+), column \d+$/m;

/**
 * jq could not parse its input. The input is lro's own records, one per line, so either the file is damaged
 * (FormatError) or a record is nested deeper than jq reads. `recordAt` maps an input line to its record number.
 */
function unreadableInput(r: JqResult, recordAt: (line: number) => number | undefined): void {
  const m = INPUT_PARSE_ERROR.exec(r.stderr);
  if (!m) return;
  const n = recordAt(Number(m[2]));
  const which = n === undefined ? 'a record' : `record ${n}`;
  if (/depth/i.test(m[1])) throw new LroError(`${which} is nested deeper than jq can parse: look at it with lro read or lro grep instead`);
  throw new FormatError(`${which} is not valid JSON (jq: ${m[1]})`);
}
/** What jq-wasm's raw() takes from lro: the patched glue accepts bytes and streams stdout (see loadJq). */
type JqRaw = (input: string | Uint8Array, filter: string, flags: string[], onStdout?: StdoutWatch) => JqResult;
/** How a call ended: jq's result; stopped by lro (`inputRead`: how far jq had read); null: the engine died. */
type Called = { result: JqResult } | { inputRead: number; stderr: string } | null;
/** A record as batches hold it. */
type Item = { n: number; line: Buffer };

/** Runs the filter over a result; returns jq's exit code (0, 1/4 with -e, 3 compile error, 5 runtime error). */
export async function runJqOn(rf: ResultFile, spec: JqSpec, io: JqIO, load: () => Promise<Jq> = loadJq): Promise<number> {
  const run = new JqRun(rf, spec, io, load);
  // the header, slurp, null input or a filter that reads `input` itself: one call; else batches of records
  return run.single ? run.inOneCall() : run.inBatches();
}

/** jq's command-line flags for a spec: its output flags, then --arg, --argjson and -e. */
function jqFlags(spec: JqSpec): string[] {
  const flags = [...spec.outputFlags];
  for (const [k, v] of spec.args) flags.push('--arg', k, v);
  for (const [k, v] of spec.jsonArgs) flags.push('--argjson', k, v);
  if (spec.exitStatus) flags.push('-e');
  return flags;
}

/** One run of a filter over a result: the calls of the engine, the output budget, and what the calls reported. */
class JqRun {
  /** Everything goes to jq in one call (the header, -s, -n, a filter that reads `input`). */
  readonly single: boolean;
  private readonly h: Header;
  private readonly flags: string[];
  /** -j: jq's output is not cut into lines. */
  private readonly joined: boolean;
  private readonly budget: OutputBudget;
  /**
   * The engine, loaded when a call first needs it (jq-fast.ts answers many filters without it); null before, and
   * after a call was stopped or died in it (never reused then: a new one is loaded).
   */
  private engine: Jq | null = null;
  private fastDeclined = false;
  private readonly stalled: string;
  private readonly invalid: Set<number> | undefined;
  /** Output lines still to skip (--skip-lines). */
  private readonly skip: { lines: number };
  private runtimeError = false;
  private lastStatus = 4; // -e: 4 until some output
  private errorLines = 0;
  private skippedInvalid = 0;
  /** The exit code, once a batch has ended the run (jq refused the filter, or the output was cut). */
  private stopped: number | null = null;
  /** Calls in which the engine died, and the seconds spent in calls that died or were stopped (run again). */
  private deaths = 0;
  private lostSeconds = 0;
  /** The range of records the last call was given, for the message when the run's allowance is spent. */
  private what = 'the records';

  constructor(
    private readonly rf: ResultFile,
    private readonly spec: JqSpec,
    private readonly io: JqIO,
    private readonly load: () => Promise<Jq>,
  ) {
    this.h = rf.header;
    this.flags = jqFlags(spec);
    this.joined = this.flags.includes('-j') || this.flags.includes('--join-output');
    this.budget = new OutputBudget(spec.maxTokens, this.h.encoding, io.run);
    this.skip = { lines: spec.skipLines };
    this.single = spec.header || spec.slurp || spec.nullInput || readsInputs(spec.filter);
    this.stalled = `the jq filter ran ${io.stallSeconds} s without finishing (an endless loop?): check the filter, or narrow the input first with --records or lro grep`;
    this.invalid = invalidSet(this.h);
  }

  /** The header or all the records in range, in one call. */
  async inOneCall(): Promise<number> {
    const { spec } = this;
    const numbers: number[] = []; // record number of each input line
    const { input, what } = spec.header ? { input: serializeHeader(this.h), what: 'the header' } : await this.recordsInRange(numbers);
    const lines = this.lines();
    this.what = what;
    const c = await this.call(input, [...(spec.slurp && !spec.header ? ['-s'] : []), ...(spec.nullInput ? ['-n'] : [])], lines.watch);
    if (!c) throw this.tooBig(what);
    const first = spec.header ? 0 : 1;
    if ('result' in c) {
      if (!spec.header) unreadableInput(c.result, (line) => numbers[line - 1]);
      if (c.result.exitCode === 2 || c.result.exitCode === 3) return this.failed(c.result);
      lines.end();
    }
    await this.report(c, first, lines);
    // the lines consumed count from where this run started, the lines it skipped included
    if (lines.cut) await this.cut(lines.cut, { skipLines: lines.cut.consumed });
    await this.noteErrors();
    return this.exitCode();
  }

  /**
   * The records in range: as stored, or a YAML result's documents (query/view.ts), which jq reads as it reads a
   * JSON result's records (the YAML's lines are lro read's and lro grep's).
   */
  private records(): Iterable<{ n: number; line: Buffer }> {
    const { from, to } = this.spec.range;
    const yaml = yamlOf(this.rf);
    return yaml ? yaml.records(this.rf, { from, to }) : readRecords(this.rf, from, to);
  }

  /** The records in range as one input (the invalid ones skipped, and said so), their numbers into `numbers`. */
  private async recordsInRange(numbers: number[]): Promise<{ input: Buffer; what: string }> {
    const { invalid } = this;
    const parts: Buffer[] = [];
    for (const rec of this.records()) {
      if (invalid?.has(rec.n)) this.skippedInvalid++;
      else {
        parts.push(rec.line);
        numbers.push(rec.n);
      }
    }
    await this.noteSkipped();
    const what = parts.length === 1 ? `record ${numbers[0]}` : `${formatCount(parts.length)} records`;
    return { input: jqInput(parts), what };
  }

  /** The records in range in batches of growing size, a call each, until the output is cut or jq refuses. */
  async inBatches(): Promise<number> {
    const { invalid } = this;
    let batch: Item[] = [];
    let batchBytes = 0;
    let batchLimit = FIRST_BATCH_BYTES;
    for (const rec of this.records()) {
      if (invalid?.has(rec.n)) {
        this.skippedInvalid++;
        continue;
      }
      batch.push(rec); // the line stays valid: readRecords gives each chunk a buffer of its own
      batchBytes += rec.line.length + 1;
      if (batchBytes >= batchLimit) {
        if (!(await this.runBatch(batch))) return this.stopped ?? this.exitCode();
        batch = [];
        batchBytes = 0;
        batchLimit = Math.min(BATCH_BYTES, batchLimit * 2);
      }
    }
    if (batch.length > 0 && !(await this.runBatch(batch))) return this.stopped ?? this.exitCode();
    await this.noteSkipped();
    await this.noteErrors();
    return this.exitCode();
  }

  /**
   * One batch of several records; when it is too large for the engine, or its output does not fit, it is split
   * (down to the record where the budget runs out). False when the run ends here (`stopped` holds the exit code).
   */
  private async runBatch(items: Item[]): Promise<boolean> {
    if (items.length === 1) return this.runRecord(items[0]);
    const trial = new TrialOutput(this.budget);
    this.what = `records ${formatRange(items[0].n, items[items.length - 1].n)}`;
    const c = await this.call(jqInput(items.map((i) => i.line)), [], trial.watch);
    // The engine died (memory, stack). The first time, the first record alone tells a filter that fails on any
    // record (`[range(1e9)]`: one more call, not a bisection of a dozen calls of up to an engine's memory and the
    // allowance each); after that, the record that kills it is looked for by halves, within the run's allowance.
    if (!c) return this.deaths === 1 ? (await this.runRecord(items[0])) && this.runBatch(items.slice(1)) : this.split(items, items.length >> 1);
    if (!('result' in c)) {
      // stopped past the budget. Its first line alone does not fit (`"x" * 1e9`): the output is cut there, this
      // call's lines counted from its first record, as a record's own would be (no search by halves that makes
      // the huge line again on every call). Else the output that did not fit came from the records jq had read.
      const text = trial.text();
      if (this.skip.lines === 0 && !text.includes('\n')) {
        const lines = this.lines();
        if (!lines.writeStopped(Buffer.from(text))) return this.settle(c, items[0].n, lines);
      }
      return this.split(items, recordsRead(items, c.inputRead));
    }
    const r = c.result;
    unreadableInput(r, (line) => items[line - 1]?.n);
    if (r.exitCode === 2 || r.exitCode === 3) {
      this.stopped = await this.failed(r);
      return false;
    }
    const text = trial.text();
    if (text !== '' && !this.budget.fits(text)) return this.split(items, items.length >> 1);
    const lines = this.lines();
    if (lines.text(text)) lines.end();
    return this.settle(c, items[0].n, lines);
  }

  /** One record, its output taken into the budget as jq writes it (and jq stopped where the budget runs out). */
  private async runRecord(item: Item): Promise<boolean> {
    const lines = this.lines();
    this.what = `record ${item.n}`;
    const c = await this.call(jqInput([item.line]), [], lines.watch);
    if (!c) throw this.tooBig(`record ${item.n}`);
    if ('result' in c) {
      unreadableInput(c.result, () => item.n);
      if (c.result.exitCode === 2 || c.result.exitCode === 3) {
        this.stopped = await this.failed(c.result);
        return false;
      }
      lines.end();
    }
    return this.settle(c, item.n, lines);
  }

  /** The records of a batch in two parts, the first `at` records first. */
  private async split(items: Item[], at: number): Promise<boolean> {
    return (await this.runBatch(items.slice(0, at))) && this.runBatch(items.slice(at));
  }

  /** Prints what a call from record `first` on gave; if its output was cut, ends the run resuming there. */
  private async settle(c: NonNullable<Called>, first: number, lines: BudgetedLines): Promise<boolean> {
    await this.report(c, first, lines);
    if (!lines.cut) return true;
    // resume at this call's first record, skipping the lines of its output already seen (skipped or printed)
    await this.cut(lines.cut, { records: formatRange(first, this.spec.range.to), skipLines: lines.cut.consumed });
    await this.noteErrors();
    this.stopped = this.exitCode();
    return false;
  }

  private lines(): BudgetedLines {
    return new BudgetedLines(this.budget, this.skip, this.joined);
  }

  /** One call of the engine, its stdout to `watch`, which may stop it; null when the engine died. */
  private async call(input: string | Buffer, extra: string[], watch: StdoutWatch): Promise<Called> {
    const { spec, flags, io } = this;
    // `--` last: a filter that starts with "-" (-.a, or -h after lro's own --) is the filter, not one of jq's options
    const program = spec.prelude ? `${spec.prelude}\n${spec.filter}` : spec.filter;
    const args = [...flags, ...extra, '--'];
    // jq-fast.ts first; once it declines (the filter, or records like these), the rest goes to jq alone
    if (!this.fastDeclined) {
      try {
        const fast = runFast(input, program, args, watch);
        if (fast) return { result: fast };
      } catch (e) {
        if (e instanceof StopJq) return { inputRead: e.inputRead, stderr: '' }; // the watch stopped it: past the budget
        throw e;
      }
      this.fastDeclined = true;
    }
    this.engine ??= await this.load();
    const raw = this.engine.raw as JqRaw;
    const run = () => raw(input, program, args, watch);
    // Calls that die or are stopped (and run again on fewer records) share one allowance: each may take up to
    // the engine's memory and the allowance, and a search by halves takes a dozen of them.
    const allowance = io.stallSeconds === undefined ? undefined : Math.max(0.05, io.stallSeconds - this.lostSeconds);
    const started = performance.now();
    try {
      return { result: quietly(() => (allowance === undefined ? run() : runWatched(run, allowance, this.stalled))) };
    } catch (e) {
      // stopped mid-write or dead: the instance holds a half-done run of jq, so nothing else runs on it
      if (e instanceof StopJq) {
        this.dropEngine(started);
        return { inputRead: e.inputRead, stderr: (e as { stderr?: string }).stderr ?? '' };
      }
      if (engineFailure(e)) {
        this.deaths++;
        this.dropEngine(started);
        return null;
      }
      if (e instanceof Stalled) {
        this.engine = null;
        // the rest of an allowance that calls which died or were stopped had spent most of
        if (this.lostSeconds > 0) {
          this.lostSeconds += (performance.now() - started) / 1000;
          throw this.allowanceSpent();
        }
      }
      throw e;
    }
  }

  /**
   * The engine after a call that died or was stopped: never used again, its memory (up to the engine's cap) given
   * back before another is loaded, and the call's time taken from the run's allowance (past it: the run ends).
   */
  private dropEngine(started: number): void {
    this.engine = null;
    releaseEngineMemory();
    this.lostSeconds += (performance.now() - started) / 1000;
    const { stallSeconds } = this.io;
    if (stallSeconds !== undefined && this.lostSeconds >= stallSeconds) throw this.allowanceSpent();
  }

  private allowanceSpent(): Stalled {
    return new Stalled(
      `jq ran out of memory or stack, or past the output budget, in calls that together took ${this.lostSeconds.toFixed(1)} s, the --timeout (${this.io.stallSeconds} s), the last on ${this.what}: check the filter (one that builds huge values?), or narrow the input with --records or lro grep first`,
    );
  }

  private tooBig(what: string): LroError {
    return new LroError(
      this.single
        ? `jq ran out of memory or stack on ${what}: too large to slurp; try a streaming filter or narrow it with grep first (lro grep, or --records), or fix a filter that recurses without end`
        : `jq ran out of memory or stack on ${what} (a record too large or too deep, or a filter that recurses without end): check the filter, or narrow the input with --records or lro grep first`,
    );
  }

  private exitCode(): number {
    return this.runtimeError ? EXIT.jqRuntime : this.spec.exitStatus ? this.lastStatus : EXIT.ok;
  }

  /** Prints a call's stderr (records numbered from `firstRecord`), notes its status, and prints the lines taken. */
  private async report(c: NonNullable<Called>, firstRecord: number, lines: BudgetedLines): Promise<void> {
    const { io, spec } = this;
    const stderr = 'result' in c ? c.result.stderr : c.stderr;
    if (stderr) {
      const text = firstRecord > 0 ? stderr.replace(/\(at \/stdin:(\d+)\)/g, (_, l: string) => `(at record ${firstRecord + Math.max(0, Number(l) - 1)})`) : stderr;
      for (const line of text.split('\n')) {
        if (!line) continue;
        // a line may quote a huge filter or value
        if (this.errorLines++ < MAX_ERROR_LINES) await io.err(`${boundedMessage(line)}\n`);
      }
      if (/^jq: error/m.test(stderr)) this.runtimeError = true;
    }
    if (spec.exitStatus) this.lastStatus = exitStatusAfter(c, lines, this.lastStatus);
    if ('result' in c && c.result.exitCode === 5) this.runtimeError = true;
    for (const line of lines.taken) await io.out(line);
  }

  /** Ends a cut output with the next command; for a line bigger than the whole budget, shows its start. */
  private async cut(o: Cut, resume: { records?: string; skipLines: number }): Promise<void> {
    const { io, spec, budget } = this;
    const text = o.line.replace(/\n$/, '');
    if (budget.used === 0) {
      const fit = budget.fitPrefix(text, Math.max(0, budget.left - 60));
      await io.out(`${text.slice(0, fit)}…\n`);
      const size = `${o.partial ? 'at least ' : ''}${formatCount(text.length)}`;
      await io.out(
        budget.continuation(
          `this output line has ${size} characters, more than --max-tokens ${budget.max} allows (showed ${formatCount(fit)}); narrow the filter, e.g. to a field or .[0:10]. The lines after it`,
          io.nextOf!(spec.nextInput({ ...resume, skipLines: resume.skipLines + 1 })),
        ),
      );
      return;
    }
    await io.out(budget.continuation(`output cut at --max-tokens ${budget.max}`, io.nextOf!(spec.nextInput(resume))));
  }
  /** jq refused the options or the filter (exit 2, 3): its message, and its exit code. */
  private async failed(r: JqResult): Promise<number> {
    if (r.exitCode === 2 && /Use jq --help/.test(r.stderr)) {
      // jq refused an option value (--indent 9, --argjson with bad JSON): one line, as lro's usage errors
      throw new UsageError(`${r.stderr.split('\n')[0].replace(/^jq: (error: )?/, '')}: see lro jq --help`);
    }
    const text = r.stderr
      .replace(/\(at \/stdin:\d+\)/g, '')
      .replace(/(at <top-level>, line )(\d+)/g, (_, at: string, l: string) => `${at}${Number(l) - (this.spec.prelude ? 1 : 0)}`)
      .replace(/\n+$/, '')
      .split('\n')
      .map(boundedMessage) // jq quotes the filter, however long
      .join('\n');
    if (text) await this.io.err(`${text}\n`);
    return r.exitCode;
  }

  /** Says how many of jq's error lines were not shown. */
  private async noteErrors(): Promise<void> {
    if (this.errorLines > MAX_ERROR_LINES) await this.io.err(`lro: jq printed ${formatCount(this.errorLines)} error lines; the first ${MAX_ERROR_LINES} are above\n`);
  }

  /** Says how many records were skipped for not being JSON, and where to see the first. */
  private async noteSkipped(): Promise<void> {
    const { skippedInvalid, invalid, spec, h } = this;
    if (skippedInvalid === 0) return;
    const first = [...invalid!].find((n) => n >= spec.range.from) ?? [...invalid!][0];
    const { readOf, run } = this.io;
    if (readOf) await this.io.err(notJsonNote(h.id, skippedInvalid, first, readOf, run));
    else await this.io.err(`lro: skipped ${skippedInvalid} record${skippedInvalid > 1 ? 's' : ''} that ${skippedInvalid > 1 ? 'are' : 'is'} not JSON (the first: record ${first})\n`);
  }
}

/** How many of a batch's records jq had begun to read when it was stopped at `inputRead` bytes (at least 1). */
function recordsRead(items: Item[], inputRead: number): number {
  let at = 0;
  let k = 0;
  while (k < items.length && at < inputRead) at += items[k++].line.length + 1;
  // all of them: no better than halves
  return k >= items.length || k < 1 ? items.length >> 1 : k;
}

/**
 * -e's status after a call: from jq's exit code when it ran to its end; when lro stopped it, from the last line
 * printed (false or null: 1), as the lines after it were never made.
 */
function exitStatusAfter(c: NonNullable<Called>, lines: BudgetedLines, before: number): number {
  if ('result' in c) {
    const code = c.result.exitCode;
    return code === 1 ? 1 : code === 0 ? 0 : before;
  }
  const last = lines.taken.at(-1)?.trim();
  return last === undefined ? before : last === 'false' || last === 'null' ? 1 : 0;
}

/**
 * A dropped engine's memory (WebAssembly memory, up to the engine's 1 GB cap, outside V8's heap limits) goes back
 * only when V8 collects the instance, which it does not hurry to do: a run that lost a few engines in a row held
 * them all (4.9 GB resident). So once the process is past RELEASE_ABOVE, a full collection is asked for (V8's gc
 * function, exposed for this, about 10 ms; never in a run that loses no engine).
 */
function releaseEngineMemory(): void {
  if (process.memoryUsage.rss() < RELEASE_ABOVE) return;
  if (!collect) {
    setV8Flags('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}
const RELEASE_ABOVE = 256 << 20;
let collect: (() => void) | undefined;
