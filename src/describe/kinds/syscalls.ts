// strace output: system calls by name, the failed ones (= -1 ENOENT …) by errno. The failed calls are the error
// lines; "error" in a path being opened is not one.
import type { KindFacts, TextSample } from './types.js';
import { bump, most, numbered, scope, topCounts } from './util.js';

/** [pid N] or N (strace -f), a time (-t), the call, its arguments, = its result and errno. */
const CALL = new RegExp(
  String.raw`^(?:\[pid\s+\d+\] |\d+ +)?(?:[\d:.]+ )?([a-z_][a-z0-9_]*)\(.*\)\s+= (-?\d+|\?|0x[0-9a-f]+)(?: (E[A-Z]+))?`,
);
const OTHER = /^(?:\[pid\s+\d+\] |\d+ +)?(?:[\d:.]+ )?(\+\+\+|---|<\.\.\.|[a-z_][a-z0-9_]*\(.*<unfinished \.\.\.>$)/;

export function detectSyscalls(s: TextSample): KindFacts | null {
  const lines = numbered(s.lines);
  if (!most(lines.map((l) => l.text), (t) => CALL.test(t) || OTHER.test(t), 0.9, 5)) return null;
  const calls = new Map<string, number>();
  const errnos = new Map<string, number>();
  const failed: { line: number; text: string }[] = [];
  for (const l of lines) {
    const m = CALL.exec(l.text);
    if (!m) continue;
    bump(calls, m[1]);
    if (m[2] === '-1' && m[3]) {
      bump(errnos, m[3]);
      failed.push({ line: l.n, text: l.text });
    }
  }
  if (calls.size === 0) return null;
  return {
    kind: 'syscalls',
    facts: {
      calls: [...calls.values()].reduce((a, b) => a + b, 0),
      ...scope(s.complete, s.lines.length),
      by_call: topCounts(calls, 8),
      failed: failed.length,
      by_errno: topCounts(errnos, 6),
    },
    errors: 'own',
    errorLines: failed,
    errorCount: failed.length,
    levels: false,
    next: ["lro grep ID ' = -1 E' -c", "lro grep ID ' = -1 E' -m 30"],
  };
}
