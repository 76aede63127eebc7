// No line of lro's own code is longer than 2,000 characters: what a build makes (a kernel's bytes, a table) is
// made by the build from its source (scripts/), not pasted into a file of src/, scripts/ or bin/.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');
const LIMIT = 2000;

describe('source lines', () => {
  it(`are at most ${LIMIT} characters in src/, scripts/ and bin/`, () => {
    const long: string[] = [];
    let files = 0;
    for (const dir of ['src', 'scripts', 'bin']) {
      for (const name of readdirSync(join(ROOT, dir), { recursive: true }) as string[]) {
        const file = join(dir, name);
        if (!statSync(join(ROOT, file)).isFile()) continue;
        files++;
        readFileSync(join(ROOT, file), 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (line.length > LIMIT) long.push(`${file}:${i + 1} (${line.length} characters)`);
          });
      }
    }
    expect(files).toBeGreaterThan(50);
    expect(long).toEqual([]);
  });
});
