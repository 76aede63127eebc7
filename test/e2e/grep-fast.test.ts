// End-to-end: the ways grep takes through a result give the same answers. Printing every match without a budget
// (the scan kernel settles and prints records itself), counting, counting with -v, and the record-by-record path
// (a budget, context, a range) are checked against rg -n on the original text and against each other, on lines
// made to trip them: escapes (tab, quote, backslash, terminal colours), non-ASCII neighbours of a word, the
// characters that fold to ASCII letters (ſ, K), anchors, a hit that would span two records, long records.
// The terminal colours make the result noisy, so by default it is searched as a terminal shows it; the comparisons
// with rg search it --raw, as stored (rg sees the escapes too), which is where the kernel works.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';
import { offloaded } from '../helpers/pages.js';

let root: string;
let env: Record<string, string>;
let file: string;
let id: string;

const tricky = [
  'alpha beta',
  'tab\there beta',
  'quote " beta',
  'back\\slash beta',
  'BETA upper',
  'bEtA mixed',
  'pa\u017f\u017fword and password',
  'pa\u017f\u017fword alone',
  'the \u212aelvin sign',
  'kelvin plain',
  '\u00e9beta',
  'beta\u00e9',
  '_beta',
  'beta_',
  'beta-1',
  '1beta',
  'betabeta beta',
  'betabeta',
  'colour \u001b[31mbeta\u001b[0m',
  'an escape \u001b alone u001b',
  '',
  'beta',
  'ends with beta',
  'beta starts',
  'alpha',
  'ERROR one',
  'FATAL two',
  'an Exception three',
  `long ${'x'.repeat(1500)} beta ${'y'.repeat(50)}`,
  'end of a record: bet',
  'a next record',
];

beforeAll(async () => {
  root = tempDir();
  env = { LRO_DIR: join(root, 'store') };
  // many copies, so the search crosses read chunks, and numbers are large
  const lines = Array.from({ length: 4000 }, (_, i) => `${tricky[i % tricky.length]}${i % 7 === 0 ? ` #${i}` : ''}`);
  file = join(root, 'tricky.log');
  writeFileSync(file, `${lines.join('\n')}\n`);
  id = await offloaded(file, env);
  const rg = spawnSync('rg', ['--version']);
  if (rg.status !== 0) throw new Error('ripgrep (rg) is needed for these tests: apt-get install ripgrep');
});
afterAll(() => cleanup(root));

/** grep as stored (see the top of the file). */
const RAW = '--raw';
const rg = (args: string[]) => spawnSync('rg', ['-n', '--no-heading', '--color=never', ...args, file], { encoding: 'utf8', maxBuffer: 1 << 28 });
/** Line numbers and texts; long records (shown by lro as windows: `N:[start-end/length] …`) by number only. */
const shape = (out: string) =>
  out
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const m = /^(\d+)[:-]/.exec(l)!;
      return l.length > 1000 + m[0].length || /^\d+[:-]\[\d+-\d+\/\d+\] /.test(l) ? m[1] : l;
    })
    .filter((l, i, all) => i === 0 || l !== all[i - 1]);

const cases: [string, string[]][] = [
  ['beta', []],
  ['beta', ['-F']],
  ['beta', ['-w']],
  ['beta', ['-i']],
  ['beta', ['-i', '-w']],
  ['password', ['-i']],
  ['kelvin', ['-i']],
  ['ERROR|FATAL|Exception', []],
  ['error|fatal|exception', ['-i']],
  ['^beta', []],
  ['beta$', []],
  ['u001b', []],
  ['31m', []],
  ['slash beta', []],
  ['" beta', ['-F']],
  ['bet\na', ['-F']],
  ['beta', ['-v']],
  ['x{3}', []],
];

/** The cases `npm test` runs both ways (a word, -i -w, a fold to ASCII, an alternation, -v); the soak runs the rest. */
const QUICK = ['"beta"', '"beta" -i -w', '"kelvin" -i', '"ERROR|FATAL|Exception"', '"beta" -v'];
const tags = (pattern: string, opts: string[]) => (QUICK.includes([JSON.stringify(pattern), ...opts].join(' ')) ? [] : ['soak']);

describe('grep without a budget agrees with rg -n, and counts agree with rg -c', () => {
  for (const [pattern, opts] of cases) {
    it(`${JSON.stringify(pattern)} ${opts.join(' ')}`, { tags: tags(pattern, opts) }, async () => {
      const ours = await lro(['grep', id, RAW, pattern, ...opts, '--max-tokens', '0'], { env });
      const ref = rg([...opts, '--', pattern]);
      if (pattern.includes('\n')) {
        // rg refuses a newline in a pattern; no record holds one, so nothing matches
        expect(ours.code, ours.stderr).toBe(1);
        expect(ours.out).toBe('');
        return;
      }
      expect(ours.code, ours.stderr).toBe(ref.status);
      expect(shape(ours.out)).toEqual(shape(ref.stdout));
      const count = await lro(['grep', id, RAW, pattern, ...opts, '-c'], { env });
      expect(count.out.trim()).toBe(String(ref.stdout.split('\n').filter(Boolean).length));
      if (!opts.includes('-v')) {
        const inverted = await lro(['grep', id, RAW, pattern, ...opts, '-v', '-c'], { env });
        expect(Number(inverted.out.trim())).toBe(4000 - Number(count.out.trim()));
      }
    });
  }
});

describe('without --raw, the noisy result is searched as a terminal shows it', () => {
  it('finds text the escapes split, and not the escapes', async () => {
    const colour = (await lro(['grep', id, 'colour beta', '-c'], { env })).out.trim();
    expect(Number(colour)).toBe(Array.from({ length: 4000 }, (_, i) => i % tricky.length).filter((k) => tricky[k].startsWith('colour ')).length);
    expect((await lro(['grep', id, RAW, 'colour beta', '-c'], { env })).out.trim()).toBe('0');
    expect((await lro(['grep', id, '31m', '-c'], { env })).code).toBe(1);
  });
});

describe('the record-by-record path gives the same lines, with a budget, a range and -m, page by page', () => {
  for (const [pattern, opts] of cases.filter(([p]) => !p.includes('\n'))) {
    it([JSON.stringify(pattern), ...opts].join(' '), { tags: tags(pattern, opts) }, async () => {
      const all = shape((await lro(['grep', id, RAW, pattern, ...opts, '--max-tokens', '0'], { env })).out);
      const ranged = shape((await lro(['grep', id, RAW, pattern, ...opts, '--max-tokens', '0', '--records', '1:4000'], { env })).out);
      expect(ranged, `${pattern} ${opts.join(' ')}`).toEqual(all);
      const m = shape((await lro(['grep', id, RAW, pattern, ...opts, '--max-tokens', '0', '-m', '7'], { env })).out);
      expect(m, `${pattern} -m 7`).toEqual(all.slice(0, 7));
    });
  }
});

describe('JSON records are searched as their compact text', () => {
  it('in a json result and a jsonl result, as a JavaScript reference finds', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => ({ id: i, status: i % 17 === 0 ? 'error' : 'ok', msg: i % 5 === 0 ? 'tab\there "q" \u00e9t\u00e9' : `m ${i}` }));
    const compact = rows.map((r) => JSON.stringify(r));
    const arrayFile = join(root, 'rows.json');
    writeFileSync(arrayFile, JSON.stringify(rows, null, 2));
    const jsonlFile = join(root, 'rows.jsonl');
    writeFileSync(jsonlFile, `${rows.map((r) => JSON.stringify(r).replace(/,"/g, ', "').replace(/":/g, '": ')).join('\n')}\n`);
    for (const f of [arrayFile, jsonlFile]) {
      const rid = await offloaded(f, env);
      for (const [pattern, opts, re] of [
        ['"status":"error"', [], /"status":"error"/],
        ['"status":"error"', ['-F'], /"status":"error"/],
        ['ERROR', ['-i'], /error/i],
        ['\\t', ['-F'], /\\t/],
        ['"id":3,', [], /"id":3,/],
        ['}', ['-F', '-c'], /\}/],
        ['\u00e9t\u00e9', [], /\u00e9t\u00e9/],
      ] as [string, string[], RegExp][]) {
        const expected = compact.map((t, i) => (re.test(t) ? `${i + 1}:${t}` : '')).filter(Boolean);
        // the first case as the built binary, the others in this process
        const r = await (pattern === '"status":"error"' && opts.length === 0 ? lro : lroHere)(['grep', rid, pattern, ...opts, '--max-tokens', '0'], { env });
        if (opts.includes('-c')) expect(r.out.trim(), `${f} ${pattern}`).toBe(String(expected.length));
        else expect(r.out.split('\n').filter(Boolean), `${f} ${pattern}`).toEqual(expected);
      }
    }
  });
});
