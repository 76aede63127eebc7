// The descriptor's word on the two streams of a `lro run` result (format/streams.ts): how many lines came from
// stderr and how to read them alone. Kept apart so the descriptor needs one call to it.
import type { Header } from '../format/header.js';
import { formatCount } from '../units.js';
import type { Say } from './commands.js';

/**
 * One sentence for the guidance, or '' when nothing came from stderr (or the result has no stream information);
 * `say` gives a command's line (and keeps the command among those the descriptor names).
 */
export function streamsNote(h: Header, say: Say): string {
  const n = h.stderr_lines ?? 0;
  if (n === 0) return '';
  const lines = n === 1 ? '1 line' : `${formatCount(n)} lines`;
  return (
    `${lines} of ${formatCount(h.count)} came from stderr (stored with stdout in the order printed): ` +
    `\`${say(['read', h.id, '--stream', 'stderr'])}\`, \`${say(['grep', h.id, 'PATTERN', '--stream', 'stderr'])}\`; ` +
    `\`${say(['cat', h.id])}\` gives stdout alone, --stream both as printed. `
  );
}
