// One entry to the kind detectors of text: the first that is sure of its kind answers; none, and the text is a log
// (the descriptor's levels and templates say so) or plain text. Order matters where two could claim the same lines:
// the most specific first (a diff holds paths; a git log holds a diff; a listing is a table).
import { detectDelimited } from './csv.js';
import { detectDiagnostics } from './diagnostics.js';
import { detectDiff } from './diff.js';
import { detectHtml, detectMinified, detectSqlDump } from './documents.js';
import { detectEnv } from './env.js';
import { detectGitLog } from './git-log.js';
import { detectListing } from './listing.js';
import { detectPaths } from './paths.js';
import { detectSyscalls } from './syscalls.js';
import { detectTable } from './table.js';
import { detectTestText } from './test-text.js';
import type { KindFacts, TextSample } from './types.js';

export type { KindFacts, KindRecipe, TextSample } from './types.js';

const TEXT_DETECTORS = [
  detectDiff,
  detectGitLog,
  detectListing,
  detectTestText,
  detectDiagnostics,
  detectSyscalls,
  detectSqlDump,
  detectHtml,
  detectMinified,
  detectEnv,
  detectDelimited,
  detectPaths,
  detectTable,
];

/** The kind of a text output from its first lines, or null (a log or plain text: see the descriptor). */
export function detectKind(sample: TextSample): KindFacts | null {
  if (sample.lines.length === 0) return null;
  for (const detect of TEXT_DETECTORS) {
    const k = detect(sample);
    if (k) return k;
  }
  return null;
}
