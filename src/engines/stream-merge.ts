// Two output streams of a command (stdout, stderr) merged into one input, line by line in the order the lines
// arrived, noting which record (line) came from stderr. A stream in the middle of a line keeps the merged output
// until it ends that line: the other stream's bytes wait meanwhile, so no line is ever cut into by the other
// stream. A line belongs to the stream that began it; a stream that ends without a final newline has what the other
// prints next joined to its last line (as `2>&1` into a file would give).
import { countNewlines } from '../kernel/scan.js';
import { formatRuns, parseRuns, RunBuilder, type StreamFields, type StreamName } from '../format/streams.js';

const other = (s: StreamName): StreamName => (s === 'stdout' ? 'stderr' : 'stdout');
/** Bytes merged but not yet taken above which the producer is asked to pause (see push). */
const QUEUE_LIMIT = 4 << 20;
/** Waiting buffers taken together, up to about this many bytes. */
const TAKE_BYTES = 1 << 20;
/**
 * Bytes of a stream held while the other stays in the middle of a line, above which they go out anyway, into that
 * line (a progress bar redrawn with \r on stderr while stdout prints a build log would else hold the whole log in
 * memory): memory stays bounded, and that one record, begun by the other stream, holds bytes of both.
 */
export const HELD_LIMIT = 8 << 20;

export class StreamMerger implements AsyncIterable<Buffer> {
  private owner: StreamName | null = null;
  private readonly held: Record<StreamName, Buffer[]> = { stdout: [], stderr: [] };
  private readonly heldBytes: Record<StreamName, number> = { stdout: 0, stderr: 0 };
  private readonly open: Record<StreamName, boolean> = { stdout: true, stderr: true };
  /** Merged bytes not yet taken: out[taken..] (an index, not shift(): a long queue must not cost its length). */
  private out: Buffer[] = [];
  private taken = 0;
  private wake: (() => void) | null = null;
  /** Lines completed in the merged output so far. */
  private lines = 0;
  private readonly stderr = new RunBuilder();
  /** Bytes per stream (stderr only when merged). */
  readonly bytes: Record<StreamName, number> = { stdout: 0, stderr: 0 };
  private queued = 0;
  private resume: (() => void) | null = null;

  /**
   * Adds a chunk of stream s (kept as it is: the caller must not reuse its buffer). Returns false when the merged output is
   * not taken as fast as it comes: the caller pauses its streams until `onDrain` is called.
   */
  push(s: StreamName, chunk: Buffer): boolean {
    if (chunk.length === 0) return true;
    this.bytes[s] += chunk.length;
    if (this.owner !== null && this.owner !== s) {
      this.held[s].push(chunk);
      this.heldBytes[s] += chunk.length;
      if (this.heldBytes[s] > HELD_LIMIT) {
        this.owner = null; // the other's line is taken as ended for who goes next (see HELD_LIMIT)
        this.release(s);
      }
    } else this.emit(s, chunk);
    this.signal();
    return this.queued < QUEUE_LIMIT;
  }

  /** Calls `resume` once the queue has drained after a push returned false. */
  onDrain(resume: () => void): void {
    this.resume = resume;
  }

  /** Stream s has ended: its unfinished line, if any, gives way to the other stream. */
  end(s: StreamName): void {
    this.open[s] = false;
    if (this.owner === s) {
      this.owner = null;
      this.release(other(s));
    }
    if (!this.open.stdout && !this.open.stderr) {
      // both ended: whatever still waits goes out in order of arrival
      for (const t of ['stdout', 'stderr'] as const) this.release(t);
    }
    this.signal();
  }

  /** The stream information for the header, once both streams have ended. */
  fields(): StreamFields {
    return { stderr_lines: this.stderr.count, stderr_records: formatRuns(this.stderr.runs) };
  }

  /** Which stream each line of `merged` (the merged output, or its first bytes) came from. */
  splitLines(merged: Buffer): Record<StreamName, Buffer> {
    const parts: Record<StreamName, Buffer[]> = { stdout: [], stderr: [] };
    for (const [s, b] of this.segments(merged)) parts[s].push(b);
    return { stdout: Buffer.concat(parts.stdout), stderr: Buffer.concat(parts.stderr) };
  }

  /**
   * `merged` cut where it passes from one stream to the other, in order: written so to stdout and stderr, a
   * small output keeps the order it came in (as 2>&1 into one terminal or file shows it).
   */
  segments(merged: Buffer): [StreamName, Buffer][] {
    const out: [StreamName, Buffer][] = [];
    const runs = this.stderr.runs;
    let run = 0;
    let n = 1;
    let from = 0;
    let current: StreamName = 'stdout';
    for (let at = 0; at < merged.length; n++) {
      const nl = merged.indexOf(0x0a, at);
      const end = nl < 0 ? merged.length : nl + 1;
      while (run < runs.length && runs[run][1] < n) run++;
      const s: StreamName = run < runs.length && runs[run][0] <= n ? 'stderr' : 'stdout';
      if (s !== current) {
        if (at > from) out.push([current, merged.subarray(from, at)]);
        current = s;
        from = at;
      }
      at = end;
    }
    if (merged.length > from) out.push([current, merged.subarray(from)]);
    return out;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    for (;;) {
      if (this.taken < this.out.length) {
        // what waits is taken at once, as one buffer: a command that prints a line at a time is read as it prints
        // (the order of its two streams is seen as it comes) only if the reader keeps up, and a buffer per line
        // costs the offload a step each
        let b = this.out[this.taken++];
        if (this.taken < this.out.length) {
          const parts = [b];
          let size = b.length;
          while (this.taken < this.out.length && size < TAKE_BYTES) size += (parts[parts.length] = this.out[this.taken++]).length;
          b = Buffer.concat(parts, size);
        }
        if (this.taken === this.out.length) {
          this.out = [];
          this.taken = 0;
        }
        this.queued -= b.length;
        if (this.queued < QUEUE_LIMIT / 2) this.resume?.();
        yield b;
        continue;
      }
      if (!this.open.stdout && !this.open.stderr) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private signal(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  /** Writes chunk of stream s (which owns the output or nobody does), line by line, letting waiting lines in. */
  private emit(s: StreamName, chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.owner === null) {
        this.owner = s;
        if (s === 'stderr') this.stderr.add(this.lines + 1);
      }
      if (this.held[other(s)].length === 0) {
        at = this.emitLines(s, chunk, at);
        continue;
      }
      const nl = chunk.indexOf(0x0a, at);
      if (nl < 0) {
        this.put(chunk.subarray(at));
        return;
      }
      this.put(chunk.subarray(at, nl + 1));
      this.lines++;
      this.owner = null;
      at = nl + 1;
      if (this.held[other(s)].length === 0) continue;
      this.release(other(s));
      if (this.owner !== null && at < chunk.length) {
        // the other stream is now in the middle of a line: the rest of this chunk waits, first in line
        this.held[s].unshift(chunk.subarray(at));
        this.heldBytes[s] += chunk.length - at;
        return;
      }
    }
  }

  /**
   * Nothing waits: every whole line of chunk[at..] goes out in one piece (the usual case, so a large output is not
   * cut into a buffer per line), the stderr ones noted; returns where the unfinished last line starts.
   */
  private emitLines(s: StreamName, chunk: Buffer, at: number): number {
    const last = chunk.lastIndexOf(0x0a);
    if (last < at) {
      this.put(chunk.subarray(at));
      return chunk.length;
    }
    const lines = countNewlines(chunk, at, last); // the scan kernel: a tenth of the time of an indexOf loop
    // lines + 1 lines end here; each but the first began in this chunk
    if (s === 'stderr') for (let k = 2; k <= lines + 1; k++) this.stderr.add(this.lines + k);
    this.lines += lines + 1;
    this.owner = null;
    this.put(chunk.subarray(at, last + 1));
    return last + 1;
  }

  private put(b: Buffer): void {
    this.out.push(b);
    this.queued += b.length;
  }

  /** Writes the waiting chunks of stream s, as long as nobody else is in the middle of a line. */
  private release(s: StreamName): void {
    const held = this.held[s];
    while (held.length && (this.owner === null || this.owner === s)) {
      const chunk = held.shift()!;
      this.heldBytes[s] -= chunk.length;
      this.emit(s, chunk);
    }
  }
}

/**
 * A merged output kept within `maxBytes`: its first bytes (to the end of the line that passes `maxBytes -
 * tailBytes`, or 1 MB past it at most) go on as they come; after them only the last `tailBytes` are held, in
 * memory, and go on at the end, from the first line that begins among them. What is between is dropped and
 * counted, so a command that never stops printing cannot fill the disk (`lro run --max-bytes`).
 */
export class HeadAndTail implements AsyncIterable<Buffer> {
  /** Lines (newlines) in the head, and bytes and lines dropped after it (0 while nothing was). */
  headLines = 0;
  headBytes = 0;
  droppedBytes = 0;
  droppedLines = 0;
  tailBytes = 0;
  private readonly tail: Buffer[] = [];
  private held = 0;
  /** Settled once the output has been taken to its end (the figures above are final then). */
  readonly done: Promise<void>;
  private finished!: () => void;

  constructor(
    private readonly source: AsyncIterable<Buffer>,
    readonly maxBytes: number,
    private readonly keepTail: number = Math.min(TAIL_BYTES, Math.floor(maxBytes / 4)),
  ) {
    this.done = new Promise((resolve) => (this.finished = resolve));
  }

  /** Whether anything was dropped. */
  get cut(): boolean {
    return this.droppedBytes > 0;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    try {
      yield* this.take();
    } finally {
      this.finished();
    }
  }

  private async *take(): AsyncGenerator<Buffer> {
    // the head may go on to the end of its last line, by at most `slack` bytes the tail then gives up: no more
    // than maxBytes in all
    const slack = Math.min(LINE_SLACK, Math.floor(this.keepTail / 8));
    const headLimit = this.maxBytes - this.keepTail;
    let inHead = true;
    for await (const chunk of this.source) {
      if (inHead) {
        const room = headLimit - this.headBytes;
        if (chunk.length <= room) {
          yield this.head(chunk);
          continue;
        }
        // the head ends at the end of the line that passes its limit, if that comes soon
        const nl = chunk.indexOf(0x0a, Math.max(0, room));
        const end = nl >= 0 && nl - room < slack ? nl + 1 : Math.max(0, room);
        if (end > 0) yield this.head(chunk.subarray(0, end));
        inHead = false;
        this.keep(chunk.subarray(end));
      } else this.keep(chunk);
    }
    if (inHead) return;
    // the tail from the first line that begins in it (the bytes before are the end of a dropped line)
    let rest = Buffer.concat(this.tail, this.held);
    const room = this.maxBytes - this.headBytes;
    if (rest.length > room) {
      this.drop(rest.subarray(0, rest.length - room));
      rest = rest.subarray(rest.length - room);
    }
    if (this.droppedBytes > 0) {
      const nl = rest.indexOf(0x0a);
      if (nl >= 0 && nl < rest.length - 1) {
        this.drop(rest.subarray(0, nl + 1));
        rest = rest.subarray(nl + 1);
      }
    }
    this.tailBytes = rest.length;
    if (rest.length) yield rest;
  }

  /**
   * Stream information of the whole output for what was kept: stderr records among the dropped lines go, those
   * after them are renumbered.
   */
  keptFields(f: StreamFields): StreamFields {
    if (!this.cut) return f;
    const from = this.headLines; // lines up to here kept as they are
    const gap = this.droppedLines;
    const runs: [number, number][] = [];
    let count = 0;
    for (const [a, b] of parseRuns(f.stderr_records, Number.MAX_SAFE_INTEGER)) {
      for (const [x, y] of [
        [a, Math.min(b, from)],
        [Math.max(a, from + gap + 1) - gap, b - gap],
      ]) {
        if (y < x) continue;
        const last = runs[runs.length - 1];
        if (last && last[1] === x - 1) last[1] = y;
        else runs.push([x, y]);
        count += y - x + 1;
      }
    }
    return { stderr_lines: count, stderr_records: formatRuns(runs) };
  }

  private head(b: Buffer): Buffer {
    this.headBytes += b.length;
    this.headLines += countNewlines(b, 0, b.length);
    return b;
  }

  /** Holds b in the tail, dropping the oldest chunks the tail no longer needs. */
  private keep(b: Buffer): void {
    if (b.length === 0) return;
    this.tail.push(b);
    this.held += b.length;
    while (this.tail.length > 1 && this.held - this.tail[0].length >= this.keepTail) {
      const old = this.tail.shift()!;
      this.held -= old.length;
      this.drop(old);
    }
    if (this.tail.length === 1 && this.held > 2 * this.keepTail) {
      // one huge chunk: only its end is held
      const only = this.tail[0];
      this.drop(only.subarray(0, only.length - this.keepTail));
      this.tail[0] = only.subarray(only.length - this.keepTail);
      this.held = this.keepTail;
    }
  }

  private drop(b: Buffer): void {
    this.droppedBytes += b.length;
    this.droppedLines += countNewlines(b, 0, b.length);
  }
}

/** The tail held at most (memory), and how far past the head's limit its last line may go to end there. */
const TAIL_BYTES = 16 << 20;
const LINE_SLACK = 1 << 20;
