// One entry to the kind detectors of text: the first that is sure of its kind answers; none, and the text is a log
// (the descriptor's levels and templates say so) or plain text. Order matters where two could claim the same lines:
// the most specific first (a diff holds paths; a git log holds a diff; a listing is a table). A detector decides
// from the first lines (the sample); most then count their facts over every line (a KindCounter), the others
// describe the sample, and their facts say so (see TextAnalyzer).
import { countDelimited } from './csv.js';
import { countDeb822 } from './deb822.js';
import { countDiagnostics } from './diagnostics.js';
import { countDiff } from './diff.js';
import { countHtml, countSqlDump, detectMinified } from './documents.js';
import { countEnv } from './env.js';
import { countGitLog } from './git-log.js';
import { countHttpTrace } from './http-trace.js';
import { countListing } from './listing.js';
import { countPaths } from './paths.js';
import { countStat } from './stat.js';
import { countSyscalls } from './syscalls.js';
import { countTable } from './table.js';
import { countTestText } from './test-text.js';
import { countYaml } from './yaml.js';
import type { CountingDetector, KindCounter, KindFacts, TextSample } from './types.js';

export type { KindCounter, KindFacts, KindRecipe, TextSample } from './types.js';
export { KIND_LINE_CHARS } from './types.js';

type Detector = { count: CountingDetector } | { describe: (s: TextSample) => KindFacts | null };

const TEXT_DETECTORS: Detector[] = [
  { count: countDiff },
  { count: countGitLog },
  { count: countListing },
  { count: countTestText },
  { count: countHttpTrace },
  { count: countDiagnostics },
  { count: countSyscalls },
  { count: countStat },
  { count: countSqlDump },
  { count: countHtml },
  { describe: detectMinified },
  { count: countEnv },
  { count: countDeb822 },
  { count: countYaml },
  { count: countDelimited },
  { count: countPaths },
  { count: countTable },
];

/**
 * The kind of a text output from its first lines: a counter to feed the lines after them (the kinds counted over
 * the whole output), or the facts of the sample alone (the others), or null (a log or plain text: see the
 * descriptor).
 */
export function startKind(sample: TextSample): { counter: KindCounter } | { facts: KindFacts } | null {
  if (sample.lines.length === 0) return null;
  for (const d of TEXT_DETECTORS) {
    if ('count' in d) {
      const counter = d.count(sample);
      if (counter) return { counter };
    } else {
      const facts = d.describe(sample);
      if (facts) return { facts };
    }
  }
  return null;
}

/** The kind of a text output that is all in the sample (`complete`), or of the sample alone. */
export function detectKind(sample: TextSample): KindFacts | null {
  const k = startKind(sample);
  if (!k) return null;
  return 'facts' in k ? k.facts : k.counter.end(sample.total);
}
