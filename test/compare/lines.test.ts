// The unified diff of lro diff --lines (Myers on line hashes) and the hash tables that hold two results' records.
import { describe, expect, it } from 'vitest';
import { unifiedOps } from '../../src/compare/lines.js';
import { KeyTable, SeenTable } from '../../src/compare/hash.js';

/** A seeded generator, so a failing case can be run again. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** The fewest lines removed plus added that turn x into y (dynamic programming on the longest common subsequence). */
function minimalEdits(x: number[], y: number[]): number {
  const dp = Array.from({ length: x.length + 1 }, () => new Array<number>(y.length + 1).fill(0));
  for (let i = x.length - 1; i >= 0; i--) for (let j = y.length - 1; j >= 0; j--) dp[i][j] = x[i] === y[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
  return x.length + y.length - 2 * dp[0][0];
}

describe('unifiedOps', () => {
  it('gives a minimal diff whose hunks, applied to A, give B (300 random pairs)', () => {
    const next = rng(42);
    for (let t = 0; t < 300; t++) {
      const x = Array.from({ length: Math.floor(next() * 40) }, () => Math.floor(next() * 6));
      const y = next() < 0.5 ? x.map((v) => (next() < 0.2 ? Math.floor(next() * 6) : v)) : Array.from({ length: Math.floor(next() * 40) }, () => Math.floor(next() * 6));
      const r = unifiedOps(Float64Array.from(x), Float64Array.from(y));
      if (!('ops' in r)) throw new Error('left out');
      // apply: the lines of A outside hunks are kept, each hunk's context and + lines give B's lines there
      const out: number[] = [];
      let a = 1;
      let edits = 0;
      for (const o of r.ops) {
        if (o.op === '@') {
          expect(o.b - 1).toBe(out.length + (o.a - a)); // B's line numbers agree with A's kept lines
          while (a < o.a) out.push(x[a++ - 1]);
        } else if (o.op === ' ') {
          expect(o.a).toBe(a);
          out.push(x[a++ - 1]);
        } else if (o.op === '-') {
          expect(o.a).toBe(a++);
          edits++;
        } else {
          out.push(y[o.b - 1]);
          edits++;
        }
      }
      while (a <= x.length) out.push(x[a++ - 1]);
      expect(out, `case ${t}`).toEqual(y);
      expect(edits, `case ${t}`).toBe(minimalEdits(x, y));
    }
  });

  it('leaves the diff out past 2,000 changed lines, and says so', () => {
    const x = Float64Array.from({ length: 3000 }, (_, i) => i);
    const y = Float64Array.from({ length: 3000 }, (_, i) => i + 0.5);
    expect(unifiedOps(x, y)).toEqual({ note: 'more than 2000 lines differ' });
    expect(unifiedOps(x, x)).toEqual({ ops: [] });
  });
});

describe('the tables of keys', () => {
  it('SeenTable: A records by key, B looked up and marked; the unseen are the removed, in order', () => {
    const t = new SeenTable();
    let fresh = 0;
    for (let n = 1; n <= 50_000; n++) if (t.add(n * 7, n ^ 0x55, n % 3, n)) fresh++;
    expect(fresh).toBe(50_000);
    expect(t.add(7, 1 ^ 0x55, 9, 1)).toBe(false); // a key again: replaced
    let found = 0;
    for (let n = 2; n <= 50_000; n += 2) {
      if (t.see(n * 7, n ^ 0x55, n % 3) === n && t.same) found++;
    }
    expect(found).toBe(25_000);
    expect([t.see(14, 2 ^ 0x55, 0), t.same]).toEqual([-2, false]); // seen before: negative
    expect(t.see(1, 1, 0)).toBe(0);
    const unseen = t.unseen();
    expect(unseen.length).toBe(25_000);
    expect([...unseen.slice(0, 3)]).toEqual([1, 3, 5]);
  });

  it('KeyTable: both sides of each key, through growth', () => {
    const t = new KeyTable();
    for (let n = 1; n <= 20_000; n++) t.set(n, n * 31, 0, 0, 1, n);
    for (let n = 10_001; n <= 30_000; n++) t.set(n, n * 31, 1, 0, n % 2 ? 1 : 2, n);
    let both = 0;
    let changed = 0;
    let onlyA = 0;
    let onlyB = 0;
    t.forEach((a, b, same) => {
      if (a && b) both++;
      if (a && b && !same) changed++;
      if (a && !b) onlyA++;
      if (!a && b) onlyB++;
    });
    expect({ both, changed, onlyA, onlyB }).toEqual({ both: 10_000, changed: 5_000, onlyA: 10_000, onlyB: 10_000 });
  });
});
