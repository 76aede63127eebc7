// Kind facts counted over every line in bounded memory (kinds/util.ts TopCounts): exact while there are at most
// 1,000 distinct keys; past that, a Misra-Gries summary whose counts are estimates, said so beside them with the
// most any count may be low by, and within that bound of the truth; the frequent keys are never lost.
import { describe, expect, it } from 'vitest';
import { TopCounts } from '../../src/describe/kinds/util.js';
import { TextAnalyzer } from '../../src/describe/text-stats.js';

describe('TopCounts', () => {
  it('is exact up to its cap, then an estimate low by at most its error, with bounded keys', () => {
    const c = new TopCounts(100);
    const truth = new Map<string, number>();
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 200_000; i++) {
      // a few heavy keys and a long tail
      const k = rand() < 0.3 ? `heavy-${Math.floor(rand() * 5)}` : `tail-${Math.floor(rand() * 50_000)}`;
      c.add(k);
      truth.set(k, (truth.get(k) ?? 0) + 1);
      if (i % 1000 === 0) expect(c.size).toBeLessThan(200);
    }
    expect(c.exact).toBe(false);
    expect(c.error).toBeLessThanOrEqual(200_000 / 101);
    for (const [k, v] of c.map()) {
      expect(v).toBeLessThanOrEqual(truth.get(k)!);
      expect(v).toBeGreaterThanOrEqual(truth.get(k)! - c.error);
    }
    const top = Object.keys(c.top(5)).sort();
    expect(top).toEqual(['heavy-0', 'heavy-1', 'heavy-2', 'heavy-3', 'heavy-4']);
    // an estimate has no "(others)": its rest is not known
    expect(c.top(5)).not.toHaveProperty('(others)');
  });

  it('a git log of 3,000 authors says its author counts are estimates, and by how much', () => {
    const commits = Array.from({ length: 6000 }, (_, i) => {
      const who = i % 2 ? 'Main Author' : `Author ${i}`;
      return `commit ${(i + 1).toString(16).padStart(40, '0')}\nAuthor: ${who} <a${i}@example.org>\nDate:   Mon Mar 2 01:00:00 2020 +0000\n\n    change ${i}\n`;
    });
    const t = new TextAnalyzer();
    t.push(Buffer.from(commits.join('\n')));
    const f = t.end().kind!.facts;
    expect(f.commits).toBe(6000);
    expect(f).not.toHaveProperty('authors_distinct');
    const authors = f.authors as Record<string, number>;
    expect(Object.keys(authors)[0]).toBe('Main Author');
    const low = Number(/low by up to ([\d,]+)$/.exec(String(f.authors_estimated))![1].replace(/,/g, ''));
    expect(low).toBeGreaterThan(0);
    expect(authors['Main Author']).toBeLessThanOrEqual(3000);
    expect(authors['Main Author']).toBeGreaterThanOrEqual(3000 - low);
  });
});
