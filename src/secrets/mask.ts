// Previews in a descriptor never show a secret: a line (or a record's JSON text) is scanned with all the rules
// and each finding is replaced by `[MASKED:<rule>]` (the stored content keeps it; `--redact` removes it there).
import { SecretScanner } from './stream.js';

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

/** What a preview shows of a line inside a PEM private key block: all of it is key material. */
export const MASKED_KEY_LINE = `[${MASK_LABEL}:private-key]`;

/** The mask the descriptor's text previews use (describe/text-stats.ts). */
export const PREVIEW_MASK = { line: maskSecrets, keyLine: MASKED_KEY_LINE };
