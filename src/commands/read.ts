// `lro read ID`: numbered records (`N: text`, like cat -n), a range of them, or a range of characters of the
// original, within the output budget; a cut output ends with the exact command for the next part. This module
// chooses what to read and reads it; render/read-output.ts prints it.
import { statSync } from 'node:fs';
import { LroError, UsageError } from '../errors.js';
import { DIR_OPTION, ID_ARGUMENT, MAX_TOKENS_OPTION, type CommandDef } from './command.js';
import { FormatError } from '../format/header.js';
import { lastRecordsStart, LONG_RECORD, originalContent, readRecordSpans, type ResultFile } from '../format/reader.js';
import type { IO } from '../io.js';
import { parseCharRange, parseRange, type Range } from '../ranges.js';
import { OutputBatch } from '../render/batch.js';
import { printChars, printRecords } from '../render/read-output.js';
import { maxTokensFrom, OutputBudget, type Next, type NextOf } from '../budget.js';
import { damagedError, resolveResult, uncheckedNote } from '../store/resolve.js';
import { formatCount, parseCount } from '../units.js';
import { nthRecord, streamCount, type StreamFilter } from '../format/streams.js';
import { streamFilter } from '../query/view.js';
import { STREAM_OPTION } from './stream-option.js';
import { refuseBinary } from './binary-result.js';
import { nextCommand } from './argv.js';
import READ_HELP from 'help:read';

export interface ReadOptions {
  dir?: string;
  records?: string;
  lines?: string;
  head?: string;
  tail?: string;
  chars?: string;
  columns?: string;
  raw?: boolean;
  maxTokens?: string;
  stream?: string;
}

/** What to print: records from..to, or characters start..end of the original. */
type RecordSelection = { kind: 'records'; range: Range; option: 'head' | 'tail' | 'records' };
type Selection = RecordSelection | { kind: 'chars'; start: number; end: number } | { kind: 'none' };

function selection(o: ReadOptions, count: number): Selection {
  const given = (['records', 'lines', 'head', 'tail', 'chars'] as const).filter((k) => o[k] !== undefined);
  if (given.length > 1) throw new UsageError(`--${given[0]} and --${given[1]} cannot be used together: pick one range`);
  if (o.chars !== undefined) return { kind: 'chars', ...parseCharRange(o.chars, '--chars') };
  // --head 0 and --tail 0 print nothing, as head -n 0 and tail -n 0 do
  if (o.head !== undefined) {
    const n = parseCount(o.head, '--head');
    return n === 0 ? { kind: 'none' } : { kind: 'records', range: { from: 1, to: n }, option: 'head' };
  }
  if (o.tail !== undefined) {
    const n = parseCount(o.tail, '--tail');
    if (n === 0) return { kind: 'none' };
    return { kind: 'records', range: { from: Math.max(1, count - n + 1), to: count }, option: 'tail' };
  }
  const text = o.records ?? o.lines;
  if (text !== undefined) return { kind: 'records', range: parseRange(text, o.records !== undefined ? '--records' : '--lines'), option: 'records' };
  return { kind: 'records', range: { from: 1, to: Infinity }, option: 'records' };
}

/**
 * The records read reads past its header, when they are the first ones (--head, an early --records), or 'start'
 * when the read may well end inside a result's start (the default view, --chars A:B): else null.
 */
function recordsNeeded(o: ReadOptions): number | 'start' | null {
  if (o.stream !== undefined || o.tail !== undefined) return null;
  if (o.chars !== undefined) return Number.isFinite(parseCharRange(o.chars, '--chars').end) ? 'start' : null;
  if (o.head !== undefined) return parseCount(o.head, '--head');
  const text = o.records ?? o.lines;
  if (text === undefined) return 'start';
  const to = parseRange(text, o.records !== undefined ? '--records' : '--lines').to;
  return Number.isFinite(to) ? to : null;
}

export async function runRead(ref: string, o: ReadOptions, io: IO): Promise<number> {
  const needed = recordsNeeded(o);
  const tail = o.tail !== undefined && o.stream === undefined ? parseCount(o.tail, '--tail') : 0;
  const rf = resolveResult(ref, { dir: o.dir, env: io.env, need: () => needed, tail: tail || undefined });
  const note = uncheckedNote(rf);
  if (!rf.held || needed !== 'start') {
    if (note) await io.stderr.write(note);
    await readResult(rf, o, io, io.stdout);
    return 0;
  }
  // a remote result's start (not in the cache): what the read shows is printed when it ends inside the start,
  // else the whole result is fetched and read
  const shown: (string | Uint8Array)[] = [];
  const { isTTY, color, columns } = io.stdout;
  const into = { write: async (d: string | Uint8Array) => void shown.push(d), isTTY, color, columns };
  const fits = await readResult(rf, o, io, into).catch((e) => (e instanceof LroError ? false : Promise.reject(e)));
  if (fits && note) await io.stderr.write(note);
  if (fits) for (const d of shown) await io.stdout.write(d);
  else await readResult(resolveResult(ref, { dir: o.dir, env: io.env }), o, io, io.stdout);
  return 0;
}

/** Reads what the options select to `stdout`; false when a partial file (rf.held) does not hold all it needs. */
async function readResult(rf: ResultFile, o: ReadOptions, io: IO, stdout: IO['stdout']): Promise<boolean> {
  refuseBinary(rf, 'read');
  const budget = new OutputBudget(maxTokensFrom(o.maxTokens, io.env), rf.header.encoding, io.run);
  const filter = streamFilter(rf.header, o.stream);
  const sel = filter ? streamSelection(selection(o, rf.header.count), o, filter, rf.header.count) : selection(o, rf.header.count);
  const out = new OutputBatch(stdout);
  try {
    if (sel.kind === 'chars') return await readChars(rf, sel.start, sel.end, budget, out, o);
    if (sel.kind === 'records') return await readRecordRange(rf, sel, budget, out, o, filter);
    return true;
  } catch (e) {
    if (e instanceof FormatError) throw damagedError(rf, e);
    throw e;
  } finally {
    await out.flush();
  }
}

/**
 * A selection counted in the records of one stream: --head n and --tail n take that stream's first or last n
 * records; a range of record numbers stays as it is (record numbers are those of the whole result).
 */
function streamSelection(sel: Selection, o: ReadOptions, f: StreamFilter, count: number): Selection {
  if (sel.kind !== 'records' || sel.option === 'records') return sel;
  const total = streamCount(f.map, f.choice, count);
  if (sel.option === 'head') {
    const n = parseCount(o.head!, '--head');
    return { ...sel, range: { from: 1, to: nthRecord(f.map.runs, f.choice, Math.min(n, total), count) ?? count } };
  }
  const n = parseCount(o.tail!, '--tail');
  return { ...sel, range: { from: nthRecord(f.map.runs, f.choice, Math.max(1, total - n + 1), count) ?? 1, to: count } };
}

/** An `lro read` command as a value, from its input (another command names it: all of a record shown in part). */
export const nextRead: NextOf = (input) => nextCommand(readCommand, input);

/** Makes `lro read` commands in the store `dir` (--dir, when the command naming them was given one). */
export const readIn =
  (dir: string | undefined): NextOf =>
  (input) =>
    nextRead({ ...input, dir: dir || undefined });

/** The next part's command: `lro read ID` with what it selects and the options of this one it keeps. */
function nextPart(id: string, o: ReadOptions, select: ReadOptions): Next {
  const kept = { raw: o.raw, stream: o.stream || undefined, maxTokens: select.maxTokens ?? o.maxTokens, dir: o.dir || undefined };
  return nextRead({ id, ...select, ...kept });
}

/**
 * The records of a selection: what the result has to give for it (its record spans, read from the end for --tail;
 * as far as a partial file holds them), handed to the text (render/read-output.ts printRecords). False when a
 * partial file (rf.held) does not hold all it needs.
 */
async function readRecordRange(
  rf: ResultFile,
  sel: RecordSelection,
  budget: OutputBudget,
  out: OutputBatch,
  o: ReadOptions,
  filter: StreamFilter | null,
): Promise<boolean> {
  const { range } = sel;
  const h = rf.header;
  const id = h.id;
  if (h.count === 0 || (filter && streamCount(filter.map, filter.choice, h.count) === 0)) {
    await out.add(`[lro: result ${id} has no records${filter ? ` from ${filter.choice}` : ''}]\n`);
    return true;
  }
  if (range.from > h.count) {
    throw new LroError(`records from ${range.from} are past the end: result ${id} has ${formatCount(h.count)} records (try --tail 20)`);
  }
  if (o.columns !== undefined) parseCharRange(o.columns, '--columns'); // a usage error before anything is read
  const to = Math.min(range.to, h.count);
  const upto = rf.held ? Math.min(to, rf.held.to) : to; // a partial file: its records held whole, no further
  if (range.from > upto) return false;
  // --tail starts from the end of the file: the records before the last ones are never read
  const at = sel.option === 'tail' ? lastRecordsStart(rf, h.count - range.from + 1) : undefined;
  const spans = readRecordSpans(rf, range.from, upto, LONG_RECORD, at);
  const shown = { raw: !!o.raw, columns: o.columns, only: filter ? (n: number) => filter.map.selects(filter.choice, n) : undefined };
  const printed = await printRecords(rf, spans, range, shown, budget, out, (select) => nextPart(id, o, select));
  return printed || upto === to;
}

/**
 * Characters start..end of the original content (its pieces as the result gives them back), handed to the text;
 * false, printing nothing, when rf is a partial file (a remote result's start) whose records end before `end`.
 */
function readChars(rf: ResultFile, start: number, end: number, budget: OutputBudget, out: OutputBatch, o: ReadOptions): Promise<boolean> {
  const pieces = originalContent(rf.held ? heldStart(rf, rf.held.to) : rf);
  return printChars(rf, pieces, { start, end, partial: !!rf.held }, budget, out, (select) => nextPart(rf.header.id, o, select));
}

/** A result's start as a whole result of the records it holds (its file holds them and nothing after). */
function heldStart(rf: ResultFile, count: number): ResultFile {
  return { ...rf, size: statSync(rf.path).size, header: { ...rf.header, count } };
}

/** `lro read`. */
export const readCommand: CommandDef<ReadOptions & { id: string }> = {
  name: 'read',
  description: 'print records of a stored result, numbered (N: text), within an output budget',
  arguments: [ID_ARGUMENT],
  options: [
    { flags: '--records <A:B>', description: 'records A to B (1-based, inclusive; A: to the end, :B from the start)', mcp: '' },
    { flags: '--lines <A:B>', description: 'same as --records (for text, record N is line N)' },
    { flags: '--head <n>', description: 'the first n records', mcp: '' },
    { flags: '--tail <n>', description: 'the last n records', mcp: '' },
    { flags: '--chars <A:B>', description: 'characters A to B of the original content (0-based, B excluded)', mcp: '"A:B" offsets in the original' },
    { flags: '--columns <A:B>', description: 'characters A to B of each record (for very long records)', mcp: '"A:B" of each record' },
    { flags: '--raw', description: 'no record numbers: the records as they are', mcp: 'no record numbers' },
    STREAM_OPTION,
    MAX_TOKENS_OPTION,
    DIR_OPTION,
  ],
  examples: [
    'lro read 01JD2X3Y4Z5A6B7C8D9E0F1G2H --records 200:260',
    'lro read last --stream stderr --tail 20       the last 20 lines the command printed on stderr',
    'lro read last --tail 50',
    'lro read last --records 5 --columns 0:2000     a window of a very long record',
    'lro read last --chars 0:4000 --raw             the first 4000 characters of the original',
  ],
  notes: READ_HELP,
  run: ({ id, ...o }, io) => runRead(id, o, io),
};
