// Progress on stderr for long work (offloading more than ~50 MB, gc over a large store): one line rewritten in
// place with \r and cleared at the end. Only on a terminal, and never with NO_COLOR or CI set: a log file, a CI
// job or an agent reading stderr would otherwise collect every rewrite. Cheap enough to call on every chunk: the
// line is redrawn at most a few times a second, and not at all until the work is big or slow enough to need it.
import type { IO } from '../io.js';
import { formatBytes, formatCount } from '../units.js';

/** The bytes after which offloading shows progress (smaller inputs finish before anyone would look). */
export const PROGRESS_BYTES = 50 << 20;

/** How a progress line counts and when it starts. */
export interface ProgressOptions {
  /** 'bytes' shows a size and a rate (the default); 'items' shows a count, e.g. files scanned. */
  unit?: 'bytes' | 'items';
  /** Nothing is shown before the total reaches this (default: 50 MB for bytes, 0 for items). */
  showAfter?: number;
  /** Nothing is shown before this many ms have passed (default: 0 for bytes, 1000 for items). */
  delayMs?: number;
  /** Least time between two redraws, in ms (default 250). */
  intervalMs?: number;
  /** The clock in ms; default io.now() (tests pass a fake one). */
  clock?: () => number;
}

/** A progress line: feed it totals, end it with done(). */
export interface Progress {
  /** Reports the total so far (not an increment); redraws the line when it is due. */
  update(total: number): void;
  /** Clears the line if one was drawn; call it once when the work ends, also on failure, before printing anything. */
  done(): void;
}

const SILENT: Progress = { update: () => undefined, done: () => undefined };

/** Whether progress may be shown: stderr is a terminal (not TERM=dumb), and neither NO_COLOR nor CI is set. */
export function progressAllowed(io: Pick<IO, 'stderr' | 'env'>): boolean {
  const env = io.env;
  const set = (v: string | undefined) => v !== undefined && v !== '';
  return io.stderr.isTTY && !set(env.NO_COLOR) && !set(env.CI) && env.TERM !== 'dumb';
}

/**
 * A progress line on stderr labelled `label` (e.g. "lro: offloading"), or one that does nothing when progress is
 * not allowed (see progressAllowed). Example for gc: `const p = createProgress(io, 'lro gc: scanned', { unit:
 * 'items' }); for (...) p.update(++n); p.done();`
 */
export function createProgress(io: Pick<IO, 'stderr' | 'env' | 'now'>, label: string, opts: ProgressOptions = {}): Progress {
  if (!progressAllowed(io)) return SILENT;
  const bytes = (opts.unit ?? 'bytes') === 'bytes';
  const showAfter = opts.showAfter ?? (bytes ? PROGRESS_BYTES : 0);
  const interval = opts.intervalMs ?? 250;
  const clock = opts.clock ?? (() => io.now().getTime());
  const start = clock();
  let due = start + (opts.delayMs ?? (bytes ? 0 : 1000));
  let drawn = false;
  let finished = false;
  const write = (s: string) => void io.stderr.write(s).catch(() => undefined); // progress never fails the work
  return {
    update(total) {
      if (finished || total < showAfter) return;
      const now = clock();
      if (now < due) return;
      due = now + interval;
      let text = `${label} ${bytes ? formatBytes(total) : formatCount(total)}`;
      const seconds = (now - start) / 1000;
      if (bytes && seconds >= 0.5) text += `, ${formatBytes(Math.round(total / seconds))}/s`;
      write(`\r${text}\x1b[K`);
      drawn = true;
    },
    done() {
      if (finished) return;
      finished = true;
      if (drawn) write('\r\x1b[K');
    },
  };
}
