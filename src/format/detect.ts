// Guesses the content type from the first bytes of the input. A guess may be revised later by the encoders
// (EncodingRestart), so this only has to be cheap and usually right.
import { isUtf8 } from 'node:buffer';
import type { ContentType, LineEnding } from './header.js';
import { JsonScanner, JsonSyntaxError } from './json-scan.js';
import { detectLineEnding } from './content-json.js';
import { utf8SequenceLength } from './escape.js';

/** How much input detection looks at. */
export const SNIFF_BYTES = 64 << 10;
/** Input with more suspicious bytes than this share (NULs, control bytes, invalid UTF-8) is binary. */
const BINARY_SHARE = 0.1;
/** A sample whose complete lines are at least this share JSON values is JSONL. */
const JSONL_SHARE = 0.8;

export interface Detection {
  contentType: ContentType;
  lineEnding: LineEnding;
}

/**
 * Detects the content type of a sample (the first bytes of the input; `complete` when it is all of it).
 */
export function detectContent(sample: Buffer, complete: boolean): Detection {
  const lineEnding = detectLineEnding(sample);
  if (sample.length === 0) return { contentType: 'text', lineEnding };
  if (looksBinary(sample, complete)) return { contentType: 'binary', lineEnding };
  let i = 0;
  while (i < sample.length && (sample[i] === 0x20 || sample[i] === 0x09 || sample[i] === 0x0a || sample[i] === 0x0d)) i++;
  const first = sample[i];
  if (first !== 0x7b && first !== 0x5b) return { contentType: 'text', lineEnding };

  const nl = sample.indexOf(0x0a, i);
  const firstLine = nl >= 0 ? trimCr(sample.subarray(i, nl)) : null;
  if (firstLine && isJsonContainer(firstLine)) {
    const { lines, json } = countJsonLines(sample.subarray(nl + 1), complete);
    if (lines === 0) return { contentType: 'json', lineEnding };
    // JSON lines with a few broken ones are still JSONL (the broken ones are kept as strings)
    const broken = lines - json;
    return { contentType: json > 0 && broken <= Math.max(2, lines * (1 - JSONL_SHARE)) ? 'jsonl' : 'text', lineEnding };
  }
  // The first line is not a value by itself: a pretty-printed document, a huge single line, or text like
  // "[Sun Dec 04 ...] [notice] ..." that merely starts with a bracket. Scan what we have.
  const scanner = new JsonScanner();
  try {
    scanner.push(sample);
    if (complete) scanner.end();
    return { contentType: 'json', lineEnding };
  } catch (e) {
    if (e instanceof JsonSyntaxError && e.kind === 'incomplete' && !complete) return { contentType: 'json', lineEnding };
    return { contentType: 'text', lineEnding };
  }
}

function trimCr(b: Buffer): Buffer {
  return b.length > 0 && b[b.length - 1] === 0x0d ? b.subarray(0, b.length - 1) : b;
}

function isJsonContainer(line: Buffer): boolean {
  try {
    const v: unknown = JSON.parse(line.toString('utf8'));
    return typeof v === 'object' && v !== null;
  } catch {
    return false;
  }
}

/** Counts the non-blank complete lines of a sample and how many of them are JSON values. */
function countJsonLines(rest: Buffer, complete: boolean): { lines: number; json: number } {
  let lines = 0;
  let json = 0;
  let start = 0;
  while (start < rest.length) {
    let nl = rest.indexOf(0x0a, start);
    if (nl < 0) {
      if (!complete) break;
      nl = rest.length;
    }
    const line = trimCr(rest.subarray(start, nl));
    if (line.some((c) => c !== 0x20 && c !== 0x09)) {
      lines++;
      try {
        JSON.parse(line.toString('utf8'));
        json++;
      } catch {
        // not JSON
      }
    }
    start = nl + 1;
  }
  return { lines, json };
}

const CONTROL = /[\x00-\x07\x0e-\x1a\x1c-\x1f]/g;

/** NULs, control bytes other than whitespace/ESC/backspace/form feed, and bytes of invalid UTF-8. */
function looksBinary(sample: Buffer, complete: boolean): boolean {
  if (isUtf8(complete ? sample : sample.subarray(0, Math.max(0, sample.length - 3)))) {
    // valid UTF-8 (the usual case): only control bytes can be suspicious; count them natively
    const controls = sample.toString('latin1').match(CONTROL)?.length ?? 0;
    return controls > sample.length * BINARY_SHARE;
  }
  let suspicious = 0;
  const end = sample.length;
  for (let i = 0; i < end; ) {
    const c = sample[i];
    if (c < 0x80) {
      if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0x0c && c !== 0x0b && c !== 0x08 && c !== 0x1b) suspicious++;
      i++;
      continue;
    }
    const len = utf8SequenceLength(sample, i, end);
    if (len > 0) {
      i += len;
      continue;
    }
    if (!complete && end - i < 4) break; // a character cut by the end of the sample
    suspicious++;
    i++;
  }
  return suspicious > end * BINARY_SHARE;
}
