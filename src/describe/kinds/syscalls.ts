// strace output: system calls by name, the failed ones (= -1 ENOENT …) by errno, over the whole trace. The failed
// calls are the error lines; "error" in a path being opened is not one.
import { fed, type KindCounter, type KindFacts, type TextSample } from './types.js';
import { estimateNote, FirstLast, most, numbered, TopCounts } from './util.js';

/** [pid N] or N (strace -f), a time (-t), the call, its arguments, = its result and errno. */
const CALL = new RegExp(
  String.raw`^(?:\[pid\s+\d+\] |\d+ +)?(?:[\d:.]+ )?([a-z_][a-z0-9_]*)\(.*\)\s+= (-?\d+|\?|0x[0-9a-f]+)(?: (E[A-Z]+))?`,
);
/** strace -f: a call cut by another process's (counted here), and where its result comes later (counted there). */
const UNFINISHED = /^(?:\[pid\s+\d+\] |\d+ +)?(?:[\d:.]+ )?([a-z_][a-z0-9_]*)\(.*<unfinished \.\.\.>$/;
const RESUMED = /^(?:\[pid\s+\d+\] |\d+ +)?(?:[\d:.]+ )?<\.\.\. ([a-z_][a-z0-9_]*) resumed>.*\)\s+= (-?\d+|\?|0x[0-9a-f]+)(?: (E[A-Z]+))?/;
const OTHER = /^(?:\[pid\s+\d+\] |\d+ +)?(?:[\d:.]+ )?(\+\+\+|---|<\.\.\.|[a-z_][a-z0-9_]*\(.*<unfinished \.\.\.>$)/;

class SyscallCounter implements KindCounter {
  private readonly calls = new TopCounts();
  private readonly errnos = new TopCounts();
  private readonly failed = new FirstLast<{ line: number; text: string }>(10);
  private total = 0;

  line(text: string, n: number): void {
    let m = CALL.exec(text);
    if (m) {
      this.total++;
      this.calls.add(m[1]);
    } else if (text.endsWith('<unfinished ...>')) {
      const u = UNFINISHED.exec(text);
      if (u) {
        this.total++;
        this.calls.add(u[1]);
      }
      return;
    } else if (!(m = RESUMED.exec(text))) return;
    if (m[2] === '-1' && m[3]) {
      this.errnos.add(m[3]);
      this.failed.push({ line: n, text });
    }
  }

  end(): KindFacts | null {
    if (this.total === 0) return null;
    return {
      kind: 'syscalls',
      facts: {
        calls: this.total,
        by_call: this.calls.top(8),
        ...estimateNote('by_call', this.calls),
        failed: this.failed.count,
        by_errno: this.errnos.top(6),
        ...estimateNote('by_errno', this.errnos),
      },
      errors: 'own',
      errorLines: this.failed.items(),
      errorCount: this.failed.count,
      levels: false,
      nextCommands: [['grep', 'ID', ' = -1 E', '-c'], ['grep', 'ID', ' = -1 E', '-m', '30']],
    };
  }
}

export function countSyscalls(s: TextSample): KindCounter | null {
  const lines = numbered(s.lines);
  if (!most(lines.map((l) => l.text), (t) => CALL.test(t) || OTHER.test(t), 0.9, 5)) return null;
  if (!lines.some((l) => CALL.test(l.text))) return null;
  return fed(new SyscallCounter(), s);
}
