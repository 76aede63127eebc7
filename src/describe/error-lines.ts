// The lines of a log that look like errors, found on the bytes: the error words are looked for 16 bytes at a time
// by the scan kernel (a Teddy-like search) instead of a case-insensitive regex over a latin1 string of every
// region, which was most of an offload's analysis time (1 GB of logs: 0.9 s). The kernel also finds each line's
// bounds and number (wordLines in scan.wat), so a region costs one call, not four per error line. Same answers:
// the regex /error|fail|...|abort/gi on a latin1 string folds ASCII letters only, as the kernel does.
//
// A line the kernel finds is a candidate: it is an error line when one of its words says a failure (failureWord).
// A word inside a name is not one: a package (liberror-perl, libgpg-error0), a path (/var/log/faillog, error.log),
// a key (clouderrorreporting, on_failure); nor a topic (error handling, a memory error detector), a count of none
// (0 errors, failures: 0, no errors), or "critical" that is not a level (X509v3 Key Usage: critical).
//
// A program's own message of failure is an error line too, error word or not: `ls: cannot access 'x': No such file
// or directory`, `make: *** No rule to make target 'x'.  Stop.`, `big.c:(.text+0x5): undefined reference to 'f'`
// (failureMessage). Those are found by a second pass of the kernel over the same bytes, with the words of such
// messages (MESSAGE_WORDS), whose candidates are few: a path or a row holding "directory" is no message.
import { ByteScanner, DATA, OUT, WORD_LINES } from '../kernel/scan.js';

/**
 * The words that make a line a candidate failure message (see failureMessage): each message form holds one.
 * directory: No such file or directory, Not a directory, Is a directory, Directory not empty; permitted: Operation
 * not permitted; device: No space left on device, No such device (or address), Device or resource busy,
 * Inappropriate ioctl for device; symbolic: Too many levels of symbolic links; only: Read-only file system; cannot:
 * `prog: cannot access|open|stat|…`, Cannot allocate memory; defined: undefined reference, multiple definition …
 * first defined here, Undefined symbols; stop: make's `*** …  Stop.`; found: command not found, the shell's `sh: 1:
 * x: not found`. (Each word more costs: the kernel has eight buckets for the words' first bytes, and words that
 * share one make more candidates to check.)
 */
export const MESSAGE_WORDS = 'directory|permitted|device|symbolic|only|cannot|defined|stop|found';

/** Looks for the error words (given as a regex alternation of lower-case ASCII words) in whole lines. */
export class ErrorLines {
  private readonly scanner: ByteScanner;
  private readonly words: string[];
  /** The second pass's kernel, with the words of failure messages (null: none, or unverified). */
  private readonly messages: ByteScanner | null = null;

  /**
   * `verify`: false to have every line holding one of the words (the kernel's candidates, unchecked).
   * `messages`: the words of failure messages (MESSAGE_WORDS), looked for in a second pass when verifying.
   */
  constructor(
    pattern: string,
    private readonly verify = true,
    messages: string | null = null,
  ) {
    this.words = pattern.split('|');
    this.scanner = new ByteScanner(64 << 10);
    this.scanner.setWords(this.words);
    if (verify && messages) {
      this.messages = new ByteScanner(64 << 10);
      this.messages.setWords(messages.split('|'));
    }
  }

  /**
   * Calls found(start, end, before, word) for each line of `lines` (whole lines, each ending in \n) that is an
   * error line (see failureWord, failureMessage), in order: the line is lines[start, end), `before` lines come
   * before it, `word` is the error word that makes it one, in lower case (a failure message: its words, such as
   * "no such file or directory"; unverified: the first of the words in it). Returns the number of lines.
   */
  scan(lines: Uint8Array, found: (start: number, end: number, before: number, word: string) => void): number {
    const bytes = Buffer.from(lines.buffer, lines.byteOffset, lines.byteLength);
    // the failure messages first (few), then given in order among the error words' lines; a line in both is one
    // (a line with an error word is found by the first pass whatever it is: errorWord)
    const more: Hit[] = [];
    if (this.messages) {
      pass(this.messages, lines, (a, b, before) => {
        if (!mayBeMessage(bytes, a, b)) return;
        const word = failureMessage(bytes.toString('latin1', a, b));
        if (word) more.push({ start: a, end: b, before, word });
      });
    }
    let next = 0; // the next of `more` to give
    const counted = pass(this.scanner, lines, (a, b, before, k) => {
      const word = this.verify ? errorWord(bytes.toString('latin1', a, b)) : this.words[k];
      if (!word) return;
      for (; next < more.length && more[next].before <= before; next++) {
        const m = more[next];
        if (m.before < before) found(m.start, m.end, m.before, m.word);
      }
      found(a, b, before, word);
    });
    for (; next < more.length; next++) found(more[next].start, more[next].end, more[next].before, more[next].word);
    return counted;
  }
}

/**
 * One pass of a kernel over `lines` (copied into its memory): hit(start, end, before, word) for each line holding
 * one of its words (`word` the index of the first). Returns the number of lines.
 */
function pass(s: ByteScanner, lines: Uint8Array, hit: (start: number, end: number, before: number, word: number) => void): number {
  s.reserve(lines.length);
  s.view.set(lines, DATA);
  const end = DATA + lines.length;
  // (memory grows only in reserve(), so this view stays valid)
  const hits = new Int32Array(s.view.buffer, OUT, WORD_LINES * 4);
  let counted = 0; // lines before `from`
  for (let from = DATA; from < end; ) {
    const n = s.wordLines(from, end);
    for (let k = 0; k < n * 4; k += 4) hit(hits[k] - DATA, hits[k + 1] - DATA, counted + hits[k + 2], hits[k + 3]);
    counted += s.wordLinesCounted;
    from = s.wordLinesNext;
  }
  return counted;
}

type Hit = { start: number; end: number; before: number; word: string };

const FATAL_ERROR = Buffer.from('fatal error: ');
const UNDEFINED_SYMBOLS = Buffer.from('Undefined symbols ');

/**
 * Whether bytes[a, b) may be a failure message (failureMessage decides), told on the bytes before a string is made
 * of them: the first space of every form but two follows a colon (`ls: `, `make[1]: `, `big.c:(.text+0x5): `,
 * `Makefile:3: `, `error: `), as a program's name has none. (An Android log's 200,000 lines holding "not found"
 * begin `03-17 16:13:38.811 `.)
 */
function mayBeMessage(bytes: Buffer, a: number, b: number): boolean {
  const end = Math.min(b, a + 256);
  for (let i = a; i < end; i++) {
    if (bytes[i] !== 0x20) continue;
    return (i > a && bytes[i - 1] === 0x3a) /* : */ || startsWith(bytes, a, b, FATAL_ERROR) || startsWith(bytes, a, b, UNDEFINED_SYMBOLS);
  }
  return false;
}

function startsWith(bytes: Buffer, a: number, b: number, prefix: Buffer): boolean {
  return b - a >= prefix.length && bytes.compare(prefix, 0, prefix.length, a, a + prefix.length) === 0;
}

/** What makes a line an error line: a word that says a failure, else its being a program's failure message. */
export function errorWord(line: string): string | null {
  return failureWord(line) ?? failureMessage(line);
}

const STEMS = /error|fail|fatal|exception|panic|traceback|critical|denied|refused|segfault|abort/gi;
/** The words that say a failure (lower case), as whole words. */
const FORMS = new Set([
  'error', 'errors', 'errored', 'erroring',
  'fail', 'fails', 'failed', 'failing', 'failure', 'failures',
  'fatal',
  'exception', 'exceptions',
  'panic', 'panics', 'panicked', 'panicking',
  'traceback',
  'critical',
  'denied', 'refused',
  'segfault', 'segfaults', 'segfaulted',
  'abort', 'aborts', 'aborted', 'aborting',
]);
/** A type named for its failure: TypeError, java.io.IOException, AssertionError (a qualified name is still one). */
const FAILURE_TYPE = /^[A-Z][A-Za-z0-9]*(Error|Exception)$/;
/** The nouns after which a failure word names a topic, not a failure: error handling, a fault-tolerance library. */
const TOPIC = new Set([
  'handling', 'handler', 'handlers', 'reporting', 'reporter', 'reporters', 'reports', 'detector', 'detectors',
  'detection', 'correction', 'correcting', 'recovery', 'checking', 'checker', 'checkers', 'description',
  'descriptions', 'library', 'libraries', 'codes', 'messages', 'pages', 'rate', 'rates', 'budget', 'budgets',
  'tracking', 'tracker', 'tolerance', 'tolerant', 'safe', 'injection', 'domain', 'domains', 'model', 'models',
  'propagation', 'bars', 'types', 'classes', 'modes', 'hooks', 'callbacks', 'strings', 'cases', 'policy',
  'policies', 'semantics', 'analysis', 'estimation', 'estimates', 'bounds', 'logging', 'counters',
  'metrics', 'mitigation', 'response', 'responses', 'over', 'back', 'fast', 'proof', 'prone', 'free', 'function',
  'functions', 'values', 'mechanism', 'mechanisms', 'tests', 'testing', 'simulation', 'scenarios', 'modules',
]);
const ALNUM = /[A-Za-z0-9]/;
/** What joins the parts of a name: a package, a path, a file, a key (liberror-perl, error.log, on_failure). */
const JOIN = /[-_./\\@+~]/;
/** None said before the word: no errors, 0 failed, zero errors, without error, never fails. */
const NONE_BEFORE = /(?:^|[^A-Za-z0-9])(?:no|0|zero|without|never)\s+$/i;
/** A word before it that makes it a topic: in case of error, checks for errors, catches exceptions, bit errors. */
const TOPIC_BEFORE =
  /(?:^|[^A-Za-z0-9])(?:of|for|about|against|catch|catches|catching|handle|handles|detect|detects|detecting|correct|corrects|correcting|throw|throws|throwing|raise|raises|raising|avoid|avoids|prevent|prevents|preventing|bit)\s+$/i;
/**
 * A plural noun says a failure with a count (3 errors, 5 more authentication failures, too many failures), after
 * "with" (finished with errors), or as a heading (ERRORS, errors: 2); else it is a topic (catches compile-time
 * errors).
 */
const PLURALS = new Set(['errors', 'failures', 'exceptions']);
const COUNTED_BEFORE = /(?:^|[^A-Za-z0-9])(?:\d+|with|many|several|multiple)\s+(?:[A-Za-z-]+\s+){0,2}$/i;
/** A count of none after it: errors: 0, failures=0, failed 0. */
const NONE_AFTER = /^\s*[:=]?\s*0(?![\d.xX])/;

/**
 * The failure word that makes a line an error line (lower case, as the stem the kernel looks for: "error" for
 * "Errors"), or null when none of its words says a failure.
 */
export function failureWord(line: string): string | null {
  STEMS.lastIndex = 0;
  for (let m = STEMS.exec(line); m; m = STEMS.exec(line)) {
    let start = m.index;
    let end = start + m[0].length;
    while (start > 0 && ALNUM.test(line[start - 1])) start--;
    while (end < line.length && ALNUM.test(line[end])) end++;
    STEMS.lastIndex = end;
    const token = line.slice(start, end);
    const before = line[start - 1] ?? '';
    const after = line[end] ?? '';
    if (FAILURE_TYPE.test(token) && token.length > m[0].length) {
      // a type that failed: java.lang.NullPointerException: …, raise ValueError(…); not -XX:+HeapDumpOnOutOfMemoryError
      if (/^$|[\s.([]/.test(before) && /^$|[\s:(),;]/.test(after)) return m[0].toLowerCase();
      continue;
    }
    // a part of a name: joined to more of it (liberror-perl, error.log, on_failure, Exception::Class), an
    // option (--fail, -Dexception), in quotes ("Error" module)
    if (JOIN.test(before) && ALNUM.test(line[start - 2] ?? '')) continue;
    if (JOIN.test(after) && ALNUM.test(line[end + 1] ?? '')) continue;
    if ((after === ':' && line[end + 1] === ':') || (before === ':' && line[start - 2] === ':')) continue;
    if (before === '-' || (/["'`]/.test(before) && before === after)) continue;
    const lower = token.toLowerCase();
    if (!FORMS.has(lower)) continue;
    // a capitalized word named by an article (the Error module), or in a title (Limited Error Raster Compression)
    if (/^[A-Z][a-z]+$/.test(token)) {
      if (/(?:^|\s)the\s+$/i.test(line.slice(Math.max(0, start - 5), start))) continue;
      const titled = /[A-Z][a-z]*$/.test(line.slice(Math.max(0, start - 20), start - 1)) && /^[A-Z]/.test(line[end + 1] ?? '');
      if (before === ' ' && after === ' ' && titled) continue;
    }
    // "critical" is a failure as a level only: CRITICAL, [critical], <critical>, critical:, level=critical
    if (lower === 'critical' && token !== 'CRITICAL' && !/[[<=]/.test(before) && !/[\]>:]/.test(after)) continue;
    const ahead = line.slice(Math.max(0, start - 40), start);
    if (NONE_BEFORE.test(ahead) || TOPIC_BEFORE.test(ahead)) continue;
    const heading = token === token.toUpperCase() || /^\s*[:=]/.test(line.slice(end, end + 3));
    if (PLURALS.has(lower) && !heading && !COUNTED_BEFORE.test(ahead)) continue;
    const rest = line.slice(end, end + 40);
    if (NONE_AFTER.test(rest)) continue;
    const next = /^\s+([a-z]+)/.exec(rest)?.[1];
    if (next && TOPIC.has(next)) continue;
    return m[0].toLowerCase();
  }
  return null;
}

/** A program naming itself at the start of a line: ls, /usr/bin/ld, make[1], python3.11, git-upload-pack. */
const PROG = String.raw`[a-z0-9_./@~][\w./@~+-]*(?:\[\d+\])?`;
/**
 * What strerror() says (glibc's words; Go writes them in lower case), ending a program's message: `ls: cannot access
 * 'x': No such file or directory`. Those without a word of MESSAGE_WORDS or of the error words are told when
 * another word makes their line a candidate (`mkdir: cannot create directory 'x': File exists`), and by the
 * compiler diagnostics' counter, which reads every line.
 */
const ERRNO_TEXTS = [
  'No such file or directory', 'No such device or address', 'No such device', 'No such process',
  'Permission denied', 'Operation not permitted', 'Not a directory', 'Is a directory', 'Directory not empty',
  'No space left on device', 'Input/output error', 'Too many levels of symbolic links', 'Read-only file system',
  'Connection refused', 'Connection timed out', 'Connection reset by peer', 'Network is unreachable',
  'No route to host', 'File exists', 'Invalid argument', 'Device or resource busy', 'Text file busy',
  'Too many open files', 'Too many open files in system', 'File name too long', 'Argument list too long',
  'Bad file descriptor', 'Disk quota exceeded', 'Cannot allocate memory', 'Resource temporarily unavailable',
  'Operation not supported', 'Address already in use', 'Cannot assign requested address',
  'Inappropriate ioctl for device', 'Exec format error', 'Stale file handle', 'Transport endpoint is not connected',
  'Function not implemented', 'Invalid cross-device link', 'Structure needs cleaning', 'Protocol error',
  'command not found',
];
/** `prog: [what: ]<strerror>`, then perhaps `.`, ` (2)` (rsync) or ` (os error 2)` (Rust), at the line's end. */
const ERRNO_RE = new RegExp(
  `^${PROG}: (?:.*: )?(?:\\[Errno \\d+\\] )?(${ERRNO_TEXTS.map((t) => `[${t[0].toUpperCase()}${t[0].toLowerCase()}]${t.slice(1).replace('/', '\\/')}`).join('|')})(?:\\.|\\s\\((?:os error )?\\d+\\))?\\s*$`,
);
/**
 * `prog: [what: ]cannot VERB` naming what it could not (a quoted name, a path, a library, a reason after a colon):
 * `ls: cannot access 'x'`, `rm: cannot remove 'x': Is a directory`, `tar: x: Cannot open: …`, `ld: cannot find
 * -lfoo`. (`message: cannot be empty` names nothing: a value of data.)
 */
const CANNOT_RE = new RegExp(`^${PROG}: (?:.*: )?[Cc]annot ([a-z]+)\\b.*?(?:['"\`‘’/]|â\\x80[\\x98\\x99]|: | -l\\w)`);
/** The shell's: `sh: 1: foo: not found` (dash), `bash: line 1: foo: command not found`. */
const SHELL_RE = new RegExp(`^${PROG}: (?:line )?\\d+: (?:.*: )?(?:command )?not found\\s*$`);
/** make's own: `make: *** [Makefile:2: all] Error 1`, `make[1]: *** No rule to make target 'x'.  Stop.`, `Makefile:3: *** missing separator.  Stop.` */
const MAKE_RE = new RegExp(`^(?:\\S*make(?:\\[\\d+\\])?|[\\w./-]+:\\d+): \\*\\*\\* `);
/**
 * The linker's: `/usr/bin/ld: big.c:(.text+0xf): undefined reference to 'f'`, `(.text+0x17): undefined reference to
 * 'main'`, `… multiple definition of 'f'; …: first defined here`, `/usr/bin/ld: x.o: undefined reference to symbol
 * 'sqrt@@GLIBC_2.2.5'`; macOS's `Undefined symbols for architecture arm64:`.
 */
const LINKER_RE = new RegExp(
  `^(?:(?:${PROG}: (?:.*: )?)?(?:(?:[^\\s:]+:)?\\([^)\\s]*\\): )?(undefined reference to|multiple definition of) |(Undefined symbols) for architecture )`,
);
/**
 * A build's driver saying it failed, at the start of a line: `collect2: error: ld returned 1 exit status`, `gcc:
 * fatal error: …`, cargo's `error: could not compile 'x' …`, `error: linking with 'cc' failed` (a message of two
 * words or more: a YAML key `error: null` is data).
 */
const DRIVER_RE = new RegExp(`^(?:${PROG}: )?(?:fatal )?error: \\S+\\s+\\S`);
/**
 * How every form begins (a quick test first: most lines, a log's with a date, a row, a path, begin otherwise): a
 * program's name and ": ", a makefile's line (Makefile:3: ***), an object's section ((.text+0x17):,
 * big.c:(.text+0x5):), cargo's `error: `, macOS's `Undefined symbols`.
 */
export const MESSAGE_START = new RegExp(`^(?:${PROG}: |[\\w./-]+:\\d+: \\*\\*\\* |(?:[^\\s:]+:)?\\(|error: |fatal error: |Undefined symbols )`);

/**
 * The words of a program's own message of failure that the line is, as a program prints it from the line's start,
 * error word or not (lower case, a regex that finds the line: "no such file or directory", "cannot access",
 * "undefined reference to", "stop"), or null. Data that holds such words is not one: a diff's `+ls: …`, an
 * indented line, a field named with a capital (`Description: …`), a listing's row, a grep hit (`file:3:…`).
 */
export function failureMessage(line: string): string | null {
  if (!MESSAGE_START.test(line)) return null;
  let text = line.length > 600 ? line.slice(0, 600) : line;
  if (text.endsWith('\r')) text = text.slice(0, -1);
  let m = ERRNO_RE.exec(text);
  if (m) return m[1].toLowerCase();
  if ((m = CANNOT_RE.exec(text))) return `cannot ${m[1]}`;
  if (SHELL_RE.test(text)) return 'not found';
  if (MAKE_RE.test(text)) return /Error \d+/.test(text) ? 'error' : /Stop\.\s*$/.test(text) ? 'stop' : String.raw`\*\*\*`;
  if ((m = LINKER_RE.exec(text))) return (m[1] ?? m[2]).toLowerCase();
  if (DRIVER_RE.test(text)) return 'error';
  return null;
}
