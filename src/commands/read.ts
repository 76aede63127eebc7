// `lro read ID`: numbered records (`N: text`, like cat -n), a range of them, or a range of characters of the
// original, within the output budget; a cut output ends with the exact command for the next part.
import { statSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { LroError, UsageError } from '../errors.js';
import { DIR_OPTION, ID_ARGUMENT, MAX_TOKENS_OPTION, type CommandDef } from './command.js';
import { FormatError } from '../format/header.js';
import { lastRecordsStart, LONG_RECORD, originalContent, readRecordSpans, recordBytes, type RecordSpan, type ResultFile } from '../format/reader.js';
import { checkedDisplayBytes, displayPieces, invalidSet, textWindow, type TextWindow } from '../format/record-text.js';
import { MAX_TOKEN_BYTES } from '../tokens/tokenizer.js';
import type { IO } from '../io.js';
import { formatCharRange, formatRange, parseCharRange, parseRange, type Range } from '../ranges.js';
import { OutputBatch } from '../render/batch.js';
import { maxTokensFrom, OutputBudget, type Next, type NextOf } from '../budget.js';
import { damagedError, resolveResult, uncheckedNote } from '../store/resolve.js';
import { formatCount, parseCount } from '../units.js';
import { nthRecord, streamCount, type StreamFilter } from '../format/streams.js';
import { streamFilter } from '../query/view.js';
import { STREAM_OPTION } from './stream-option.js';
import { refuseBinary } from './binary-result.js';
import { nextCommand } from './argv.js';

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
  const kept = { raw: o.raw, stream: o.stream || undefined, maxTokens: o.maxTokens, dir: o.dir || undefined };
  return nextRead({ id, ...select, ...kept });
}

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
  const to = Math.min(range.to, h.count);
  const upto = rf.held ? Math.min(to, rf.held.to) : to; // a partial file: its records held whole, no further
  if (range.from > upto) return false;
  const invalid = invalidSet(h);
  const columns = o.columns !== undefined ? parseCharRange(o.columns, '--columns') : { start: 0, end: Infinity };
  // --tail starts from the end of the file: the records before the last ones are never read
  const at = sel.option === 'tail' ? lastRecordsStart(rf, h.count - range.from + 1) : undefined;
  let printed = 0;
  for (const r of readRecordSpans(rf, range.from, upto, LONG_RECORD, at)) {
    if (filter && !filter.map.selects(filter.choice, r.n)) continue;
    if (!r.line && budget.unlimited && o.columns === undefined) {
      await streamRecord(rf, r, invalid, out, o);
      printed++;
      continue;
    }
    // a record is kept only as far as the budget could show it: past that many bytes no text fits
    const keep = budget.unlimited ? Infinity : budget.max * MAX_TOKEN_BYTES + 1;
    const v = recordWindow(rf, r, invalid, columns.start, columns.end, keep);
    const window = o.columns !== undefined ? `[${v.start}-${v.end}/${v.total}] ` : ' ';
    const line = o.raw ? `${v.text}\n` : `${r.n}:${window}${v.text}\n`;
    if (v.complete && budget.take(line)) {
      await out.add(line);
      printed++;
      continue;
    }
    if (printed === 0) {
      await showWindow(id, r.n, v, budget, out, o, columns.end);
      return true;
    }
    await out.add(
      budget.continuation(
        `showed records ${range.from}-${r.n - 1} of ${formatCount(h.count)} (--max-tokens ${budget.max})`,
        nextPart(id, o, { records: formatRange(r.n, range.to >= h.count ? Infinity : range.to), columns: o.columns }),
      ),
    );
    return true;
  }
  return upto === to;
}

/**
 * A long record printed whole (no budget, no window) as it is decoded, a piece at a time: memory stays that of a
 * piece however long the record (a 300 MB line held as one string took 1.3 GB).
 */
async function streamRecord(rf: ResultFile, r: RecordSpan, invalid: Set<number> | undefined, out: OutputBatch, o: ReadOptions): Promise<void> {
  if (!o.raw) await out.add(`${r.n}: `);
  for (const piece of displayPieces(rf.header, r.n, recordBytes(rf, r.offset, true, true), invalid, Infinity)) {
    if (typeof piece === 'string') await out.add(piece);
  }
  await out.add('\n');
}

/** Characters start..end of a record's text: held records sliced, long ones decoded from the file in pieces. */
function recordWindow(rf: ResultFile, r: RecordSpan, invalid: Set<number> | undefined, start: number, end: number, keep: number): TextWindow {
  const h = rf.header;
  if (r.line) return textWindow([checkedDisplayBytes(h, r.n, r.line, invalid).toString('utf8')], start, end);
  return textWindow(displayPieces(h, r.n, recordBytes(rf, r.offset, true, true), invalid, start + keep), start, end, keep);
}

/** One record larger than the whole budget: a window of it, and how to see the rest. */
async function showWindow(id: string, n: number, v: TextWindow, budget: OutputBudget, out: OutputBatch, o: ReadOptions, end: number): Promise<void> {
  const fit = budget.fitPrefix(v.text, Math.max(0, budget.left - 30));
  const shownEnd = v.start + fit;
  await out.add(o.raw ? `${v.text.slice(0, fit)}\n` : `${n}:[${v.start}-${shownEnd}/${v.total}] ${v.text.slice(0, fit)}\n`);
  await out.add(
    budget.continuation(
      `record ${n} has ${formatCount(v.total)} characters, more than --max-tokens ${budget.max} allows; showed characters ${v.start}-${shownEnd}`,
      nextPart(id, o, { records: String(n), columns: formatCharRange(shownEnd, end) }),
    ),
  );
}

/**
 * Characters start..end (0-based, end excluded) of the original content; false, printing nothing, when rf is a
 * partial file (a remote result's start) whose records end before character `end`.
 */
async function readChars(rf: ResultFile, start: number, end: number, budget: OutputBudget, out: OutputBatch, o: ReadOptions): Promise<boolean> {
  const decoder = new StringDecoder('utf8');
  let pos = 0; // characters of the original seen so far
  let shown = '';
  const emit = (text: string): boolean => {
    // take what is inside [start, end) of this piece
    const from = Math.max(start, pos);
    const upto = Math.min(end, pos + text.length);
    pos += text.length;
    if (upto > from) shown += text.slice(from - (pos - text.length), upto - (pos - text.length));
    return pos >= end;
  };
  let done = false;
  let enough = false; // stopped with enough to fill any budget: the characters after were not counted
  for (const piece of originalContent(rf.held ? heldStart(rf, rf.held.to) : rf)) {
    if (emit(decoder.write(Buffer.from(piece.buffer, piece.byteOffset, piece.length)))) {
      done = true;
      break;
    }
    if (shown.length > 1 << 20 && !budget.unlimited) {
      enough = true;
      break;
    }
  }
  if (!done && !enough && rf.held) return false;
  if (!done && !enough) emit(decoder.end());
  const total = done || enough ? null : pos; // the original's length, when it was read to its end
  if (start > 0 && total !== null && start >= total) {
    throw new LroError(`characters from ${start} are past the end: the original of ${rf.header.id} has ${formatCount(total)} characters`);
  }
  const fit = budget.unlimited ? shown.length : budget.fitPrefix(shown, budget.left - 40);
  await out.add(shown.slice(0, fit));
  const reachedEnd = start + fit >= (total ?? Infinity) || start + fit >= end;
  if (fit < shown.length || (!reachedEnd && !budget.unlimited)) {
    if (fit < shown.length || total === null) {
      await out.add(`${shown.slice(0, fit).endsWith('\n') ? '' : '\n'}`);
      await out.add(
        budget.continuation(
          `showed characters ${start}-${start + fit}${total !== null ? ` of ${formatCount(total)}` : ''} (--max-tokens ${budget.max})`,
          nextPart(rf.header.id, o, { chars: formatCharRange(start + fit, end) }),
        ),
      );
    }
  }
  return true;
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
  notes: `When the output is cut at the budget, the last line is [lro: ...; next: <command>] with the exact command
for the next part.`,
  run: ({ id, ...o }, io) => runRead(id, o, io),
};
