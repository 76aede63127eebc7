// `--redact`: the input with every secret replaced by `[REDACTED:<rule>]`, as it streams in, before anything else
// sees it (the passthrough, the encoder, the hash, the token count, the descriptor). Lines come out whole, so the
// output lags the input by at most a line (and a PEM block being gathered).
import { SecretScanner } from './stream.js';

/** A whole text redacted at once (what passes through the MCP proxy below the threshold). */
export async function redactText(text: string): Promise<string> {
  const parts: Buffer[] = [];
  for await (const p of new Redaction().apply((async function* () {
    yield Buffer.from(text, 'utf8');
  })())) parts.push(p);
  return Buffer.concat(parts).toString('utf8');
}

/** A redacting pass over an input; `counts` holds the replacements per rule once the input has been read. */
export class Redaction {
  private readonly scanner = new SecretScanner({ emit: (piece) => this.pieces.push(piece) });
  private pieces: Buffer[] = [];

  /** Replacements per rule id, sorted by id. */
  get counts(): Record<string, number> {
    return Object.fromEntries(Object.entries(this.scanner.counts).sort(([a], [b]) => (a < b ? -1 : 1)));
  }

  /** Whether anything was replaced. */
  get redacted(): boolean {
    return this.scanner.total > 0;
  }

  /** The input, redacted. */
  async *apply(input: AsyncIterator<Uint8Array>): AsyncGenerator<Buffer> {
    for (let r = await input.next(); !r.done; r = await input.next()) {
      const chunk = Buffer.from(r.value.buffer, r.value.byteOffset, r.value.byteLength);
      this.scanner.push(chunk);
      const out = this.take();
      if (out) yield out;
    }
    this.scanner.end();
    const out = this.take();
    if (out) yield out;
  }

  /**
   * What the scanner emitted since the last call: one view when the pieces follow each other in one buffer (the
   * scanner keeps no view of what it emitted), else a copy.
   */
  private take(): Buffer | null {
    const pieces = this.pieces;
    this.pieces = [];
    if (pieces.length === 0) return null;
    const first = pieces[0];
    let end = first.byteOffset + first.length;
    for (let i = 1; i < pieces.length; i++) {
      if (pieces[i].buffer !== first.buffer || pieces[i].byteOffset !== end) return Buffer.concat(pieces);
      end += pieces[i].length;
    }
    return Buffer.from(first.buffer, first.byteOffset, end - first.byteOffset);
  }
}
