// The keyword automaton: its embedded WebAssembly is keywords-kernel.wat assembled, and it reports exactly the lines on
// which some rule's keyword occurs (case-insensitively), like a plain search.
import { describe, expect, it } from 'vitest';
import { KEYWORDS_WASM } from '../../src/secrets/keywords-wasm.js';
import { engine } from '../../src/secrets/stream.js';
import { assembledWat, wasmInBundles } from '../helpers/wat.js';
import { seeded } from '../helpers/seeded.js';

describe('keyword automaton', () => {
  it('embeds keywords-kernel.wat, assembled: in the module, and in the CLI bundle that ships', async () => {
    const wasm = await assembledWat('secrets/keywords-kernel.wat');
    expect(KEYWORDS_WASM).toBe(wasm);
    expect(wasmInBundles().get(wasm)).toContain('cli.cjs');
  });

  it('reports the lines holding a keyword, with the rules they trigger, like a plain search', () => {
    const { rules, auto } = engine();
    const keywords = rules.rules.map((r) => r.triggers ?? []);
    const words = [...new Set(keywords.flat())];
    const rand = seeded(11).below;
    const lines: string[] = [];
    for (let i = 0; i < 3000; i++) {
      let l = '';
      while (rand(4) !== 0) {
        const w = words[rand(words.length)];
        l += rand(3) === 0 ? w.toUpperCase() : rand(2) ? w.slice(0, Math.max(1, w.length - 1)) : w;
        l += ' abcXYZ09_-.:="\t'[rand(15)];
      }
      lines.push(l);
    }
    const buf = Buffer.from(lines.join('\n'), 'latin1');
    const seen = new Map<number, Set<number>>();
    let line = 0;
    const starts = [0];
    for (let i = 0; i < buf.length; i++) if (buf[i] === 10) starts.push(i + 1);
    // in pieces, as the scanner feeds it
    for (let p = 0, end = 0; p < buf.length; p = end) {
      end = Math.min(buf.length, buf.lastIndexOf(10, p + 50_000) + 1 || buf.length);
      if (end <= p) end = buf.length;
      auto.scanLines(buf, p, end, end === buf.length, false, (ls, _le, sets) => {
        line = starts.indexOf(ls);
        const s = seen.get(line) ?? new Set<number>();
        for (const set of sets) for (const r of auto.sets[set]) if (r < rules.rules.length) s.add(r);
        seen.set(line, s);
        return false;
      });
    }
    lines.forEach((l, i) => {
      const lower = l.toLowerCase();
      const want = keywords.flatMap((ws, r) => (ws.some((w) => lower.includes(w)) ? [r] : []));
      expect([...(seen.get(i) ?? [])].sort((a, b) => a - b), `line ${i}: ${l}`).toEqual(want);
    });
  });
});
