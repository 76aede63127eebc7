// What a descriptor says about text: the first and last lines, the lines that look like errors (with their
// line numbers; errors are often at the end), and how many lines carry each log level. Fed the same bytes as
// the text encoder, in one pass, with bounded memory.
import { ErrorLines } from './error-lines.js';

/** One line shown in a preview: its number (= record number) and its text, cleaned for display. */
export interface PreviewLine {
  line: number;
  text: string;
}

export interface TextStats {
  lines: number;
  head: PreviewLine[];
  tail: PreviewLine[];
  /** The first and the last error-like lines (deduplicated, in order). */
  errors: PreviewLine[];
  errorCount: number;
  /** The error words found (lower case) and on how many lines each was the first, most frequent first. */
  errorWords: [string, number][];
  /** Lines per log level, counted over the first LEVELS_SCAN_BYTES of input. */
  levels: Record<string, number>;
  /** How each level was written: an upper-case word (INFO), bracketed lower case ([notice]), or both. */
  levelForms: Record<string, 'word' | 'bracketed' | 'both'>;
}

/** Words that make a line "look like an error". */
export const ERROR_PATTERN = 'error|fail|fatal|exception|panic|traceback|critical|denied|refused|segfault|abort';
const ERROR_RE = new RegExp(ERROR_PATTERN, 'gi');
const LEVEL_WORDS = 'TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|FATAL|CRITICAL|SEVERE';
const LEVEL_BRACKETED = 'trace|debug|info|notice|warn|warning|error|crit|alert|emerg|fatal';
const LEVEL_RE = new RegExp(`\\b(${LEVEL_WORDS})\\b|\\[(${LEVEL_BRACKETED})\\]`, 'g');
const HEAD_LINES = 10;
const TAIL_LINES = 10;
const ERROR_KEEP = 10; // first N and last N
const LINE_KEEP_BYTES = 2048; // bytes of a line kept for display
const LEVELS_SCAN_BYTES = 64 << 20;
const ANSI_RE = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07/g;

/** Display form of raw line bytes: UTF-8 (lossy), no ANSI escapes, no trailing CR, at most max characters. */
export function displayLine(bytes: Uint8Array, max = 200): string {
  let s = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, LINE_KEEP_BYTES)).toString('utf8');
  s = s.replace(ANSI_RE, '').replace(/\r$/, '');
  // other control characters would confuse a terminal or a model; show them as escapes
  s = s.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  if (s.length > max || bytes.length > LINE_KEEP_BYTES) s = `${s.slice(0, max)}…`;
  return s;
}

/** A line kept for the preview: its number and its bytes (a view into an input chunk; shown at the end). */
interface RawLine {
  line: number;
  bytes: Uint8Array;
}

/** A copy of a kept line, no longer than display needs (LINE_KEEP_BYTES, and one more byte to know it is longer). */
function copyLine(l: RawLine): RawLine {
  return { line: l.line, bytes: Buffer.from(l.bytes.subarray(0, LINE_KEEP_BYTES + 1)) };
}

/** Analyzer regions: 64 KB keeps each region's latin1 text a young heap string (fast to make and to free). */
const ANALYZE_REGION = 64 << 10;

export class TextAnalyzer {
  private lineNo = 0; // lines completed so far
  private carry: Buffer | null = null; // start of the current line (at most LINE_KEEP_BYTES)
  private carryLong = false;
  private readonly head: RawLine[] = [];
  private tail: RawLine[] = [];
  private lastRegion: { buf: Buffer; lastLine: number } | null = null;
  private readonly firstErrors: RawLine[] = [];
  private lastErrors: RawLine[] = [];
  private errorCount = 0;
  private readonly errorWords = new Map<string, number>();
  private lastErrorLine = 0;
  private readonly levels: Record<string, number> = {};
  private readonly levelForms: Record<string, 'word' | 'bracketed' | 'both'> = {};
  private levelBytes = 0;
  private readonly errorLines = new ErrorLines(ERROR_PATTERN);

  /** Feeds input bytes; the chunk may be reused once this returns (what the preview keeps is copied). */
  push(chunk: Buffer): void {
    this.lines(chunk);
    this.keepCopies();
  }

  private lines(chunk: Buffer): void {
    let start = 0;
    if (this.carry) {
      const nl = chunk.indexOf(0x0a);
      if (nl < 0) {
        this.extendCarry(chunk);
        return;
      }
      this.extendCarry(chunk.subarray(0, nl));
      const line = this.carry;
      this.carry = null;
      this.carryLong = false;
      this.lineNo++;
      this.single(line, this.lineNo);
      start = nl + 1;
    }
    const lastNl = chunk.lastIndexOf(0x0a);
    while (start <= lastNl) {
      let end = lastNl + 1;
      if (end - start > ANALYZE_REGION) end = chunk.indexOf(0x0a, start + ANALYZE_REGION) + 1;
      this.region(chunk.subarray(start, end));
      start = end;
    }
    if (start < chunk.length) this.extendCarry(chunk.subarray(start));
  }

  /** The lines kept for the preview that are still views into the chunk become copies (a few per chunk). */
  private keepCopies(): void {
    this.flushTail();
    this.tail = this.tail.map(copyLine);
    this.lastErrors = this.lastErrors.slice(-ERROR_KEEP).map(copyLine);
  }

  end(): TextStats {
    this.flushTail();
    if (this.carry && this.carry.length > 0) {
      this.lineNo++;
      this.single(this.carry, this.lineNo);
    }
    this.carry = null;
    const lastFirst = this.firstErrors.at(-1)?.line ?? 0;
    const errors = [...this.firstErrors, ...this.lastErrors.slice(-ERROR_KEEP).filter((e) => e.line > lastFirst)];
    const show = (l: RawLine): PreviewLine => ({ line: l.line, text: displayLine(l.bytes) });
    return {
      lines: this.lineNo,
      head: this.head.map(show),
      tail: this.tail.map(show),
      errors: errors.map(show),
      errorCount: this.errorCount,
      errorWords: [...this.errorWords].sort((a, b) => b[1] - a[1]),
      levels: this.levels,
      levelForms: this.levelForms,
    };
  }

  private extendCarry(bytes: Buffer): void {
    if (!this.carry) this.carry = Buffer.alloc(0);
    if (this.carryLong) return;
    const room = LINE_KEEP_BYTES + 1 - this.carry.length;
    this.carry = Buffer.concat([this.carry, bytes.subarray(0, room)]);
    if (this.carry.length > LINE_KEEP_BYTES) this.carryLong = true;
  }

  /** A line that spanned chunks (its kept start only). */
  private single(line: Buffer, n: number): void {
    this.flushTail();
    if (this.head.length < HEAD_LINES) this.head.push({ line: n, bytes: line });
    this.tail.push({ line: n, bytes: line });
    if (this.tail.length > TAIL_LINES) this.tail.shift();
    const text = line.toString('latin1');
    ERROR_RE.lastIndex = 0;
    const m = ERROR_RE.exec(text);
    if (m) this.error(line, n, m[0]);
    this.countLevels(text);
  }

  /** The tail lines of the last region seen, taken only when a later line arrives or at the end. */
  private flushTail(): void {
    const r = this.lastRegion;
    if (!r) return;
    this.lastRegion = null;
    const lines: RawLine[] = [];
    let end = r.buf.length - 1; // the region's final "\n"
    let ln = r.lastLine;
    while (lines.length < TAIL_LINES && end >= 0) {
      const prevNl = end > 0 ? r.buf.lastIndexOf(0x0a, end - 1) : -1;
      lines.unshift({ line: ln, bytes: r.buf.subarray(prevNl + 1, end) });
      end = prevNl;
      ln--;
    }
    this.tail = [...this.tail, ...lines].slice(-TAIL_LINES);
  }

  /** Whole lines, each ending with "\n". */
  private region(buf: Buffer): void {
    const first = this.lineNo + 1;
    let pos = 0;
    let n = first;
    while (this.head.length < HEAD_LINES && pos < buf.length) {
      const nl = buf.indexOf(0x0a, pos);
      this.head.push(copyLine({ line: n, bytes: buf.subarray(pos, nl) }));
      pos = nl + 1;
      n++;
    }
    // errors, with their line numbers (see error-lines.ts)
    const counted = this.errorLines.scan(buf, (start, end, before, word) => this.error(buf.subarray(start, end), first + before, word));
    this.lineNo += counted;
    // the previous region's last lines matter only if this region has fewer than TAIL_LINES lines
    if (counted >= TAIL_LINES) {
      this.lastRegion = null;
      this.tail = [];
    } else this.flushTail();
    this.lastRegion = { buf, lastLine: this.lineNo };
    if (this.levelBytes < LEVELS_SCAN_BYTES) this.countLevels(buf.toString('latin1'));
  }

  private error(line: Uint8Array, n: number, word: string): void {
    if (n === this.lastErrorLine) return;
    this.lastErrorLine = n;
    this.errorCount++;
    const w = word.toLowerCase();
    this.errorWords.set(w, (this.errorWords.get(w) ?? 0) + 1);
    const p = { line: n, bytes: line };
    if (this.firstErrors.length < ERROR_KEEP) this.firstErrors.push(copyLine(p));
    else {
      this.lastErrors.push(p);
      if (this.lastErrors.length > ERROR_KEEP * 4) this.lastErrors = this.lastErrors.slice(-ERROR_KEEP);
    }
  }

  private countLevels(text: string): void {
    this.levelBytes += text.length;
    LEVEL_RE.lastIndex = 0;
    let m: RegExpExecArray | null;
    let lastLineEnd = -1;
    while ((m = LEVEL_RE.exec(text)) !== null) {
      if (m.index <= lastLineEnd) continue; // one level per line
      const level = (m[1] ?? m[2]).toUpperCase();
      this.levels[level] = (this.levels[level] ?? 0) + 1;
      const form = m[1] ? 'word' : 'bracketed';
      const had = this.levelForms[level];
      this.levelForms[level] = had && had !== form ? 'both' : form;
      lastLineEnd = text.indexOf('\n', m.index);
      if (lastLineEnd < 0) break;
      LEVEL_RE.lastIndex = lastLineEnd + 1;
    }
  }
}
