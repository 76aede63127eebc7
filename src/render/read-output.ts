// Printing what `lro read` reads (its values: the record spans of format/reader.ts, the original's pieces): numbered
// records (`N: text`, like cat -n; windows `N:[A-B/LEN]` with --columns), or characters of the original, within the
// output budget; a cut output ends with the exact command for the next part.
import { StringDecoder } from 'node:string_decoder';
import { LroError } from '../errors.js';
import { recordBytes, type RecordSpan, type ResultFile } from '../format/reader.js';
import { checkedDisplayBytes, displayPieces, invalidSet, textWindow, type TextWindow } from '../format/record-text.js';
import { MAX_TOKEN_BYTES } from '../tokens/tokenizer.js';
import { formatCharRange, formatRange, parseCharRange, type Range } from '../ranges.js';
import type { OutputBatch } from './batch.js';
import { largerBudget, type Next, type OutputBudget } from '../budget.js';
import { formatCount } from '../units.js';

/**
 * The next part's command from what it selects (`records`, `columns`, `chars`): the command gives it, as the same
 * read with the options it keeps (commands/read.ts).
 */
export type NextPart = (select: { records?: string; columns?: string; chars?: string; maxTokens?: string }) => Next;

/** How records are shown: numbered or --raw, a --columns window of each, only those `only` selects (--stream). */
export interface RecordsShown {
  raw: boolean;
  columns?: string;
  only?: (n: number) => boolean;
}

/**
 * Prints the records of `spans` (the selection `range` asked for) within the budget; true when the output ended
 * here (cut, or a record larger than the whole budget shown as a window), false when every span was printed.
 */
export async function printRecords(
  rf: ResultFile,
  spans: Iterable<RecordSpan>,
  range: Range,
  shown: RecordsShown,
  budget: OutputBudget,
  out: OutputBatch,
  nextPart: NextPart,
): Promise<boolean> {
  const h = rf.header;
  const invalid = invalidSet(h);
  const columns = shown.columns !== undefined ? parseCharRange(shown.columns, '--columns') : { start: 0, end: Infinity };
  let printed = 0;
  for (const r of spans) {
    if (shown.only && !shown.only(r.n)) continue;
    if (!r.line && budget.unlimited && shown.columns === undefined) {
      await streamRecord(rf, r, invalid, out, shown.raw);
      printed++;
      continue;
    }
    // a record is kept only as far as the budget could show it: past that many bytes no text fits
    const keep = budget.unlimited ? Infinity : budget.max * MAX_TOKEN_BYTES + 1;
    const v = recordWindow(rf, r, invalid, columns.start, columns.end, keep);
    const window = shown.columns !== undefined ? `[${v.start}-${v.end}/${v.total}] ` : ' ';
    const line = shown.raw ? `${v.text}\n` : `${r.n}:${window}${v.text}\n`;
    if (v.complete && budget.take(line)) {
      await out.add(line);
      printed++;
      continue;
    }
    if (printed === 0) {
      await showWindow(r.n, v, budget, out, shown.raw, columns.end, nextPart);
      return true;
    }
    await out.add(
      budget.continuation(
        `showed records ${range.from}-${r.n - 1} of ${formatCount(h.count)} (--max-tokens ${budget.max})`,
        nextPart({ records: formatRange(r.n, range.to >= h.count ? Infinity : range.to), columns: shown.columns }),
      ),
    );
    return true;
  }
  return false;
}

/**
 * A long record printed whole (no budget, no window) as it is decoded, a piece at a time: memory stays that of a
 * piece however long the record (a 300 MB line held as one string took 1.3 GB).
 */
async function streamRecord(rf: ResultFile, r: RecordSpan, invalid: Set<number> | undefined, out: OutputBatch, raw: boolean): Promise<void> {
  if (!raw) await out.add(`${r.n}: `);
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
async function showWindow(n: number, v: TextWindow, budget: OutputBudget, out: OutputBatch, raw: boolean, end: number, nextPart: NextPart): Promise<void> {
  const fit = budget.fitPrefix(v.text, Math.max(0, budget.left - 30));
  const shownEnd = v.start + fit;
  // (no character fits: only the line saying so, whose next part asks for a larger budget)
  if (fit > 0) await out.add(raw ? `${v.text.slice(0, fit)}\n` : `${n}:[${v.start}-${shownEnd}/${v.total}] ${v.text.slice(0, fit)}\n`);
  await out.add(
    budget.continuation(
      `record ${n} has ${formatCount(v.total)} characters, more than --max-tokens ${budget.max} allows; showed characters ${v.start}-${shownEnd}`,
      // no character fitted beside this line: the next part asks for a larger budget (this one would stop here again)
      nextPart({ records: String(n), columns: formatCharRange(shownEnd, end), ...(fit === 0 ? { maxTokens: String(largerBudget(budget.max)) } : {}) }),
    ),
  );
}

/**
 * Prints characters start..end (0-based, end excluded) of the original, from its pieces, within the budget;
 * false, printing nothing, when the pieces are a partial file's (`partial`: a remote result's start) and end
 * before character `end`.
 */
export async function printChars(
  rf: ResultFile,
  pieces: Iterable<Uint8Array>,
  want: { start: number; end: number; partial: boolean },
  budget: OutputBudget,
  out: OutputBatch,
  nextPart: NextPart,
): Promise<boolean> {
  const { start, end } = want;
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
  for (const piece of pieces) {
    if (emit(decoder.write(Buffer.from(piece.buffer, piece.byteOffset, piece.length)))) {
      done = true;
      break;
    }
    if (shown.length > 1 << 20 && !budget.unlimited) {
      enough = true;
      break;
    }
  }
  if (!done && !enough && want.partial) return false;
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
          nextPart({ chars: formatCharRange(start + fit, end), ...(fit === 0 ? { maxTokens: String(largerBudget(budget.max)) } : {}) }),
        ),
      );
    }
  }
  return true;
}
