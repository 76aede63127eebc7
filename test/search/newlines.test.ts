// The newline counter: its embedded WebAssembly is exactly newlines.wat assembled, and it counts like a plain loop.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import wabt from 'wabt';
import { countNewlines, NEWLINES_WASM } from '../../src/search/newlines.js';

function plainCount(b: Uint8Array, from: number, to: number): number {
  let c = 0;
  for (let i = from; i < to; i++) if (b[i] === 10) c++;
  return c;
}

describe('countNewlines', () => {
  it('embeds newlines.wat, assembled', async () => {
    const source = readFileSync(resolve(__dirname, '../../src/search/newlines.wat'), 'utf8');
    const w = await wabt();
    const bytes = Buffer.from(w.parseWat('newlines.wat', source, { simd: true }).toBinary({}).buffer);
    expect(bytes.toString('base64')).toBe(NEWLINES_WASM);
  });

  it('counts like a plain loop at every length and offset, and past 255 blocks of 16 (the lane flush)', () => {
    const sizes = [0, 1, 15, 16, 17, 255, 256, 257, 4095, 4096, 4097, 16 * 255, 16 * 255 + 1, 16 * 256 + 7, 100_000, 3_000_003];
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
    for (const size of sizes) {
      const b = Buffer.alloc(size);
      for (let i = 0; i < size; i++) b[i] = rand() % 5 === 0 ? 10 : rand() & 0xff;
      for (const [from, to] of [[0, size], [Math.min(3, size), size], [0, Math.max(0, size - 5)], [Math.floor(size / 3), Math.floor((2 * size) / 3)]]) {
        expect(countNewlines(b, from, to), `${size} [${from}, ${to})`).toBe(plainCount(b, from, to));
      }
    }
    expect(countNewlines(Buffer.alloc(1 << 20, 10))).toBe(1 << 20); // every byte a newline: lanes fill to 255
  });
});
