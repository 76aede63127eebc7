// The lines of a log that look like errors, found on the bytes: the error words are looked for 16 bytes at a time
// by the scan kernel (its anyOf(), a Teddy-like search) instead of a case-insensitive regex over a latin1 string
// of every region, which was most of an offload's analysis time (1 GB of logs: 0.9 s). Same answers: the regex
// /error|fail|...|abort/gi on a latin1 string folds ASCII letters only, as the kernel does.
import { ByteScanner, DATA } from '../search/scan.js';

/** Looks for the error words (given as a regex alternation of lower-case ASCII words) in whole lines. */
export class ErrorLines {
  private readonly scanner: ByteScanner;
  private readonly words: string[];

  constructor(pattern: string) {
    this.words = pattern.split('|');
    this.scanner = new ByteScanner(64 << 10);
    this.scanner.setWords(this.words);
  }

  /**
   * Calls found(start, end, before, word) for each line of `lines` (whole lines, each ending in \n) that holds an
   * error word: the line is lines[start, end), `before` lines come before it, `word` is the first error word in
   * it, in lower case. Returns the number of lines.
   */
  scan(lines: Uint8Array, found: (start: number, end: number, before: number, word: string) => void): number {
    const s = this.scanner;
    s.reserve(lines.length);
    const view = s.view;
    view.set(lines, DATA);
    const end = DATA + lines.length;
    let counted = 0; // newlines before `at`, a line start
    let at = DATA;
    for (let p = s.anyOf(DATA, end); p >= 0; ) {
      const lineStart = Math.max(at, view.lastIndexOf(0x0a, p - 1) + 1);
      counted += s.count(at, lineStart);
      at = lineStart;
      const lineEnd = view.indexOf(0x0a, p);
      found(lineStart - DATA, lineEnd - DATA, counted, this.words[s.foundWord]);
      p = lineEnd + 1 < end ? s.anyOf(lineEnd + 1, end) : -1;
    }
    return counted + s.count(at, end);
  }
}
