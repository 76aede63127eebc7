// Content type `binary` (input that is not text): records are JSON strings of base64, one per 3 KiB of input.
import { OutBuffer, type Encoder, type RecordSink } from './encoder.js';
import type { Layout } from './header.js';

/** Input bytes per record; a multiple of 3, so every record is whole base64 without padding but the last. */
export const BINARY_CHUNK = 3072;

export class BinaryRecordEncoder implements Encoder {
  private readonly out: OutBuffer;
  private block = Buffer.allocUnsafe(BINARY_CHUNK);
  private fill = 0;
  private count = 0;

  constructor(sink: RecordSink) {
    this.out = new OutBuffer(sink);
  }

  push(chunk: Buffer): void {
    let i = 0;
    if (this.fill > 0) {
      const take = Math.min(BINARY_CHUNK - this.fill, chunk.length);
      chunk.copy(this.block, this.fill, 0, take);
      this.fill += take;
      i = take;
      if (this.fill < BINARY_CHUNK) return;
      this.record(this.block);
      this.fill = 0;
    }
    for (; i + BINARY_CHUNK <= chunk.length; i += BINARY_CHUNK) this.record(chunk.subarray(i, i + BINARY_CHUNK));
    chunk.copy(this.block, 0, i);
    this.fill = chunk.length - i;
  }

  end(): Layout {
    if (this.fill > 0) this.record(this.block.subarray(0, this.fill));
    this.fill = 0;
    this.out.flush();
    return this.progress();
  }

  progress(): Layout {
    return { content_type: 'binary', count: this.count };
  }

  private record(bytes: Buffer): void {
    const b64 = bytes.toString('base64');
    const out = this.out;
    out.ensure(b64.length + 3);
    out.byte(0x22);
    out.pos += out.buf.write(b64, out.pos, 'latin1');
    out.byte(0x22);
    out.byte(0x0a);
    this.count++;
  }
}

/** Rebuilds the original bytes of one binary record. */
export function decodeBinaryRecord(line: Uint8Array): Buffer {
  const s = Buffer.from(line.buffer, line.byteOffset, line.length).toString('latin1');
  if (s.length < 2 || s[0] !== '"' || s[s.length - 1] !== '"') throw new Error('binary record is not a base64 string');
  return Buffer.from(s.slice(1, -1), 'base64');
}
