// `lro jq` on jq-wasm (3.0.0-jq-1.8.2, memory cap raised to 1 GB by scripts/build-jq.mjs). Records are fed to
// jq in batches of about 1 MB, each batch one call, so memory stays flat and an ordinary filter sees one record
// at a time as with `tail -n +2 FILE | jq FILTER`. Slurp (-s), null input (-n) and filters that read `input`
// themselves get all records in one call. Output is cut at a record boundary when the budget is full (found by
// bisecting the batch), so the next command can resume with --records.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Jq } from 'jq-wasm';
import { EXIT, LroError, UsageError } from '../errors.js';
import { runWatched } from './watchdog.js';
import { FormatError, serializeHeader } from '../format/header.js';
import { readRecords, type ResultFile } from '../format/reader.js';
import { invalidSet } from '../format/record-text.js';
import type { Range } from '../ranges.js';
import { formatRange } from '../ranges.js';
import { continuationLine, OutputBudget } from '../render/budget.js';
import { shellQuote } from '../describe/shell.js';
import { formatCount } from '../units.js';

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
  /** How to write the command again, for continuation lines. */
  command: (extra: { records?: string; skipLines?: number }) => string;
}

export interface JqIO {
  out: (s: string) => void | Promise<void>;
  err: (s: string) => void | Promise<void>;
  /** Stop a call of the engine that runs longer than this (an endless loop); none: unwatched. */
  stallSeconds?: number;
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
  return jqModule().loadJq({ wasmBinary: readFileSync(fileURLToPath(new URL('./jq/jq.wasm', import.meta.url))) });
}

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
/** What jq-wasm's raw() takes from lro: the patched glue accepts bytes (see loadJq). */
type JqRaw = (input: string | Uint8Array, filter: string, flags: string[]) => JqResult;
/** How one call's output went: all printed, or cut after `consumed` of its lines (skipped or printed). */
type Outcome = { cut: false } | { cut: true; consumed: number; line: string };

/** Runs the filter over a result; returns jq's exit code (0, 1/4 with -e, 3 compile error, 5 runtime error). */
export async function runJqOn(rf: ResultFile, spec: JqSpec, io: JqIO, jq: Jq): Promise<number> {
  const h = rf.header;
  const flags = [...spec.outputFlags];
  for (const [k, v] of spec.args) flags.push('--arg', k, v);
  for (const [k, v] of spec.jsonArgs) flags.push('--argjson', k, v);
  if (spec.exitStatus) flags.push('-e');
  const joined = flags.includes('-j') || flags.includes('--join-output');
  const budget = new OutputBudget(spec.maxTokens, h.encoding);
  let toSkip = spec.skipLines;
  let runtimeError = false;
  let lastStatus = 4; // -e: 4 until some output
  const single = spec.header || spec.slurp || spec.nullInput || readsInputs(spec.filter);
  let errorLines = 0;
  const noteErrors = async () => {
    if (errorLines > MAX_ERROR_LINES) await io.err(`lro: jq printed ${formatCount(errorLines)} error lines; the first ${MAX_ERROR_LINES} are above\n`);
  };

  const raw = jq.raw as JqRaw;
  const stalled = `the jq filter ran ${io.stallSeconds} s without finishing (an endless loop?): check the filter, or narrow the input first with --records or lro grep`;
  const call = (input: string | Buffer, extra: string[] = []): JqResult | null => {
    const run = () => raw(input, spec.filter, [...flags, ...extra]);
    try {
      return quietly(() => (io.stallSeconds === undefined ? run() : runWatched(run, io.stallSeconds, stalled)));
    } catch (e) {
      if (engineFailure(e)) return null; // the instance is dead; nothing else runs on it
      throw e;
    }
  };
  const tooBig = (what: string) =>
    new LroError(
      single
        ? `jq ran out of memory or stack on ${what}: too large to slurp; try a streaming filter or narrow it with grep first (lro grep, or --records), or fix a filter that recurses without end`
        : `jq ran out of memory or stack on ${what} (a record too large or too deep, or a filter that recurses without end): check the filter, or narrow the input with --records or lro grep first`,
    );
  const exitCode = (): number => (runtimeError ? EXIT.jqRuntime : spec.exitStatus ? lastStatus : EXIT.ok);

  /** Prints a call's stderr and its output lines within the budget. */
  const output = async (r: JqResult, firstRecord: number): Promise<Outcome> => {
    if (r.stderr) {
      const text = firstRecord > 0 ? r.stderr.replace(/\(at \/stdin:(\d+)\)/g, (_, l: string) => `(at record ${firstRecord + Math.max(0, Number(l) - 1)})`) : r.stderr;
      for (const line of text.split('\n')) {
        if (!line) continue;
        if (errorLines++ < MAX_ERROR_LINES) await io.err(`${line}\n`);
      }
      if (/^jq: error/m.test(r.stderr)) runtimeError = true;
    }
    if (r.exitCode === 5) runtimeError = true;
    if (spec.exitStatus && r.exitCode !== 4) lastStatus = r.exitCode === 1 ? 1 : r.exitCode === 0 ? 0 : lastStatus;
    if (r.stdout === '') return { cut: false };
    // jq ends every output with a newline, except with -j
    const lines = joined ? [r.stdout] : r.stdout.slice(0, r.stdout.endsWith('\n') ? -1 : undefined).split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (toSkip > 0) {
        toSkip--;
        continue;
      }
      const line = joined ? lines[i] : `${lines[i]}\n`;
      if (!budget.take(line)) return { cut: true, consumed: i, line };
      await io.out(line);
    }
    return { cut: false };
  };
  /** Ends a cut output with the next command; for a line bigger than the whole budget, shows its start. */
  const cut = async (o: { consumed: number; line: string }, resume: { records?: string; skipLines: number }): Promise<void> => {
    const text = o.line.replace(/\n$/, '');
    if (budget.used === 0) {
      const fit = budget.fitPrefix(text, Math.max(0, budget.left - 60));
      await io.out(`${text.slice(0, fit)}…\n`);
      await io.out(
        continuationLine(
          `this output line has ${formatCount(text.length)} characters, more than --max-tokens ${budget.max} allows (showed ${formatCount(fit)}); narrow the filter, e.g. to a field or .[0:10]. The lines after it`,
          spec.command({ ...resume, skipLines: resume.skipLines + 1 }),
        ),
      );
      return;
    }
    await io.out(continuationLine(`output cut at --max-tokens ${budget.max}`, spec.command(resume)));
  };
  const failed = async (r: JqResult): Promise<number> => {
    if (r.exitCode === 2 && /Use jq --help/.test(r.stderr)) {
      // jq refused an option value (--indent 9, --argjson with bad JSON): one line, as lro's usage errors
      throw new UsageError(`${r.stderr.split('\n')[0].replace(/^jq: (error: )?/, '')}: see lro jq --help`);
    }
    const text = r.stderr.replace(/\(at \/stdin:\d+\)/g, '').replace(/\n+$/, '');
    if (text) await io.err(`${text}\n`);
    return r.exitCode;
  };

  const invalid = invalidSet(h);
  let skippedInvalid = 0;
  const noteSkipped = async () => {
    if (skippedInvalid === 0) return;
    const first = [...invalid!].find((n) => n >= spec.range.from) ?? [...invalid!][0];
    await io.err(
      `lro: skipped ${skippedInvalid} record${skippedInvalid > 1 ? 's' : ''} that ${skippedInvalid > 1 ? 'are' : 'is'} not JSON (lro read ${h.id} --records ${first} shows ${skippedInvalid > 1 ? 'the first' : 'it'})\n`,
    );
  };

  const numbers: number[] = []; // record number of each input line (single call)
  if (single) {
    let input: string | Buffer;
    let what: string;
    if (spec.header) {
      input = serializeHeader(h);
      what = 'the header';
    } else {
      const parts: Buffer[] = [];
      for (const rec of readRecords(rf, spec.range.from, spec.range.to)) {
        if (invalid?.has(rec.n)) skippedInvalid++;
        else {
          parts.push(rec.line);
          numbers.push(rec.n);
        }
      }
      await noteSkipped();
      input = jqInput(parts);
      what = `${formatCount(parts.length)} records`;
    }
    const r = call(input, [...(spec.slurp && !spec.header ? ['-s'] : []), ...(spec.nullInput ? ['-n'] : [])]);
    if (!r) throw tooBig(what);
    if (!spec.header) unreadableInput(r, (line) => numbers[line - 1]);
    if (r.exitCode === 2 || r.exitCode === 3) return failed(r);
    const o = await output(r, spec.header ? 0 : 1);
    if (o.cut) await cut(o, { skipLines: spec.skipLines + o.consumed });
    await noteErrors();
    return exitCode();
  }

  // Batches; when the output of a batch does not fit, bisect it to the record where the budget runs out.
  let stopped: number | null = null;
  const runBatch = async (items: { n: number; line: Buffer }[]): Promise<boolean> => {
    const r = call(jqInput(items.map((i) => i.line)));
    if (!r) {
      if (items.length === 1) throw tooBig(`record ${items[0].n}`);
      const mid = items.length >> 1;
      return (await runBatch(items.slice(0, mid))) && runBatch(items.slice(mid));
    }
    unreadableInput(r, (line) => items[line - 1]?.n);
    if (r.exitCode === 2 || r.exitCode === 3) {
      stopped = await failed(r);
      return false;
    }
    if (items.length > 1 && r.stdout !== '' && !budget.fits(r.stdout)) {
      const mid = items.length >> 1;
      return (await runBatch(items.slice(0, mid))) && runBatch(items.slice(mid));
    }
    const o = await output(r, items[0].n);
    if (!o.cut) return true;
    // resume at this batch's first record, skipping the lines of its output already seen (skipped or printed)
    await cut(o, { records: formatRange(items[0].n, spec.range.to), skipLines: o.consumed });
    await noteErrors();
    stopped = exitCode();
    return false;
  };

  let batch: { n: number; line: Buffer }[] = [];
  let batchBytes = 0;
  let batchLimit = FIRST_BATCH_BYTES;
  for (const rec of readRecords(rf, spec.range.from, spec.range.to)) {
    if (invalid?.has(rec.n)) {
      skippedInvalid++;
      continue;
    }
    batch.push(rec); // the line stays valid: readRecords gives each chunk a buffer of its own
    batchBytes += rec.line.length + 1;
    if (batchBytes >= batchLimit) {
      if (!(await runBatch(batch))) return stopped ?? exitCode();
      batch = [];
      batchBytes = 0;
      batchLimit = Math.min(BATCH_BYTES, batchLimit * 2);
    }
  }
  if (batch.length > 0 && !(await runBatch(batch))) return stopped ?? exitCode();
  await noteSkipped();
  await noteErrors();
  return exitCode();
}
