// The lines of a log that look like errors, found on the bytes: the error words are looked for 16 bytes at a time
// by the scan kernel (a Teddy-like search) instead of a case-insensitive regex over a latin1 string of every
// region, which was most of an offload's analysis time (1 GB of logs: 0.9 s). The kernel also finds each line's
// bounds and number (wordLines in scan.wat), so a region costs one call, not four per error line. Same answers:
// the regex /error|fail|...|abort/gi on a latin1 string folds ASCII letters only, as the kernel does.
import { ByteScanner, DATA, OUT, WORD_LINES } from '../search/scan.js';

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
    s.view.set(lines, DATA);
    const end = DATA + lines.length;
    // (memory grows only in reserve(), so this view stays valid)
    const hits = new Int32Array(s.view.buffer, OUT, WORD_LINES * 4);
    let counted = 0; // lines before `from`
    for (let from = DATA; from < end; ) {
      const n = s.wordLines(from, end);
      for (let k = 0; k < n * 4; k += 4) found(hits[k] - DATA, hits[k + 1] - DATA, counted + hits[k + 2], this.words[hits[k + 3]]);
      counted += s.wordLinesCounted;
      from = s.wordLinesNext;
    }
    return counted;
  }
}
