// Why a search was stopped by the watchdog: stuck (catastrophic backtracking: one attempt to match at one
// position of the text never ends, as `(a+)+b` on a run of a's) or only slow (every attempt ends, but each one
// reads the rest of a huge record, as `a+b` on 20 MB of a's: time growing with the square of its length). A
// backtracking engine tries the pattern at each starting position in turn, so progress is measured by offset:
// attempts at a few positions are timed one by one (a sticky copy of the regex), each stopped if it runs away.
import { runWatched, Stalled } from '../watchdog.js';
import { formatBytes, formatCount, formatDuration } from '../units.js';

/** The record the pattern was last tried on (a reference to its text, no copy), for the diagnosis. */
export const lastTried: { n: number; text: string } = { n: 0, text: '' };

/** Attempts timed at the start of the text and spread over it. */
const FIRST_POSITIONS = 8;
const SPREAD_POSITIONS = 8;
/** One attempt taking longer than this is stuck; all the probing stops after PROBE_MS. */
const ATTEMPT_SECONDS = 1;
const PROBE_MS = 2000;

/**
 * An attempt that reads the rest of the line once costs a few ns per character (`a+b`: 2.5 on a loaded machine);
 * one that costs more per character than this backtracks within itself (`(.*a){20}`): catastrophic, not slow.
 */
const LINEAR_NS_PER_CHAR = 200;

export type Diagnosis =
  | { kind: 'stuck'; offset?: number }
  | { kind: 'slow'; perPositionMs: number; estimateSeconds: number }
  | { kind: 'unknown' };

/** Times one attempt of `sticky` at each sample position of text; stuck as soon as one runs away. */
export function diagnose(re: RegExp, text: string): Diagnosis {
  const sticky = new RegExp(re.source, `${re.flags.replace(/[gy]/g, '')}y`);
  const started = performance.now();
  let total = 0;
  let tried = 0;
  let chars = 0; // the rest of the text from each position tried
  for (const at of samplePositions(text.length)) {
    if (performance.now() - started > PROBE_MS) break;
    const t0 = performance.now();
    try {
      runWatched(() => ((sticky.lastIndex = at), sticky.test(text)), ATTEMPT_SECONDS, 'stuck');
    } catch (e) {
      if (e instanceof Stalled) return { kind: 'stuck', offset: at };
      throw e;
    }
    const ms = performance.now() - t0;
    total += ms;
    tried++;
    chars += text.length - at;
  }
  if (tried === 0) return { kind: 'unknown' };
  if ((total * 1e6) / Math.max(1, chars) > LINEAR_NS_PER_CHAR) return { kind: 'stuck' };
  const perPositionMs = total / tried;
  return { kind: 'slow', perPositionMs, estimateSeconds: (perPositionMs * text.length) / 1000 };
}

function samplePositions(length: number): number[] {
  const out = new Set<number>();
  for (let i = 0; i < Math.min(FIRST_POSITIONS, length); i++) out.add(i);
  for (let i = 1; i <= SPREAD_POSITIONS; i++) out.add(Math.floor((length * i) / (SPREAD_POSITIONS + 1)));
  return [...out];
}

/**
 * The message for a search stopped after `seconds`: stuck or slow on record n, and what to do instead. `read`:
 * the command that shows a part of that record.
 */
export function stallMessage(re: RegExp, seconds: number, read: (n: number) => string): string {
  const { n, text } = lastTried;
  const d = n > 0 ? diagnose(re, text) : ({ kind: 'unknown' } as Diagnosis);
  const size = formatBytes(Buffer.byteLength(text));
  if (d.kind === 'slow' && d.estimateSeconds > seconds / 2) {
    return (
      `the pattern is slow on record ${n} (${size} in one line), not stuck: each of its ${formatCount(text.length)} starting ` +
      `positions takes about ${d.perPositionMs.toFixed(d.perPositionMs < 10 ? 1 : 0)} ms (about ${formatDuration(d.estimateSeconds)} in all), ` +
      `stopped after ${seconds} s; use -F for a fixed string, a narrower pattern (no leading unbounded repetition such as a+ or .*), ` +
      `or look at a part of the record: ${read(n)}`
    );
  }
  const at = d.kind === 'stuck' && d.offset !== undefined ? `, stuck at offset ${d.offset}` : '';
  const where = d.kind === 'stuck' ? ` on record ${n} (${size})${at}` : '';
  return `the pattern made no progress for ${seconds} s${where} (catastrophic backtracking?): simplify the pattern (no nested repetition such as (a+)+), or use -F for a fixed string`;
}
