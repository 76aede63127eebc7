// The scan kernel: its embedded WebAssembly is exactly scan.wat assembled; it counts newlines and finds needles
// as plain loops do, at every offset and near the ends; lines() settles, prints and hands over lines as a plain
// reading of its contract says.
import { describe, expect, it } from 'vitest';
import { AT_END, AT_LIMIT, ByteScanner, DATA, FOR_JS, OUT, OUT_FULL, PRINT, QUOTED, S, SCAN_WASM, WORD, checkPositions, type Needle } from '../../src/kernel/scan.js';
import { assembledWat, wasmInBundles } from '../helpers/wat.js';
import { seeded } from '../helpers/seeded.js';

const rand = seeded(7).next;

function plainCount(b: Uint8Array, from: number, to: number): number {
  let c = 0;
  for (let i = from; i < to; i++) if (b[i] === 10) c++;
  return c;
}

const lower = (c: number) => (c >= 0x41 && c <= 0x5a ? c | 0x20 : c);
/** The first position in [from, end) where a needle lies wholly before end, and which (lowest index first). */
function plainFind(b: Uint8Array, from: number, end: number, needles: Needle[]): [number, number] {
  for (let p = from; p < end; p++) {
    for (let k = 0; k < needles.length; k++) {
      const { bytes, fold } = needles[k];
      if (p + bytes.length > end) continue;
      let ok = true;
      for (let i = 0; i < bytes.length && ok; i++) ok = fold ? lower(b[p + i]) === lower(bytes[i]) : b[p + i] === bytes[i];
      if (ok) return [p, k];
    }
  }
  return [-1, -1];
}

describe('the scan kernel', () => {
  it('embeds scan.wat, assembled: in the module, and in the CLI bundle that ships', async () => {
    const wasm = await assembledWat('kernel/scan.wat', { simd: true, bulk_memory: true });
    expect(SCAN_WASM).toBe(wasm);
    expect(wasmInBundles().get(wasm)).toContain('cli.cjs');
  });

  it('counts newlines like a plain loop at every length and offset, and past 255 blocks of 16 (the lane flush)', () => {
    const s = new ByteScanner(4 << 20);
    for (const size of [0, 1, 15, 16, 17, 255, 256, 257, 4095, 4096, 4097, 16 * 255, 16 * 255 + 1, 16 * 256 + 7, 100_000, 3_000_003]) {
      const b = s.view.subarray(DATA, DATA + size);
      for (let i = 0; i < size; i++) b[i] = rand() % 5 === 0 ? 10 : rand() & 0xff;
      for (const [from, to] of [[0, size], [Math.min(3, size), size], [0, Math.max(0, size - 5)], [Math.floor(size / 3), Math.floor((2 * size) / 3)]]) {
        expect(s.count(DATA + from, DATA + to), `${size} [${from}, ${to})`).toBe(plainCount(b, from, to));
      }
    }
    s.view.fill(10, DATA, DATA + (1 << 20));
    expect(s.count(DATA, DATA + (1 << 20))).toBe(1 << 20); // every byte a newline: lanes fill to 255
  });

  it('finds what a plain search finds: one or several needles, with and without case, near both ends', () => {
    const s = new ByteScanner(1 << 16);
    const alphabet = Buffer.from('abAB \n"\\xyz\u00e9');
    for (let round = 0; round < 3000; round++) {
      const size = 1 + (rand() % 300);
      const hay = s.view.subarray(DATA, DATA + size);
      for (let i = 0; i < size; i++) hay[i] = alphabet[rand() % alphabet.length];
      const count = 1 + (rand() % 8);
      const needles: Needle[] = [];
      for (let k = 0; k < count; k++) {
        const len = 1 + (rand() % 6);
        const at = rand() % size;
        // mostly pieces of the haystack (so they are found), some random
        const bytes = rand() % 3 ? Buffer.from(hay.subarray(at, at + len)) : Buffer.from(Array.from({ length: len }, () => alphabet[rand() % alphabet.length]));
        if (bytes.length === 0) continue;
        const fold = rand() % 2 === 0;
        needles.push({ bytes: fold ? Buffer.from(bytes.map(lower)) : bytes, fold });
      }
      if (needles.length === 0) continue;
      s.setNeedles(needles);
      const from = rand() % size;
      const end = from + (rand() % (size - from + 1));
      const [p, k] = plainFind(s.view, DATA + from, DATA + end, needles);
      const got = s.find(DATA + from, DATA + end);
      expect(got, `round ${round}`).toBe(p);
      if (p >= 0) expect(s.found, `round ${round}`).toBe(k);
    }
  });

  it('finds any of up to 16 words in either case as a case-insensitive regex does, more words than buckets too', () => {
    const s = new ByteScanner(1 << 16);
    const words = ['error', 'fail', 'fatal', 'exception', 'panic', 'traceback', 'critical', 'denied', 'refused', 'segfault', 'abort'];
    s.setWords(words);
    const re = new RegExp(words.join('|'), 'gi');
    const pieces = ['error', 'ERROR', 'Fail', 'fatAL', 'Exception', 'xception', 'panIc', 'tracebac', 'CRITICAL', 'denieD', 'refused', 'segfault', 'abor', 'abort', 'err', 'fa', ' ', '\n', 'x', 'é', '\u00c9RROR'];
    for (let round = 0; round < 3000; round++) {
      let text = '';
      for (let m = rand() % 12; m > 0; m--) text += pieces[rand() % pieces.length];
      const bytes = Buffer.from(text, 'latin1');
      bytes.copy(s.view, DATA);
      re.lastIndex = 0;
      const want = re.exec(bytes.toString('latin1'));
      const got = s.anyOf(DATA, DATA + bytes.length);
      expect(got < 0 ? -1 : got - DATA, JSON.stringify(text)).toBe(want ? want.index : -1);
      if (want) expect(words[s.foundWord], JSON.stringify(text)).toBe(want[0].toLowerCase());
    }
  });

  it('checks first the rarest bytes of a needle, two different ones where it can', () => {
    expect(checkPositions(Buffer.from('e  e'), false)).toEqual([0, 1]);
    expect(checkPositions(Buffer.from('xQz'), false)).toEqual([1, 2]);
    expect(checkPositions(Buffer.from('aaaa'), false)).toEqual([0, 3]);
    expect(checkPositions(Buffer.from('a'), false)).toEqual([0, 0]);
  });
});

/** Runs lines() over text records (JSON strings, one per line) to the end, answering its questions like grep. */
function runLines(records: string[], needles: Needle[], opts: { definite: number; flags: number; maxText?: number; limit?: number; outSize?: number; matches: (t: string) => boolean }) {
  const s = new ByteScanner(1 << 20);
  const data = Buffer.from(records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  data.copy(s.view, DATA);
  s.setNeedles(needles);
  const st = s.state;
  st[S.definite] = opts.definite;
  st[S.flags] = opts.flags;
  st[S.maxText] = opts.maxText ?? 1000;
  st[S.selected] = 0;
  st[S.limit] = opts.limit ?? 0x7fffffff;
  st[S.line] = 0;
  st[S.pos] = DATA;
  st[S.end] = DATA + data.length;
  const printed: string[] = [];
  const handed: number[] = [];
  for (;;) {
    st[S.out] = OUT;
    st[S.outEnd] = OUT + (opts.outSize ?? 1 << 16);
    const r = s.lines();
    printed.push(s.view.toString('utf8', OUT, st[S.out]));
    if (r === AT_END || r === AT_LIMIT) break;
    if (r === OUT_FULL) continue;
    expect(r).toBe(FOR_JS);
    const n = st[S.line];
    handed.push(n);
    const text = JSON.parse(s.view.toString('utf8', st[S.ls], st[S.le])) as string;
    if (opts.matches(text)) {
      st[S.selected]++;
      printed.push(`${n}*${text}\n`);
      if (st[S.selected] >= st[S.limit]) break;
    }
  }
  return { printed: printed.join(''), handed, lines: st[S.line], selected: st[S.selected] };
}

describe('lines()', () => {
  const records = ['alpha beta', 'no', 'beta', 'xbetay', 'tab\there beta', 'quote " beta', 'beta\u00e9', '\u00e9beta', 'betabeta beta', '', 'BETA'];
  const beta = (fold = false): Needle => ({ bytes: Buffer.from('beta'), fold });
  const has = (t: string) => t.includes('beta');

  it('prints records a definite needle settles, hands over those with escapes, and counts every line', () => {
    const r = runLines(records, [beta()], { definite: 1, flags: PRINT | QUOTED, matches: has });
    expect(r.printed).toBe('1:alpha beta\n3:beta\n4:xbetay\n5*tab\there beta\n6*quote " beta\n7:beta\u00e9\n8:\u00e9beta\n9:betabeta beta\n');
    expect(r.handed).toEqual([5, 6]);
    expect(r.lines).toBe(records.length);
    expect(r.selected).toBe(8);
  });

  it('checks whole words on ASCII neighbours, hands over a hit beside a non-ASCII byte', () => {
    const word = (t: string) => /(?<![\p{L}\p{N}_])beta(?![\p{L}\p{N}_])/u.test(t);
    const r = runLines(records, [beta()], { definite: 1, flags: PRINT | QUOTED | WORD, matches: word });
    expect(r.printed).toBe('1:alpha beta\n3:beta\n5*tab\there beta\n6*quote " beta\n9:betabeta beta\n');
    expect(r.handed).toEqual([5, 6, 7, 8]);
  });

  it('hands over every hit of a needle that is not definite, and texts longer than maxText', () => {
    expect(runLines(records, [beta()], { definite: 0, flags: PRINT | QUOTED, matches: () => false }).handed).toEqual([1, 3, 4, 5, 6, 7, 8, 9]);
    expect(runLines(records, [beta()], { definite: 1, flags: PRINT | QUOTED, maxText: 5, matches: () => false }).handed).toEqual([1, 4, 5, 6, 7, 8, 9]);
  });

  it('folds case, stops at the limit, and gives a line back when the output area is full', () => {
    const all = runLines(records, [beta(true)], { definite: 1, flags: PRINT | QUOTED, matches: (t) => /beta/i.test(t) });
    expect(all.printed).toContain('11:BETA\n');
    const limited = runLines(records, [beta()], { definite: 1, flags: PRINT | QUOTED, limit: 2, matches: has });
    expect(limited.printed).toBe('1:alpha beta\n3:beta\n');
    const small = runLines(records, [beta()], { definite: 1, flags: PRINT | QUOTED, outSize: 40, matches: has });
    expect(small.printed).toBe(runLines(records, [beta()], { definite: 1, flags: PRINT | QUOTED, matches: has }).printed);
  });

  it('counts without printing', () => {
    const r = runLines(records, [beta()], { definite: 1, flags: QUOTED, matches: has });
    expect(r.printed).toBe('5*tab\there beta\n6*quote " beta\n');
    expect(r.selected).toBe(8);
  });
});
