// End-to-end: the patterns without a literal, which lro grep searches with one regex over many stored records at
// once (search/chunk-regex.ts), print what rg -n prints, with -i, -w, -c, -C, -v, on lines made to trip that
// search: matches next to the stored quotes and escapes (tab, quote, backslash), non-ASCII records, the characters
// that fold to ASCII letters, anchors at the records' edges, empty records, a record longer than the 64 KB window,
// and enough records to cross windows and read chunks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { offloaded } from '../helpers/pages.js';
import { rgOn, shape } from '../helpers/rg.js';

const tricky = [
  'date 2026-11-26 at 10:00',
  '"2026-11" quoted',
  'tab\t2026-11\tafter a tab',
  'back\\slash 1234-56',
  'caf\u00e9 2026-11 ABCDE1 non-ASCII',
  '',
  '7',
  'starts with 7 and ends with 8',
  'ABCDE1 upper FGHIJ',
  'abcde1 lower',
  'pa\u017f\u017f 1 long s',
  '\u212a9 kelvin',
  'ip 183.62.140.253 and 10.0.0.1',
  'uuid 123e4567-e89b-12d3-a456-426614174000 done',
  'x"9 quote then digit',
  '9" digit then quote',
  'nothing here',
  // (in short words: -i [A-Z]{5,}\d backtracks for the square of a run of letters' length in JavaScript)
  `long ${'y '.repeat(35_000)}2026-11 ${'z'.repeat(100)}`,
];

let root: string;
let env: Record<string, string>;
let file: string;
let id: string;

beforeAll(async () => {
  root = tempDir();
  env = { LRO_DIR: join(root, 'store') };
  const line = (i: number) => (i % 1000 === 999 ? tricky[17] : `${tricky[i % 17]}${i % 5 === 0 ? ` #${i}` : ''}`);
  const lines = Array.from({ length: 60_000 }, (_, i) => line(i));
  file = join(root, 'chunk.log');
  writeFileSync(file, `${lines.join('\n')}\n`);
  id = await offloaded(file, env);
  if (spawnSync('rg', ['--version']).status !== 0) {
    throw new Error('ripgrep (rg) is needed for these tests: apt-get install ripgrep');
  }
});
afterAll(() => cleanup(root));

const rg = (args: string[]) => rgOn(file, args);

const PATTERNS = ['\\d{4}-\\d{2}', '^\\d', '\\d$', '^$', '[A-Z]{5,}\\d', '[^a-z ]\\d', '\\d"', 's+ \\d', '\\bk\\d'];
PATTERNS.push('\\d+\\.\\d+\\.\\d+\\.\\d+');
const VARIANTS = [[], ['-c'], ['-i'], ['-w'], ['-C', '1'], ['-v', '-c']];

describe('patterns without a literal: lro grep prints what rg -n prints', () => {
  for (const pattern of PATTERNS) {
    it(pattern, { tags: pattern === '\\d{4}-\\d{2}' ? [] : ['soak'], timeout: 120_000 }, async () => {
      for (const opts of VARIANTS) {
        const ours = await lro(['grep', id, ...opts, '--max-tokens', '0', '--', pattern], { env });
        const ref = rg([...opts, '--', pattern]);
        const what = `${opts.join(' ')} ${pattern}`;
        expect(ours.code, `${what}: ${ours.stderr}`).toBe(ref.status);
        const want = opts.includes('-c') ? ref.stdout || '0\n' : ref.stdout;
        expect(shape(ours.out) === shape(want), `${what}: output differs from rg`).toBe(true);
      }
    });
  }
});

describe('a count without a literal on a damaged result', () => {
  it('says what a count with a literal says: a record missing, a record too many', async () => {
    const store = join(root, 'damaged');
    cpSync(env.LRO_DIR, store, { recursive: true });
    const file = join(store, readdirSync(store).find((f) => f.includes(id) && f.endsWith('.jsonl'))!);
    const records = readFileSync(file, 'utf8');
    const denv = { LRO_DIR: store };
    const count = (pattern: string) => lro(['grep', '-c', id, '--', pattern], { env: denv });
    const lastMissing = records.slice(0, records.lastIndexOf('\n', records.length - 2) + 1);
    for (const damaged of [lastMissing, `${records}"2026-11 one more"\n`]) {
      writeFileSync(file, damaged);
      const [byWindows, byLiteral] = [await count('\\d{4}-\\d{2}'), await count('2026-11')];
      expect(byWindows.code).toBe(byLiteral.code);
      expect(byWindows.code).not.toBe(0);
      expect(byWindows.stderr).toMatch(/records|truncated/);
      expect(byWindows.stderr.split('\n')).toHaveLength(2);
      expect(byWindows.stderr).toBe(byLiteral.stderr);
    }
  });
});
