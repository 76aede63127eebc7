// Previews in a descriptor never show a secret: a line (or a record's JSON text) is scanned with all the rules
// and each finding is replaced by `[MASKED:<rule>]` (the stored content keeps it; `--redact` removes it there).
import { engine, SecretScanner } from './stream.js';

/** The label of a masked span in a preview. */
export const MASK_LABEL = 'MASKED';

/** One line (no line terminator) with its secrets masked; the same bytes when it has none. */
export function maskSecrets(line: Uint8Array): Uint8Array {
  const out: Buffer[] = [];
  const s = new SecretScanner({ emit: (b) => out.push(b), label: MASK_LABEL });
  s.push(Buffer.from(line.buffer, line.byteOffset, line.byteLength));
  s.end();
  return s.total === 0 ? line : Buffer.concat(out);
}

/**
 * Lines (none holding a `\n`) masked each as maskSecrets masks it, in fewer steps: one pass of the keyword
 * automaton over them all finds the lines that hold a rule's keyword (or `-----begin`), and only those are
 * scanned, since a line without one has no finding. The kind detectors' sample is hundreds of lines, and a scanner
 * for each was a fifth of a small offload's time.
 */
export function maskLines(lines: Uint8Array[]): Uint8Array[] {
  const { auto, always } = engine();
  if (always.length > 0) return lines.map(maskSecrets);
  const starts = new Int32Array(lines.length);
  let total = 0;
  for (let i = 0; i < lines.length; i++) {
    starts[i] = total;
    total += lines[i].length + 1;
  }
  const joined = Buffer.allocUnsafe(total);
  for (let i = 0; i < lines.length; i++) {
    joined.set(lines[i], starts[i]);
    joined[starts[i] + lines[i].length] = 0x0a;
  }
  const out = lines.slice();
  let i = 0; // lines are reported in order
  auto.scanLines(joined, 0, total, true, false, (from) => {
    while (starts[i] < from) i++;
    out[i] = maskSecrets(lines[i]);
    return false;
  });
  return out;
}

/** What a preview shows of a line inside a PEM private key block: all of it is key material. */
export const MASKED_KEY_LINE = `[${MASK_LABEL}:private-key]`;

/** The mask the descriptor's text previews use (describe/text-stats.ts). */
export const PREVIEW_MASK = { line: maskSecrets, lines: maskLines, keyLine: MASKED_KEY_LINE };
