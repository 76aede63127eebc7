// Gathers many small writes into large ones (a line per record would be a write per record).
import type { Output } from '../io.js';

const FLUSH_AT = 64 << 10;

export class OutputBatch {
  private parts: (string | Uint8Array)[] = [];
  private size = 0;
  /** With `reuse`: one buffer that strings are encoded into, written when full, reused once written. */
  private readonly buffer: Buffer | null;
  private used = 0;

  /**
   * `reuse`: encode strings into one buffer used again and again (for long outputs of many strings, `lro ls
   * --json` over 100,000 results: a fresh buffer per flush is off-heap garbage the collector notices late, about
   * 64 MB of it at a time).
   */
  constructor(
    private readonly out: Output,
    opts: { reuse?: boolean } = {},
  ) {
    this.buffer = opts.reuse && out.writeSettled ? Buffer.allocUnsafe(FLUSH_AT * 2) : null;
  }

  /** Adds data; flushes when enough has gathered (await it for backpressure). */
  async add(data: string | Uint8Array): Promise<void> {
    // at most one of the buffer and the parts holds data at a time, so the order of writes is kept
    if (this.buffer && typeof data === 'string') {
      if (this.size > 0 || this.used + data.length * 3 > this.buffer.length) await this.flush();
      if (data.length * 3 <= this.buffer.length) {
        this.used += this.buffer.write(data, this.used, 'utf8');
        return;
      }
    } else if (this.buffer && this.used > 0) await this.flush();
    this.parts.push(data);
    this.size += data.length;
    if (this.size >= FLUSH_AT) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.buffer && this.used > 0) {
      const n = this.used;
      this.used = 0;
      await this.out.writeSettled!(this.buffer.subarray(0, n));
    }
    if (this.size === 0) return;
    const buf = Buffer.concat(this.parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p)));
    this.parts = [];
    this.size = 0;
    await this.out.write(buf);
  }
}
