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
import { ByteScanner, DATA, OUT, WORD_LINES } from '../search/scan.js';

/** Looks for the error words (given as a regex alternation of lower-case ASCII words) in whole lines. */
export class ErrorLines {
  private readonly scanner: ByteScanner;
  private readonly words: string[];

  /** `verify`: false to have every line holding one of the words (the kernel's candidates, unchecked). */
  constructor(
    pattern: string,
    private readonly verify = true,
  ) {
    this.words = pattern.split('|');
    this.scanner = new ByteScanner(64 << 10);
    this.scanner.setWords(this.words);
  }

  /**
   * Calls found(start, end, before, word) for each line of `lines` (whole lines, each ending in \n) that is an
   * error line (see failureWord): the line is lines[start, end), `before` lines come before it, `word` is the
   * error word that makes it one, in lower case (unverified: the first of the words in it). Returns the number of
   * lines.
   */
  scan(lines: Uint8Array, found: (start: number, end: number, before: number, word: string) => void): number {
    const s = this.scanner;
    s.reserve(lines.length);
    s.view.set(lines, DATA);
    const end = DATA + lines.length;
    // (memory grows only in reserve(), so this view stays valid)
    const hits = new Int32Array(s.view.buffer, OUT, WORD_LINES * 4);
    const bytes = Buffer.from(lines.buffer, lines.byteOffset, lines.byteLength);
    let counted = 0; // lines before `from`
    for (let from = DATA; from < end; ) {
      const n = s.wordLines(from, end);
      for (let k = 0; k < n * 4; k += 4) {
        const a = hits[k] - DATA;
        const b = hits[k + 1] - DATA;
        const word = this.verify ? failureWord(bytes.toString('latin1', a, b)) : this.words[hits[k + 3]];
        if (word) found(a, b, counted + hits[k + 2], word);
      }
      counted += s.wordLinesCounted;
      from = s.wordLinesNext;
    }
    return counted;
  }
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
