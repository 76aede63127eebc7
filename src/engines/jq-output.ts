// jq's standard output as it is written (the patched glue hands lro each write, see scripts/build-jq.mjs), so a
// call of the engine can be stopped as soon as its output is known not to fit the budget: a filter with ten
// million outputs, or one enormous line, costs what a budget's worth of output costs, not the whole of it.
import type { OutputBudget } from '../budget.js';

/** Thrown from inside a call of jq to end it: the output already decided what happens next. */
export class StopJq extends Error {
  constructor(readonly inputRead: number) {
    super('lro stopped jq: its output was past the budget');
  }
}

/** Where a call of jq reports each write of its stdout: the bytes, and how far it has read its input. */
export type StdoutWatch = (bytes: Uint8Array, inputAt: () => number) => void;

/**
 * The output of a batch of several records, kept whole while it may still fit the budget; the call is stopped
 * as soon as it does not (the batch is then split, as a complete output that does not fit would be). Checked when
 * its size doubles, from the budget's size in bytes on (tokens are never more than bytes): linear in all.
 */
export class TrialOutput {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  private nextCheck: number;

  constructor(private readonly budget: OutputBudget) {
    this.nextCheck = budget.unlimited ? Infinity : budget.max;
  }

  readonly watch: StdoutWatch = (bytes, inputAt) => {
    this.chunks.push(Buffer.from(bytes)); // a copy: the view is jq's memory
    this.bytes += bytes.length;
    if (this.bytes < this.nextCheck) return;
    if (!this.budget.fits(this.text())) throw new StopJq(inputAt());
    this.nextCheck = this.bytes * 2;
  };

  text(): string {
    return Buffer.concat(this.chunks, this.bytes).toString('utf8');
  }
}

/**
 * A line still being written is first checked at this size: a shorter one is taken whole, so the message about
 * a line too long for the budget gives its exact size (and the same start) as for a complete line.
 */
const LONG_LINE_BYTES = 1 << 20;

/** An output cut at a line: the lines before it (skipped or printed), and the line (its start, if `partial`). */
export type Cut = { consumed: number; line: string; partial: boolean };

/**
 * Output lines taken into the budget as jq writes them (the lines to skip first), the call stopped at the first
 * line that does not fit. Lines end with a newline as jq's do (the last one gets one); with -j the whole output
 * is one line. A line still being written is checked when it doubles from LONG_LINE_BYTES on, so one endless line
 * stops too.
 */
export class BudgetedLines {
  /** The lines taken, to print. */
  readonly taken: string[] = [];
  cut: Cut | null = null;
  private consumed = 0;
  /** The line being written (bytes), when it is not skipped. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private skippingLine = false;
  private readonly firstCheck: number;
  private nextCheck: number;

  constructor(
    private readonly budget: OutputBudget,
    /** Lines still to skip, shared by the calls of one run. */
    private readonly skip: { lines: number },
    private readonly joined: boolean,
  ) {
    this.firstCheck = budget.unlimited ? Infinity : Math.max(LONG_LINE_BYTES, 64 * budget.max);
    this.nextCheck = this.firstCheck;
  }

  readonly watch: StdoutWatch = (bytes, inputAt) => {
    if (!this.write(bytes)) throw new StopJq(inputAt());
  };

  /** Bytes of the output; false once it is cut. */
  write(bytes: Uint8Array): boolean {
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    let start = 0;
    for (let nl = this.joined ? -1 : buf.indexOf(10); nl >= 0; nl = buf.indexOf(10, start)) {
      this.keep(buf, start, nl + 1);
      if (!this.lineEnded()) return false;
      start = nl + 1;
    }
    this.keep(buf, start, buf.length);
    return this.partialFits();
  }

  /** A whole output (of a call that was not watched line by line); false once it is cut. */
  text(s: string): boolean {
    return this.write(Buffer.from(s));
  }

  /** Bytes of an output known not to fit (a call stopped past the budget): false once cut, checked now. */
  writeStopped(bytes: Uint8Array): boolean {
    if (!this.write(bytes)) return false;
    this.nextCheck = 0;
    return this.partialFits();
  }

  /** The end of the output: its last line, if it had no newline. */
  end(): boolean {
    if (this.pendingBytes === 0 && !this.skippingLine) return true;
    return this.joined ? this.lineEnded() : this.lineEnded('\n');
  }

  private keep(buf: Buffer, from: number, to: number): void {
    if (to <= from) return;
    if (this.pendingBytes === 0 && !this.skippingLine && this.skip.lines > 0) this.skippingLine = true;
    if (this.skippingLine) return; // a line to skip is not kept, however long
    this.pending.push(Buffer.from(buf.subarray(from, to))); // a copy: the bytes are jq's memory
    this.pendingBytes += to - from;
  }

  /** The line written so far is complete; false if it does not fit. */
  private lineEnded(suffix = ''): boolean {
    if (this.skippingLine) {
      this.skippingLine = false;
      this.skip.lines--;
      this.consumed++;
      return true;
    }
    const line = this.pendingText() + suffix;
    this.pending = [];
    this.pendingBytes = 0;
    this.nextCheck = this.firstCheck;
    if (!this.budget.take(line)) {
      this.cut = { consumed: this.consumed, line, partial: false };
      return false;
    }
    this.taken.push(line);
    this.consumed++;
    return true;
  }

  /** Whether the line still being written can fit (a start that does not fit cuts the output there). */
  private partialFits(): boolean {
    if (this.pendingBytes < this.nextCheck) return true;
    const start = this.pendingText();
    if (this.budget.fits(start)) {
      this.nextCheck = this.pendingBytes * 2;
      return true;
    }
    this.cut = { consumed: this.consumed, line: start, partial: true };
    return false;
  }

  private pendingText(): string {
    return Buffer.concat(this.pending, this.pendingBytes).toString('utf8');
  }
}
