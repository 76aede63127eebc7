// Gathers many small writes into large ones (a line per record would be a write per record).
import type { Output } from '../io.js';

const FLUSH_AT = 64 << 10;

export class OutputBatch {
  private parts: (string | Uint8Array)[] = [];
  private size = 0;

  constructor(private readonly out: Output) {}

  /** Adds data; flushes when enough has gathered (await it for backpressure). */
  async add(data: string | Uint8Array): Promise<void> {
    this.parts.push(data);
    this.size += data.length;
    if (this.size >= FLUSH_AT) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.size === 0) return;
    const buf = Buffer.concat(this.parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p)));
    this.parts = [];
    this.size = 0;
    await this.out.write(buf);
  }
}
