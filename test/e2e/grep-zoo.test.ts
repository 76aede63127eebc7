// End-to-end: every pattern of the grep zoo (bench/grep-zoo.tsv, the patterns lro grep is benchmarked on) gives
// rg's output byte for byte, with -n, -c, -C 2, -i, -w and -v, on a log of a few megabytes: the loghub logs plus
// lines made for the zoo (quotes, backslashes, tabs, the zoo's rare strings). Most of the zoo's patterns are
// searched for the literals they require (search/literals.ts); a candidate dropped by that prefilter is a line
// missing here. `npm test` runs a few patterns; the soak runs them all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { corpusFile } from '../helpers/corpus.js';
import { offloaded } from '../helpers/pages.js';
import { rgOn, shape } from '../helpers/rg.js';

const ZOO = readFileSync(new URL('../../bench/grep-zoo.tsv', import.meta.url), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => l.split('\t') as [string, string, string]);

/** The zoo's patterns `npm test` runs (an alternation inside a quoted literal; one with -i); the soak runs all. */
const QUICK = ['tag="(RILJ_ACK_WL|WakeLocks)"', 'connection (closed|reset)', 'q[a-z]{2}u', 'size\\s[0-9]{8}\\s'];
const VARIANTS = [[], ['-c'], ['-C', '2'], ['-i'], ['-w'], ['-v']];

const extra = [
  'key="v13" value',
  'key="v42" and key="v7"',
  'key=\\"v13\\" escaped',
  'tab\tkey="v13"\there',
  'tag="WakeLocks" uid=1001 user=guest',
  'TAG="RILJ_ACK_WL" upper',
  'ERROR worker ipc closed',
  'a sshd line that Failed twice: sshd Failed',
  'Connection Reset by peer 12',
  'uuid 123e4567-e89b-12d3-a456-426614174000 done',
  'ip 183.62.140.253 and 10.0.0.1',
  'date 2026-11 and ROOT root_ root',
  // for the patterns without a literal, searched over many stored records at once (search/chunk-regex.ts):
  // matches next to the stored quotes and escapes, non-ASCII records, anchors at the records' edges
  '"2026-11" quoted, "183.62.140.9" too, "ABCDE7"',
  'caf\u00e9 2026-11 ABCDE1 10.1.2.3 non-ASCII',
  '2026-11',
  'ssh2',
  'Jun 9',
  'tab\t123e4567-e89b-12d3-a456-426614174000\tin tabs',
  // for lro's own regex engine (search/dfa.ts): the issue 40 shapes, next to quotes, escapes and non-ASCII text
  'quux qaau "q12u" size 12345678 ',
  'q\u00e9\u00e9u size\t12345678\t and QUUX',
  '"quux" size 87654321\\',
];

let root: string;
let env: Record<string, string>;
let file: string;
let id: string;

beforeAll(async () => {
  root = tempDir();
  env = { LRO_DIR: join(root, 'store') };
  const dir = corpusFile('loghub');
  const logs = readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .sort()
    .map((f) => readFileSync(join(dir, f), 'utf8').replace(/\r\n/g, '\n').replace(/\n?$/, '\n'));
  file = join(root, 'zoo.log');
  writeFileSync(file, logs.join('') + extra.map((l, i) => `${l}\n${logs[i % logs.length].slice(0, 3000)}`).join('') + `${extra.join('\n')}\n`);
  id = await offloaded(file, env);
  if (spawnSync('rg', ['--version']).status !== 0) throw new Error('ripgrep (rg) is needed for these tests: apt-get install ripgrep');
});
afterAll(() => cleanup(root));

const rg = (args: string[]) => rgOn(file, args);

describe('every zoo pattern: lro grep prints what rg -n prints', () => {
  for (const [flags, pattern] of ZOO) {
    it(`${flags} ${pattern}`, { tags: QUICK.includes(pattern) ? [] : ['soak'] }, async () => {
      for (const variant of VARIANTS) {
        const opts = [...(flags ? [flags] : []), ...variant];
        const ours = await lro(['grep', id, ...opts, '--max-tokens', '0', '--', pattern], { env });
        const ref = rg([...opts, '--', pattern]);
        const what = `${opts.join(' ')} ${pattern}`;
        expect(ours.code, `${what}: ${ours.stderr}`).toBe(ref.status);
        const want = variant[0] === '-c' ? ref.stdout || '0\n' : ref.stdout;
        expect(shape(ours.out) === shape(want), `${what}: output differs from rg`).toBe(true);
      }
    });
  }
});
