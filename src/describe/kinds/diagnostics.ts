// Compiler and linter diagnostics (tsc, gcc/clang, cargo/rustc, eslint's unix format): errors and warnings
// counted, by file and by code, over the whole output. Here the error lines are errors: the descriptor lists them.
// The build's other programs failing are errors too, though no compiler diagnostic: the linker's (`undefined
// reference to`, `collect2: error: ld returned 1 exit status`), make's (`make: *** [Makefile:2: all] Error 1`),
// cargo's (`error: could not compile …`), any program's own failure message (`gcc: error: x.c: No such file or
// directory`): a build that failed never says "No error". They count among the errors, not towards being sure of
// the kind (two `ls: cannot access` lines are no compiler's output).
import { failureMessage } from '../error-lines.js';
import { fed, type KindCounter, type KindFacts, type TextSample } from './types.js';
import { estimateNote, FirstLast, TopCounts } from './util.js';

/** A diagnostic line: [file, severity, code] or null. */
const FORMS: ((l: string, next: string) => [string, string, string] | null)[] = [
  // tsc: file(line,col): error TS2322: …   and tsc --pretty: file:line:col - error TS2322: …
  (l) => {
    const m = /^(.+?)(?:\((\d+),(\d+)\)|:(\d+):(\d+)) ?[:-] (error|warning) (TS\d+):/.exec(l);
    return m ? [m[1], m[6], m[7]] : null;
  },
  // gcc, clang, eslint -f unix: file:line:col: error: …
  (l) => {
    const m = /^([^\s:][^:]*):(\d+):(\d+): (error|warning|fatal error): .*?(?:\[([\w/-]+)\])?$/.exec(l);
    return m ? [m[1], m[4] === 'fatal error' ? 'error' : m[4], m[5] ?? ''] : null;
  },
  // rustc/cargo: error[E0308]: … then  --> file:line:col
  (l, next) => {
    const m = /^(error|warning)(?:\[(E\d+|[\w:]+)\])?: /.exec(l);
    const at = /^\s+--> ([^:]+):\d+:\d+/.exec(next);
    return m && at ? [at[1], m[1], m[2] ?? ''] : null;
  },
];

/** Reads each line with the one after it (cargo names the file on the next line), one line behind. */
class DiagnosticsCounter implements KindCounter {
  private readonly files = new TopCounts();
  private readonly codes = new TopCounts();
  private readonly errorLines = new FirstLast<{ line: number; text: string }>(10);
  private firstFile: string | undefined;
  private errors = 0;
  private warnings = 0;
  /** Of the errors, those of the build's other programs (the linker, make, the driver). */
  private failures = 0;
  private held: { text: string; n: number } | null = null;

  line(text: string, n: number): void {
    if (this.held) this.read(this.held.text, this.held.n, text);
    this.held = { text, n };
  }

  private read(l: string, n: number, next: string): void {
    if (l.length > 600) return;
    for (const form of FORMS) {
      const d = form(l, next);
      if (!d) continue;
      this.files.add(d[0]);
      this.firstFile ??= d[0];
      if (d[2]) this.codes.add(d[2]);
      if (d[1] === 'error') {
        this.errors++;
        this.errorLines.push({ line: n, text: l });
      } else this.warnings++;
      return;
    }
    if (!failureMessage(l)) return;
    // (the linker names the source file: big.c:(.text+0x5): undefined reference to …)
    const file = /^(?:\S+: )?([^\s:()]+):\([^)\s]*\): /.exec(l)?.[1];
    if (file) {
      this.files.add(file);
      this.firstFile ??= file;
    }
    this.errors++;
    this.failures++;
    this.errorLines.push({ line: n, text: l });
  }

  sure(): boolean {
    return this.errors - this.failures + this.warnings >= 2;
  }

  end(total = Infinity): KindFacts | null {
    if (this.held) this.read(this.held.text, this.held.n, '');
    this.held = null;
    if (!this.sure()) return null;
    const first = this.errorLines.items()[0];
    // (gcc and tsc start a line with the file; rustc names it on the line after, ` --> src/main.rs:4:30`)
    const grep = this.firstFile ? [['grep', 'ID', `^(\\s*--> )?${this.firstFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[:(]`]] : [];
    return {
      kind: 'diagnostics',
      facts: {
        errors: this.errors,
        warnings: this.warnings,
        by_file: this.files.top(8),
        ...estimateNote('by_file', this.files),
        by_code: this.codes.top(8),
        ...estimateNote('by_code', this.codes),
      },
      errors: 'own',
      errorLines: this.errorLines.items(),
      errorCount: this.errors,
      levels: false,
      // the first error first: what an agent reads of a failed build
      nextCommands: [...(first ? [['read', 'ID', '--records', `${Math.max(1, first.line - 3)}:${Math.max(first.line, Math.min(total, first.line + 10))}`]] : []), ...grep],
    };
  }
}

export function countDiagnostics(s: TextSample): KindCounter | null {
  const c = fed(new DiagnosticsCounter(), s);
  // the sample's last line is read with the line after it, which comes later: it decides nothing
  const probe = fed(new DiagnosticsCounter(), s);
  probe.end();
  return probe.sure() ? c : null;
}
