// What a descriptor says about text: the first and last lines, the lines that look like errors (with their
// line numbers; errors are often at the end), and how many lines carry each log level. Fed the same bytes as
// the text encoder, in one pass, with bounded memory.
import { ErrorLines, errorWord, failureMessage, failureWord, MESSAGE_START, MESSAGE_WORDS } from './error-lines.js';
import { LineTemplates, type TemplateStats } from './line-templates.js';
import { KIND_LINE_CHARS, startKind, type KindCounter, type KindFacts } from './kinds/index.js';
import { isJunitStart, JUNIT_SNIFF_BYTES, JunitReport } from './kinds/test-junit.js';

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
  /**
   * The error words found (lower case; of a failure message, its words, such as "no such file or directory": see
   * failureMessage) and on how many lines each was the first, most frequent first.
   */
  errorWords: [string, number][];
  /**
   * The error lines that begin as a program's message of failure (`E: …`, `error: …`, `dpkg: error …`, `ERROR …`,
   * `Traceback …`, `TypeError: …`, `ls: cannot access 'x': No such file or directory`: DIAGNOSTIC_RE, failureMessage):
   * in a kind whose lines are data (a table, a listing, YAML), these are the lines that are not, so they are errors
   * all the same. Absent in a result stored before they were counted.
   */
  diagnostics?: PreviewLine[];
  diagnosticCount?: number;
  /** Lines per log level, counted over the first LEVEL_SCAN_LINES lines. */
  levels: Record<string, number>;
  /** The lines whose levels were counted, when not all of them (absent: all). */
  levelLines?: number;
  /** How each level was written: an upper-case word (INFO), bracketed lower case ([notice]), or both. */
  levelForms: Record<string, 'word' | 'bracketed' | 'both'>;
  /** The kinds of line (log templates) of the first lines. */
  templates: TemplateStats;
  /**
   * What kind of output this is (a listing, a table, a diff…), when a detector is sure from the first lines; its
   * facts are of every line, or say in words which lines they are of.
   */
  kind?: KindFacts;
  /** The share of the first lines that carry a date or a time near their start, as log lines do. */
  timestamped?: number;
}

/** The words that make a line a candidate error line (see error-lines.ts: failureWord decides). */
export const ERROR_PATTERN = 'error|fail|fatal|exception|panic|traceback|critical|denied|refused|segfault|abort';
const LEVEL_WORDS = 'TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|FATAL|CRITICAL|SEVERE';
const LEVEL_BRACKETED = 'trace|debug|info|notice|warn|warning|error|crit|alert|emerg|fatal';
/** A log level in a line: an upper-case word (group 1) or a bracketed lower-case one (group 2). */
export const LEVEL_RE = new RegExp(`\\b(${LEVEL_WORDS})\\b|\\[(${LEVEL_BRACKETED})\\]`, 'g');
const HEAD_LINES = 10;
const TAIL_LINES = 10;
const ERROR_KEEP = 10; // first N and last N
/**
 * An error line that begins as a program's message of failure, from column 0: apt's `E:`, a level (`ERROR`,
 * `[FATAL]`), git's and rustc's `error:`/`fatal:`, a program or a source position naming itself first (`dpkg: error
 * processing`, `cat: FILE: Permission denied`, `a.c:3:5: error:`: a lower-case name, or any name with a line number,
 * so that a field such as `Description: Error …` is not one), `npm ERR!`, pytest's `E   `, Python's traceback,
 * Rust's panic, a failure type (`TypeError: …`, `java.lang.IllegalStateException`), the shell's `Segmentation fault`.
 * A lower-case `error:` takes a message of two words or more (a YAML key `error: null` is data). The line is an error
 * line already (failureWord): this says only that it is a message, not a row of data, which begins otherwise: a
 * table's first cell, a path, a permission string, a field's capitalised name, a diff's `+`, an indented line.
 */
export const DIAGNOSTIC_RE = new RegExp(
  `^(?:${[
    String.raw`E: |E {3,}\S`,
    String.raw`\[?(?:ERROR|FATAL|CRITICAL|PANIC|FAILED|FAIL)\]?(?:[: !]|$)`,
    String.raw`(?:Error|Fatal|Panic)(?:\[[^\]]*\])?:? `,
    String.raw`(?:error|fatal|panic)(?:\[[^\]]*\])?: \S+\s+\S`,
    // a program naming itself: dpkg: error …, cat: /etc/shadow: Permission denied, curl: (7) …, make: *** …
    String.raw`[a-z_./@][\w./@+-]*: (?:(?:error|fatal|ERROR)(?::|\s+\S)|\*\*\* |\(\d+\) |.*: )`,
    String.raw`[\w./@][\w./@+-]*:\d+(?::\d+)?: (?:error|fatal|Error|Fatal|ERROR|[\w.$]*(?:Error|Exception))\b`,
    String.raw`npm ERR!|Traceback \(most recent call last\)|thread '[^']*'(?: \(\d+\))? panicked at `,
    String.raw`[A-Za-z_$][\w.$]*(?:Error|Exception)(?:: |$)|Segmentation fault|Aborted\b`,
  ]
    .map((a) => `(?:${a})`)
    .join('|')})`,
);
const LINE_KEEP_BYTES = 2048; // bytes of a line kept for display
/** Lines whose log level is counted (a count, not bytes, so that how the input was cut never changes it). */
const LEVEL_SCAN_LINES = 500_000;
/** Bytes of the previous piece of a long line kept to find a word across the cut. */
const REST_OVERLAP = 32;
/** Bytes of whole lines at the start of the input that the kind detectors see. */
const KIND_SAMPLE_BYTES = 256 << 10;
/** A date or a time as logs write them (2026-11-26, 22:15:29, Nov 26, 081109 203615). */
const STAMP_RE = /\d{4}-\d\d-\d\d|\d\d:\d\d:\d\d|\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d{1,2}\b|\b\d{6} \d{6}\b/;
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

/** How a preview hides secrets: a line masked, and what a line of a PEM private key block shows instead. */
export interface PreviewMask {
  line: (bytes: Uint8Array) => Uint8Array;
  /** Many lines (none holding a `\n`) masked, each as `line` masks it. */
  lines: (lines: Uint8Array[]) => Uint8Array[];
  keyLine: string;
}

/** PEM armour lines; a block whose BEGIN line names a PRIVATE KEY is key material up to its END line. */
const PEM_RE = /-----(BEGIN|END)\b/gi;
const PRIVATE_KEY_RE = /PRIVATE KEY/i;
const MAX_KEY_BLOCKS = 1000;

export class TextAnalyzer {
  /** Lines of PEM private key blocks, as [first, last] (last open: Infinity), for masking previews. */
  private readonly keyBlocks: [number, number][] = [];

  constructor(private readonly mask: PreviewMask | null = null) {}

  private lineNo = 0; // lines completed so far
  private carry: Buffer | null = null; // start of the current line (at most LINE_KEEP_BYTES)
  private carryLong = false;
  private readonly head: RawLine[] = [];
  private tail: RawLine[] = [];
  private lastRegion: { buf: Buffer; lastLine: number } | null = null;
  private readonly firstErrors: RawLine[] = [];
  private lastErrors: RawLine[] = [];
  private errorCount = 0;
  private readonly firstDiagnostics: RawLine[] = [];
  private lastDiagnostics: RawLine[] = [];
  private diagnosticCount = 0;
  private readonly errorWords = new Map<string, number>();
  private lastErrorLine = 0;
  private readonly levels: Record<string, number> = {};
  private readonly levelForms: Record<string, 'word' | 'bracketed' | 'both'> = {};
  // A line longer than LINE_KEEP_BYTES that spans chunks is kept only in part; the rest is scanned as it passes,
  // so its error word and level are found wherever they are, as in a line that arrived whole.
  private restWord: string | null = null;
  private restLevel: { level: string; form: 'word' | 'bracketed' } | null = null;
  private restTail = '';
  private readonly templates = new LineTemplates();
  private readonly errorLines = new ErrorLines(ERROR_PATTERN, true, MESSAGE_WORDS);
  private readonly sample: Buffer[] = [];
  private sampleBytes = 0;
  private sampleFull = false;
  /** Lines in the sample. */
  private sampleLines = 0;
  /** The kind found from the sample once it is full: counts every later line (null: none, or not counted). */
  private counter: KindCounter | null = null;
  /** Whether the kind was decided (when the sample filled up, or at the end). */
  private kindStarted = false;
  /** What the detectors made of the full sample when it filled up: facts of it, a counter, or no kind. */
  private sampleKind: 'facts' | 'counter' | 'none' | undefined;
  /** The full sample's lines as the detectors see them, made once. */
  private sampleLinesText: string[] | undefined;

  /**
   * A JUnit report, told from the input's first bytes and read tag by tag whatever its lines (pytest writes most
   * of one on a line): undefined until JUNIT_SNIFF_BYTES are in (`sniffed` holds them), null when it is none.
   */
  private junit: JunitReport | null | undefined;
  private sniffed: Buffer[] = [];
  private sniffedBytes = 0;

  /** Feeds input bytes; the chunk may be reused once this returns (what the preview keeps is copied). */
  push(chunk: Buffer): void {
    if (this.junit !== null) this.feedJunit(chunk);
    this.lines(chunk);
    this.keepCopies();
  }

  private feedJunit(chunk: Buffer | null): void {
    if (this.junit) {
      if (chunk) this.junit.push(chunk);
      return;
    }
    if (chunk) {
      this.sniffed.push(Buffer.from(chunk));
      this.sniffedBytes += chunk.length;
      if (this.sniffedBytes < JUNIT_SNIFF_BYTES) return;
    }
    const head = Buffer.concat(this.sniffed);
    this.sniffed = [];
    this.junit = isJunitStart(head.toString('utf8', 0, JUNIT_SNIFF_BYTES)) ? new JunitReport() : null;
    this.junit?.push(head);
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
      // (of a line longer than LINE_KEEP_BYTES, the detectors see the start)
      this.keepSample(Buffer.concat([line, Buffer.from('\n')]));
      this.countLine(line, this.lineNo);
      this.resetRest();
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
    this.lastDiagnostics = this.lastDiagnostics.slice(-ERROR_KEEP).map(copyLine);
  }

  end(): TextStats {
    if (this.junit === undefined) this.feedJunit(null);
    this.flushTail();
    if (this.carry && this.carry.length > 0) {
      this.lineNo++;
      this.single(this.carry, this.lineNo);
      this.keepSample(Buffer.concat([this.carry, Buffer.from('\n')]));
      this.countLine(this.carry, this.lineNo);
    }
    this.carry = null;
    const lastFirst = this.firstErrors.at(-1)?.line ?? 0;
    const errors = [...this.firstErrors, ...this.lastErrors.slice(-ERROR_KEEP).filter((e) => e.line > lastFirst)];
    const lastFirstDiagnostic = this.firstDiagnostics.at(-1)?.line ?? 0;
    const diagnostics = [...this.firstDiagnostics, ...this.lastDiagnostics.slice(-ERROR_KEEP).filter((e) => e.line > lastFirstDiagnostic)];
    const m = this.mask;
    const inKey = (n: number) => this.keyBlocks.some(([a, b]) => n >= a && n <= b);
    const show = (l: RawLine): PreviewLine => ({
      line: l.line,
      text: !m ? displayLine(l.bytes) : inKey(l.line) ? m.keyLine : displayLine(m.line(l.bytes)),
    });
    return {
      lines: this.lineNo,
      head: this.head.map(show),
      tail: this.tail.map(show),
      errors: errors.map(show),
      errorCount: this.errorCount,
      errorWords: [...this.errorWords].sort((a, b) => b[1] - a[1]),
      diagnostics: diagnostics.map(show),
      diagnosticCount: this.diagnosticCount,
      levels: this.levels,
      ...(this.lineNo > LEVEL_SCAN_LINES ? { levelLines: LEVEL_SCAN_LINES } : {}),
      levelForms: this.levelForms,
      templates: this.templates.end(),
      ...this.kind(),
    };
  }

  /** Keeps whole lines of the input's start for the kind detectors (a copy; at most KIND_SAMPLE_BYTES). */
  private keepSample(lines: Uint8Array): void {
    if (this.sampleFull) return;
    const room = KIND_SAMPLE_BYTES - this.sampleBytes;
    let piece = lines;
    if (piece.length > room) {
      this.sampleFull = true;
      const cut = Buffer.from(piece.buffer, piece.byteOffset, room).lastIndexOf(0x0a);
      piece = piece.subarray(0, cut + 1);
    }
    this.sample.push(Buffer.from(piece));
    this.sampleBytes += piece.length;
    for (let i = piece.indexOf(0x0a); i >= 0; i = piece.indexOf(0x0a, i + 1)) this.sampleLines++;
    // the kind is decided now, so that its counter sees every later line as it passes
    if (this.sampleFull) this.sampleKind = this.startKind(false) ? 'facts' : this.counter ? 'counter' : 'none';
  }

  /** The sample's lines as the detectors see them: cut, without ANSI escapes or a final CR, secrets masked. */
  private sampleText(): string[] {
    // a full sample no longer changes: its lines are made once (they took 50 ms of 200,000 short lines, twice)
    if (this.sampleFull && this.sampleLinesText) return this.sampleLinesText;
    const lines = this.makeSampleText();
    if (this.sampleFull) this.sampleLinesText = lines;
    return lines;
  }

  private makeSampleText(): string[] {
    const text = Buffer.concat(this.sample).toString('utf8');
    const lines = text.split('\n');
    lines.pop(); // after the last newline
    const m = this.mask;
    const clean = lines.map(cleanKindLine);
    const masked = m?.lines(clean.map((l) => Buffer.from(l)));
    return !masked ? clean : masked.map((b) => Buffer.from(b.buffer, b.byteOffset, b.length).toString('utf8'));
  }

  /** Decides the kind from the sample; a kind counted over the whole output gets its counter. */
  private startKind(complete: boolean): { facts: KindFacts } | null {
    this.kindStarted = true;
    const k = startKind({ lines: this.sampleText(), total: complete ? this.lineNo : this.sampleLines, complete });
    if (!k) return null;
    if ('counter' in k) {
      this.counter = k.counter;
      return null;
    }
    return k;
  }

  /** Whole lines past the sample, the first numbered `first`, to the kind's counter. */
  private countLines(buf: Buffer, first: number): void {
    const c = this.counter;
    if (!c) return;
    const lines = buf.toString('utf8').split('\n');
    // (the region where the sample filled up holds lines of the sample, which the counter has seen)
    for (let i = Math.max(0, this.sampleLines + 1 - first); i < lines.length - 1; i++) c.line(cleanKindLine(lines[i]), first + i);
  }

  /** One line (its kept start) past the sample, to the kind's counter. */
  private countLine(line: Buffer, n: number): void {
    if (this.counter && n > this.sampleLines) this.counter.line(cleanKindLine(line.toString('utf8')), n);
  }

  private kind(): { kind?: KindFacts; timestamped: number } {
    const complete = !this.sampleFull;
    // decided here for a sample that never filled up; when it did, decided then, and a kind that describes its
    // sample alone is asked again for its facts, with the input's line count
    const described = this.kindStarted ? null : this.startKind(complete);
    const shown = this.sampleText();
    let kind: KindFacts | null = null;
    const junit = this.junit?.end();
    if (junit) kind = this.maskFacts(junit);
    else if (this.counter) kind = this.maskFacts(this.counter.end(this.lineNo));
    else {
      // (a sample that no detector took when it filled up is not asked again: the 13 detectors took 90 ms of it)
      const askAgain = this.kindStarted && !described && this.sampleKind !== 'none';
      const again = askAgain ? startKind({ lines: shown, total: this.lineNo, complete }) : described;
      kind = again && 'facts' in again ? again.facts : null;
      if (kind && !complete) kind = { ...kind, facts: sampleScope(kind.facts, this.sampleLines, this.lineNo) };
    }
    const timestamped = shown.length ? shown.filter((l) => STAMP_RE.test(l.slice(0, 48))).length / shown.length : 0;
    return { ...(kind ? { kind } : {}), timestamped: Math.round(timestamped * 100) / 100 };
  }

  /**
   * The strings of a counter's facts with their secrets masked: the lines after the sample reach the counter
   * unmasked (masking every line would cost more than the rest of the analysis), so what it kept is masked here.
   */
  private maskFacts(k: KindFacts | null): KindFacts | null {
    const m = this.mask;
    if (!k || !m) return k;
    const str = (x: string) => {
      const b = Buffer.from(x);
      const out = m.line(b);
      return out === b ? x : Buffer.from(out.buffer, out.byteOffset, out.length).toString('utf8');
    };
    const deep = (v: unknown): unknown =>
      typeof v === 'string'
        ? str(v)
        : Array.isArray(v)
          ? v.map(deep)
          : v !== null && typeof v === 'object'
            ? Object.fromEntries(Object.entries(v).map(([key, x]) => [str(key), deep(x)]))
            : v;
    return {
      ...k,
      facts: deep(k.facts) as Record<string, unknown>,
      ...(k.errorLines ? { errorLines: k.errorLines.map((l) => ({ line: l.line, text: str(l.text) })) } : {}),
      ...(k.nextCommands ? { nextCommands: k.nextCommands.map((words) => words.map(str)) } : {}),
    };
  }

  private extendCarry(bytes: Buffer): void {
    if (!this.carry) this.carry = Buffer.alloc(0);
    if (this.carryLong) {
      this.scanRest(bytes);
      return;
    }
    const room = LINE_KEEP_BYTES + 1 - this.carry.length;
    this.carry = Buffer.concat([this.carry, bytes.subarray(0, room)]);
    if (this.carry.length > LINE_KEEP_BYTES) {
      this.carryLong = true;
      this.restTail = this.carry.toString('latin1', this.carry.length - REST_OVERLAP);
      if (bytes.length > room) this.scanRest(bytes.subarray(room));
    }
  }

  /** Looks for the first error word and level in the part of a long line past what is kept. */
  private scanRest(bytes: Buffer): void {
    if (this.restWord !== null && this.restLevel !== null) return;
    const window = this.restTail + bytes.toString('latin1');
    if (this.restWord === null) this.restWord = failureWord(window);
    if (this.restLevel === null) {
      LEVEL_RE.lastIndex = 1; // a match at 0 could start mid-word; one there was seen in the previous window
      const m = LEVEL_RE.exec(window);
      if (m) this.restLevel = { level: (m[1] ?? m[2]).toUpperCase(), form: m[1] ? 'word' : 'bracketed' };
    }
    this.restTail = window.slice(-REST_OVERLAP);
  }

  private resetRest(): void {
    this.restWord = null;
    this.restLevel = null;
    this.restTail = '';
  }

  /** A line that spanned chunks (its kept start only). */
  private single(line: Buffer, n: number): void {
    this.flushTail();
    if (this.head.length < HEAD_LINES) this.head.push({ line: n, bytes: line });
    this.tail.push({ line: n, bytes: line });
    if (this.tail.length > TAIL_LINES) this.tail.shift();
    const text = line.toString('latin1');
    const word = errorWord(text) ?? this.restWord;
    if (word) this.error(line, n, word);
    if (n <= LEVEL_SCAN_LINES && this.countLevels(text) === 0 && this.restLevel) this.addLevel(this.restLevel.level, this.restLevel.form);
    this.templates.line(line, n);
    if (this.mask && text.includes('-----')) this.keyLines(text, n);
  }

  /** Notes PEM private key blocks in text, whose first line is line `first` (for masking previews). */
  private keyLines(text: string, first: number): void {
    let n = first;
    let at = 0;
    PEM_RE.lastIndex = 0;
    for (let m = PEM_RE.exec(text); m; m = PEM_RE.exec(text)) {
      for (let i = text.indexOf('\n', at); i >= 0 && i < m.index; i = text.indexOf('\n', i + 1)) {
        n++;
        at = i + 1;
      }
      const open = this.keyBlocks.length > 0 && this.keyBlocks[this.keyBlocks.length - 1][1] === Infinity;
      if (m[1].toUpperCase() === 'END') {
        if (open) this.keyBlocks[this.keyBlocks.length - 1][1] = n;
      } else if (!open && this.keyBlocks.length < MAX_KEY_BLOCKS) {
        const eol = text.indexOf('\n', m.index);
        if (PRIVATE_KEY_RE.test(text.slice(m.index, eol < 0 ? text.length : eol))) this.keyBlocks.push([n, Infinity]);
      }
    }
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
    this.keepSample(buf);
    this.countLines(buf, first);
    this.templates.region(buf, first);
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
    if (first <= LEVEL_SCAN_LINES) {
      const text = buf.toString('latin1');
      this.countLevels(first + counted - 1 <= LEVEL_SCAN_LINES ? text : text.slice(0, nthLineEnd(text, LEVEL_SCAN_LINES - first + 1)));
    }
    if (this.mask && buf.includes('-----')) this.keyLines(buf.toString('latin1'), first);
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
    const start = latin1(line, 200);
    if (!DIAGNOSTIC_RE.test(start) && !(MESSAGE_START.test(start) && failureMessage(latin1(line, LINE_KEEP_BYTES)))) return;
    this.diagnosticCount++;
    if (this.firstDiagnostics.length < ERROR_KEEP) this.firstDiagnostics.push(copyLine(p));
    else {
      this.lastDiagnostics.push(p);
      if (this.lastDiagnostics.length > ERROR_KEEP * 4) this.lastDiagnostics = this.lastDiagnostics.slice(-ERROR_KEEP);
    }
  }

  /** Counts the level of each line of text (the first level word on it); returns how many lines had one. */
  private countLevels(text: string): number {
    LEVEL_RE.lastIndex = 0;
    let m: RegExpExecArray | null;
    let lastLineEnd = -1;
    let found = 0;
    while ((m = LEVEL_RE.exec(text)) !== null) {
      if (m.index <= lastLineEnd) continue; // one level per line
      this.addLevel((m[1] ?? m[2]).toUpperCase(), m[1] ? 'word' : 'bracketed');
      found++;
      lastLineEnd = text.indexOf('\n', m.index);
      if (lastLineEnd < 0) break;
      LEVEL_RE.lastIndex = lastLineEnd + 1;
    }
    return found;
  }

  private addLevel(level: string, form: 'word' | 'bracketed'): void {
    this.levels[level] = (this.levels[level] ?? 0) + 1;
    const had = this.levelForms[level];
    this.levelForms[level] = had && had !== form ? 'both' : form;
  }
}

/** The first `max` bytes of a line as a latin1 string. */
function latin1(line: Uint8Array, max: number): string {
  return Buffer.from(line.buffer, line.byteOffset, Math.min(line.length, max)).toString('latin1');
}

/** A line as the kind detectors and counters see it: its start, without ANSI escapes or a final CR. */
function cleanKindLine(l: string): string {
  // a detector needs the start of a line only, and a line cut short bounds what its regexes cost
  let s = l.length > KIND_LINE_CHARS ? l.slice(0, KIND_LINE_CHARS) : l;
  if (s.includes('\x1b')) s = s.replace(ANSI_RE, '');
  // (a regex replace on every line cost more than splitting them: tests of the last character instead)
  return s.charCodeAt(s.length - 1) === 13 ? s.slice(0, -1) : s;
}

/**
 * The facts of a kind that describes its sample only, when the sample is not the whole input: where a detector
 * said `from_first_lines`, the words that say which lines the figures after it are of (a bare number was read as
 * a total).
 */
export function sampleScope(facts: Record<string, unknown>, sampled: number, total: number): Record<string, unknown> {
  const words = `the figures after this are of the first ${sampled.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} lines only, not totals`;
  if (!('from_first_lines' in facts)) return facts;
  return Object.fromEntries(Object.entries(facts).map(([k, v]) => (k === 'from_first_lines' ? ['counted_over', words] : [k, v])));
}

/** The index just past the n-th newline of text (its length if it has fewer). */
function nthLineEnd(text: string, n: number): number {
  let at = 0;
  for (let k = 0; k < n; k++) {
    const nl = text.indexOf('\n', at);
    if (nl < 0) return text.length;
    at = nl + 1;
  }
  return at;
}
