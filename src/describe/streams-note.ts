// The descriptor's word on the two streams of a `lro run` result (format/streams.ts): how many lines came from
// stderr and how to read them alone. Kept apart so the descriptor needs one call to it.
import type { Header } from '../format/header.js';
import { formatCount } from '../units.js';

/** One sentence for the guidance, or '' when nothing came from stderr (or the result has no stream information). */
export function streamsNote(h: Header): string {
  const n = h.stderr_lines ?? 0;
  if (n === 0) return '';
  const lines = n === 1 ? '1 line' : `${formatCount(n)} lines`;
  return (
    `${lines} of ${formatCount(h.count)} came from stderr (stored with stdout in the order printed): ` +
    `\`lro read ${h.id} --stream stderr\`, \`lro grep ${h.id} PATTERN --stream stderr\`; ` +
    `\`lro cat ${h.id}\` gives stdout alone, --stream both as printed. `
  );
}
