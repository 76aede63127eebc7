// What a descriptor says about text: the first and last lines, the lines that look like errors (with their
// line numbers; errors are often at the end), and how many lines carry each log level. Fed the same bytes as
// the text encoder, in one pass, with bounded memory.

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

export class TextAnalyzer {
  private lineNo = 0; // lines completed so far
  private carry: Buffer | null = null; // start of the current line (at most LINE_KEEP_BYTES)
  private carryLong = false;
  private readonly head: PreviewLine[] = [];
  private tail: PreviewLine[] = [];
  private readonly firstErrors: PreviewLine[] = [];
  private lastErrors: PreviewLine[] = [];
  private errorCount = 0;
  private lastErrorLine = 0;
  private readonly levels: Record<string, number> = {};
  private readonly levelForms: Record<string, 'word' | 'bracketed' | 'both'> = {};
  private levelBytes = 0;

  push(chunk: Buffer): void {
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
    if (lastNl >= start) {
      this.region(chunk.subarray(start, lastNl + 1));
      start = lastNl + 1;
    }
    if (start < chunk.length) this.extendCarry(chunk.subarray(start));
  }

  end(): TextStats {
    if (this.carry && this.carry.length > 0) {
      this.lineNo++;
      this.single(this.carry, this.lineNo);
    }
    this.carry = null;
    const errors = [...this.firstErrors, ...this.lastErrors.filter((e) => e.line > (this.firstErrors.at(-1)?.line ?? 0))];
    return { lines: this.lineNo, head: this.head, tail: this.tail, errors, errorCount: this.errorCount, levels: this.levels, levelForms: this.levelForms };
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
    if (this.head.length < HEAD_LINES) this.head.push({ line: n, text: displayLine(line) });
    this.pushTail({ line: n, text: displayLine(line) });
    const text = line.toString('latin1');
    ERROR_RE.lastIndex = 0;
    if (ERROR_RE.test(text)) this.error(line, n);
    this.countLevels(text);
  }

  /** Whole lines, each ending with "\n". */
  private region(buf: Buffer): void {
    const first = this.lineNo + 1;
    // head
    let pos = 0;
    let n = first;
    while (this.head.length < HEAD_LINES && pos < buf.length) {
      const nl = buf.indexOf(0x0a, pos);
      this.head.push({ line: n, text: displayLine(buf.subarray(pos, nl)) });
      pos = nl + 1;
      n++;
    }
    // errors, with line numbers counted incrementally up to each match
    const text = buf.toString('latin1');
    let counted = 0; // newlines before `at`
    let at = 0;
    ERROR_RE.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = ERROR_RE.exec(text)) !== null) {
      for (let i = buf.indexOf(0x0a, at); i >= 0 && i < m.index; i = buf.indexOf(0x0a, i + 1)) {
        counted++;
        at = i + 1;
      }
      const lineStart = at;
      const lineEnd = buf.indexOf(0x0a, m.index);
      this.error(buf.subarray(lineStart, lineEnd), first + counted);
      ERROR_RE.lastIndex = lineEnd + 1;
    }
    for (let i = buf.indexOf(0x0a, at); i >= 0; i = buf.indexOf(0x0a, i + 1)) counted++;
    this.lineNo += counted;
    // tail: the last lines of this region
    const tail: PreviewLine[] = [];
    let end = buf.length - 1; // index of the final "\n"
    let ln = this.lineNo;
    while (tail.length < TAIL_LINES && end >= 0) {
      const prevNl = end > 0 ? buf.lastIndexOf(0x0a, end - 1) : -1;
      tail.unshift({ line: ln, text: displayLine(buf.subarray(prevNl + 1, end)) });
      end = prevNl;
      ln--;
    }
    this.tail = [...this.tail, ...tail].slice(-TAIL_LINES);
    if (this.levelBytes < LEVELS_SCAN_BYTES) this.countLevels(text);
  }

  private pushTail(p: PreviewLine): void {
    this.tail.push(p);
    if (this.tail.length > TAIL_LINES) this.tail.shift();
  }

  private error(line: Uint8Array, n: number): void {
    if (n === this.lastErrorLine) return;
    this.lastErrorLine = n;
    this.errorCount++;
    const p = { line: n, text: displayLine(line) };
    if (this.firstErrors.length < ERROR_KEEP) this.firstErrors.push(p);
    else {
      this.lastErrors.push(p);
      if (this.lastErrors.length > ERROR_KEEP) this.lastErrors.shift();
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
