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

describe('tables counted over every row', () => {
  const facts = (text: string) => {
    const t = new TextAnalyzer();
    t.push(Buffer.from(text));
    return t.end().kind!;
  };

  it('a row longer than the counters read is a row: its whole cells are in the figures, the cut one is not', () => {
    const rows = Array.from({ length: 50 }, (_, i) => `${i},ok,${i * 2},short note`);
    rows[20] = `20,late,9999,${'x'.repeat(3000)}`;
    const k = facts(`id,status,amount,note\n${rows.join('\n')}\n`);
    expect(k.kind).toBe('csv');
    expect(k.facts.rows).toBe(50);
    expect(k.facts.long_rows).toMatch(/^1 rows are longer than 2048 characters/);
    const amount = (k.facts.columns as { name: string; max?: number; max_line?: number }[]).find((c) => c.name === 'amount')!;
    expect([amount.max, amount.max_line]).toEqual([9999, 22]);
  });

  it('ps aux with a command line longer than the counters read: its %MEM still counts', () => {
    const head = 'USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND';
    const row = (pid: number, mem: string, cmd: string) => `root     ${String(pid).padStart(7)}  0.0  ${mem} 167744 11636 ?        Ss   Nov27   0:02 ${cmd}`;
    const lines = Array.from({ length: 30 }, (_, i) => row(100 + i, '0.1', '/usr/bin/sleep 1000'));
    lines.push(row(999, '42.5', `java ${'-Dopt=1 '.repeat(500)}`));
    lines.push('E: a line that is no row');
    const k = facts(`${head}\n${lines.join('\n')}\n`);
    expect(k.kind).toBe('table');
    expect(k.facts).toMatchObject({ rows: 31, lines_not_rows: 1 });
    const mem = (k.facts.columns as { name: string; max?: number; max_line?: number }[]).find((c) => c.name === '%MEM')!;
    expect([mem.max, mem.max_line]).toEqual([42.5, 32]);
  });
});
