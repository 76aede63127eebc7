// Splits a byte stream into lines for the line-based content types (text, jsonl), with bounded memory:
// complete lines are handed over in large regions; a partial line is carried to the next chunk; a line longer than
// `maxLine` is either streamed in pieces (text) or reported as too long (jsonl).

/** Receives the input cut into lines. Buffers are only valid during the call. */
export interface LineSink {
  /** buf[0, end) holds whole lines, each ending with "\n". */
  lines(buf: Buffer, end: number): void;
  /** A piece of a line too long to hold; `first` on its first piece. Never contains "\n". */
  longPiece?(buf: Buffer, first: boolean): void;
  /** The end of a long line: its last piece (may be empty) and whether a "\n" ended it. */
  longEnd?(buf: Buffer, newline: boolean): void;
}

/** Thrown when a line exceeds maxLine and the sink cannot stream long lines; `pending` holds it so far. */
export class LineTooLong extends Error {
  constructor(readonly pending: Buffer) {
    super('line too long');
  }
}

const NL = 0x0a;
/** Lines are handed over in regions of about this size: small enough that a region's text stays an ordinary
 * (young, quickly collected) string rather than an external one, large enough to amortize the per-region work. */
export const REGION = 64 << 10;

/** Cuts a piece of a long line so it ends on a UTF-8 character boundary and never right after "\r". */
function safeCut(buf: Buffer): number {
  let end = buf.length;
  if (end > 0 && buf[end - 1] === 0x0d) end--;
  // back over continuation bytes to the last lead byte; hold the possibly incomplete sequence back
  let k = end - 1;
  let steps = 0;
  while (k >= 0 && steps < 3 && (buf[k] & 0xc0) === 0x80) {
    k--;
    steps++;
  }
  if (k >= 0 && buf[k] >= 0xc0) return k;
  return end;
}

export class LineChunker {
  private carry: Buffer | null = null; // a partial line kept between pushes (copied)
  private view: Buffer | null = null; // during a push: the input not yet handed to the sink (not copied)
  private long = false;
  private longStarted = false;

  constructor(
    private readonly sink: LineSink,
    private readonly maxLine: number,
  ) {}

  /** Input received but not yet handed to the sink; during a sink call, everything after what it was given. */
  pending(): Buffer {
    return this.view ?? this.carry ?? Buffer.alloc(0);
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    let data = chunk;
    if (this.long) {
      const nl = data.indexOf(NL);
      if (nl === -1) {
        this.emitLongPiece(this.carry ? Buffer.concat([this.carry, data]) : data);
        return;
      }
      const last = this.carry ? Buffer.concat([this.carry, data.subarray(0, nl)]) : data.subarray(0, nl);
      this.carry = null;
      this.long = false;
      this.longStarted = false;
      data = data.subarray(nl + 1);
      this.view = data;
      this.sink.longEnd!(last, true);
    } else if (this.carry) {
      // finish the carried line without copying the whole chunk
      const nl = data.indexOf(NL);
      if (nl === -1) {
        this.carry = Buffer.concat([this.carry, data]);
        this.checkLong();
        return;
      }
      const head = Buffer.concat([this.carry, data.subarray(0, nl + 1)]);
      this.carry = null;
      data = data.subarray(nl + 1);
      this.view = data;
      this.sink.lines(head, head.length);
    }
    const lastNl = data.lastIndexOf(NL);
    let start = 0;
    while (start <= lastNl) {
      let end = lastNl + 1;
      if (end - start > REGION) {
        const cut = data.indexOf(NL, start + REGION);
        end = cut + 1;
      }
      // pending, should the sink throw: everything after this region (the later regions too)
      this.view = data.subarray(end);
      this.sink.lines(start === 0 && end === data.length ? data : data.subarray(start, end), end - start);
      start = end;
    }
    this.view = data.subarray(lastNl + 1);
    const rest = this.view;
    this.view = null;
    this.carry = rest.length > 0 ? Buffer.from(rest) : null; // the caller may reuse chunk's memory
    this.checkLong();
  }

  private checkLong(): void {
    if (!this.carry || this.carry.length <= this.maxLine) return;
    if (!this.sink.longPiece) throw new LineTooLong(this.carry);
    const long = this.carry;
    this.carry = null;
    this.long = true;
    this.emitLongPiece(long);
  }

  /** Ends the input; the final line without "\n" (if any) goes to the sink as a long end or is returned. */
  end(): Buffer | null {
    if (this.long) {
      const last = this.carry ?? Buffer.alloc(0);
      this.carry = null;
      this.long = false;
      this.sink.longEnd!(last, false);
      return null;
    }
    const c = this.carry;
    this.carry = null;
    return c;
  }

  private emitLongPiece(buf: Buffer): void {
    const cut = safeCut(buf);
    if (cut > 0) {
      this.sink.longPiece!(buf.subarray(0, cut), !this.longStarted);
      this.longStarted = true;
    }
    this.carry = cut < buf.length ? Buffer.from(buf.subarray(cut)) : null;
  }
}
