// The readers that read records as text or JSON (read, grep, jq, where, count) given a binary result, whose records
// are base64 pieces of the bytes: one line saying what the result is and what can be done with it, exit 2,
// rather than base64 that looks like an answer (or no match that looks like one).
import { LroError } from '../errors.js';
import { contentKind } from '../format/magic.js';
import { readRecords, type ResultFile } from '../format/reader.js';
import { decodeBinaryRecord } from '../format/content-binary.js';
import { formatCount } from '../units.js';

/** The first bytes of a binary result (its first record), for telling what it is. */
function head(rf: ResultFile): Buffer {
  for (const r of readRecords(rf, 1, 1)) return decodeBinaryRecord(r.line);
  return Buffer.alloc(0);
}

/** What a binary result is, in a few words: its size and kind. */
export function binaryKind(rf: ResultFile): string {
  let kind = 'data';
  try {
    kind = contentKind(head(rf));
  } catch {
    // a damaged first record: the size alone still says something
  }
  return `binary: ${formatCount(rf.header.bytes)} bytes, ${kind} by its first bytes (lro cat ${rf.header.id} | file - tells more)`;
}

/** Throws the one-line refusal when rf is binary; `what` is the command refused, `grep` offers --strings. */
export function refuseBinary(rf: ResultFile, command: string): void {
  if (rf.header.content_type !== 'binary') return;
  const id = rf.header.id;
  throw new LroError(
    `result ${id} is ${binaryKind(rf)}; lro ${command} reads text and JSON only: ` +
      `search its printable strings with lro grep ${id} PATTERN --strings, or save the bytes with lro cat ${id} > FILE`,
  );
}
