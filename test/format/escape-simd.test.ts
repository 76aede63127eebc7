// The text record kernel: its embedded WebAssembly is exactly escape.wat assembled, and it writes the records
// escape.ts writes, for every byte value, at every length and alignment, with LF and CRLF line endings.
import { describe, expect, it } from 'vitest';
import { ESCAPE_WASM, TextRecordKernel } from '../../src/format/escape-simd.js';
import { jsonStringOfBytes } from '../../src/format/escape.js';
import { assembledWat, wasmInBundles } from '../helpers/wat.js';
import { seeded } from '../helpers/seeded.js';

const rand = seeded(5).next;

/** The records escape.ts makes of lines (each without its line ending). */
const expected = (lines: Buffer[]) => Buffer.concat(lines.flatMap((l) => [jsonStringOfBytes(l), Buffer.from('\n')]));

describe('the text record kernel', () => {
  it('embeds escape.wat, assembled: in the module, and in the CLI bundle that ships', async () => {
    const wasm = await assembledWat('format/escape.wat', { simd: true });
    expect(ESCAPE_WASM).toBe(wasm);
    expect(wasmInBundles().get(wasm)).toContain('cli.cjs');
  });

  it('escapes every byte below 0x80 as escape.ts does, alone and among ordinary text', () => {
    const k = new TextRecordKernel();
    const lines: Buffer[] = [];
    for (let c = 0; c < 0x80; c++) {
      if (c === 0x0a) continue;
      lines.push(Buffer.from([c]), Buffer.from(`${'x'.repeat(c % 37)}${String.fromCharCode(c)}${'y'.repeat(40 - (c % 23))}`, 'latin1'));
    }
    const input = Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')]));
    const r = k.records(input, input.length, false);
    expect(r.count).toBe(lines.length);
    expect(r.used).toBe(input.length);
    expect(Buffer.from(r.bytes).equals(expected(lines))).toBe(true);
  });

  it('agrees with escape.ts on random UTF-8 lines of every length, LF and CRLF', () => {
    const k = new TextRecordKernel();
    const pieces = ['a', 'b', ' ', '"', '\\', '\t', '\r', '\x00', '\x1f', '\x7f', 'é', '€', '😀', 'long run of plain text ', '\u2028'];
    for (let round = 0; round < 400; round++) {
      const lines: Buffer[] = [];
      for (let n = rand() % 30; n > 0; n--) {
        let s = '';
        for (let m = rand() % 12; m > 0; m--) s += pieces[rand() % pieces.length];
        lines.push(Buffer.from(s));
      }
      for (const crlf of [false, true]) {
        // with CRLF, a \r at the end of a line would read as part of its ending: leave such lines out
        const use = crlf ? lines.filter((l) => l[l.length - 1] !== 0x0d) : lines;
        const input = Buffer.concat(use.flatMap((l) => [l, Buffer.from(crlf ? '\r\n' : '\n')]));
        const r = k.records(input, input.length, crlf);
        expect(r.count, `round ${round}`).toBe(use.length);
        expect(Buffer.from(r.bytes).toString(), `round ${round} crlf ${crlf}`).toBe(expected(use).toString());
      }
    }
  });

  it('with CRLF, stops before a line that ends with a bare LF', () => {
    const k = new TextRecordKernel();
    const input = Buffer.from('one\r\ntwo\r\nthree\nfour\r\n');
    const r = k.records(input, input.length, true);
    expect(r.count).toBe(2);
    expect(r.used).toBe('one\r\ntwo\r\n'.length);
    expect(r.bytes.toString()).toBe('"one"\n"two"\n');
    const empty = Buffer.from('\n');
    expect(k.records(empty, 1, true)).toMatchObject({ count: 0, used: 0 });
    expect(k.records(empty, 1, false).bytes.toString()).toBe('""\n');
  });
});
