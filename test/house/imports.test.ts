// The house has no import circle: every import in src/ (static, dynamic and type-only) points from a module to
// one that does not lead back to it. A circle makes the order of loading matter and the floors unreadable.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { circles, importsOf, sources, SRC } from './graph.js';

describe('the import graph of src/', () => {
  it('finds circles (the checker works)', () => {
    const g = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(circles(g)).toEqual([['a', 'b', 'c']]);
    expect(importsOf(join(SRC, 'x/y.ts'), "import { a } from '../b.js';\nconst m = await import('./c.js');\nexport { d } from './d.js';")).toEqual([
      'b.ts',
      'x/c.ts',
      'x/d.ts',
    ]);
  });

  it('has no circle', () => {
    const graph = new Map<string, string[]>();
    for (const file of sources(SRC)) graph.set(relative(SRC, file), importsOf(file, readFileSync(file, 'utf8')));
    expect(graph.size).toBeGreaterThan(50);
    expect(circles(graph).map((c) => c.join(' -> '))).toEqual([]);
  });
});
