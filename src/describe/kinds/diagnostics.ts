// Compiler and linter diagnostics (tsc, gcc/clang, cargo/rustc, eslint's unix format): errors and warnings
// counted, by file and by code. Here the error lines are errors: the descriptor lists them.
import type { KindFacts, TextSample } from './types.js';
import { bump, scope, topCounts } from './util.js';
import { shellQuote } from '../shell.js';

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

export function detectDiagnostics(s: TextSample): KindFacts | null {
  const files = new Map<string, number>();
  const codes = new Map<string, number>();
  const errorLines: { line: number; text: string }[] = [];
  let errors = 0;
  let warnings = 0;
  s.lines.forEach((l, i) => {
    if (l.length > 600) return;
    for (const form of FORMS) {
      const d = form(l, s.lines[i + 1] ?? '');
      if (!d) continue;
      bump(files, d[0]);
      if (d[2]) bump(codes, d[2]);
      if (d[1] === 'error') {
        errors++;
        errorLines.push({ line: i + 1, text: l });
      } else warnings++;
      break;
    }
  });
  if (errors + warnings < 2) return null;
  const first = errorLines[0];
  return {
    kind: 'diagnostics',
    facts: {
      errors,
      warnings,
      ...scope(s.complete, s.lines.length),
      by_file: topCounts(files, 8),
      by_code: topCounts(codes, 8),
    },
    errors: 'own',
    errorLines,
    errorCount: errors,
    levels: false,
    next: [
      `lro grep ID ${shellQuote(`^${[...files.keys()][0].replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`)}`,
      ...(first ? [`lro read ID --records ${first.line}:${first.line + 10}`] : []),
    ],
  };
}
