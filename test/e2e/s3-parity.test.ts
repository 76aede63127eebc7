// End-to-end, soak: every reader on an S3 store (s3rver on loopback) answers as on a local store, byte for byte
// but for the id, the file's path and the times, on text, a JSON array and JSONL, read from another machine's cache.
// @module-tag soak: every test here is part of `npm run test:soak`, not of `npm test` (vitest.config.ts)
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { startS3, type S3TestServer } from '../helpers/s3-server.js';

let s3: S3TestServer;
let root: string;
beforeAll(async () => {
  s3 = await startS3();
  root = tempDir('lro-s3-parity-');
});
afterAll(async () => {
  await s3?.close();
  cleanup(root);
});

const idOf = (out: string) => (JSON.parse(out) as { id: string }).id;

const lines = (n: number, line: (i: number) => string) => Array.from({ length: n }, (_, i) => line(i)).join('\n');
const text = lines(3000, (i) => `${i} INFO request ${i} served in ${i % 97} ms${i % 400 === 3 ? ' ERROR' : ''}`);
const jsonl = lines(1500, (i) => JSON.stringify({ id: i, status: i % 7 ? 'ok' : 'error', ms: (i * 37) % 1000 }));
const jsonArray = JSON.stringify(
  Array.from({ length: 1500 }, (_, i) => ({ n: i, name: `item ${i}`, tags: i % 5 ? [] : ['x'] })),
);

describe('an S3 store', () => {
  it('answers every reader as a local store does: text, a JSON array and JSONL', async () => {
    const local = { LRO_DIR: join(root, 'local') };
    const env = s3.env('parity');
    const other = { ...env, XDG_CACHE_HOME: join(root, 'other-machine') }; // reads what the first machine wrote
    const cases: [string, string[][]][] = [
      [
        text,
        [
          ['read', '--head', '5'],
          ['read', '--tail', '3'],
          ['grep', 'ERROR', '-C', '1'],
          ['grep', '-c', 'served'],
          ['count', '--by', 'template'],
          ['cat'],
          ['jq', '-r', 'select(test("ERROR"))'],
          ['info'],
        ],
      ],
      [
        jsonl,
        [['where', 'status=error', '-c'], ['count', '--by', 'status'], ['jq', '-c', 'select(.ms > 990)']],
      ],
      [jsonl, [['read', '--head', '3'], ['cat'], ['info']]],
      [jsonArray, [['where', 'tags[]=x', '-c'], ['jq', '-c', 'select(.n == 7)'], ['read', '--range', '10:12']]],
      [jsonArray, [['cat'], ['info']]],
    ];
    // the same but for the id, the file's path and the times
    const same = (s: string, id: string) =>
      s
        .split(id)
        .join('ID')
        .replace(/aws s3 cp (\S+) - \| tail -n \+2/g, 'tail -n +2 $1') // a plain recipe reads the object
        .replace(/[^\s"]*\/lro-offload-ID\.jsonl/g, 'PATH')
        .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME');
    for (const [input, commands] of cases) {
      const first = await lro(['offload', '--force'], { input, env: local });
      const second = await lro(['offload', '--force'], { input, env });
      expect(second.stderr).toBe('');
      const [a, b] = [idOf(first.out), idOf(second.out)];
      expect(await s3.keys('parity')).toContain(`parity/lro-offload-${b}.jsonl`); // the other machine reads it there
      expect(same(second.out, b)).toBe(same(first.out, a));
      expect(same(second.out, b)).toContain('PATH');
      await Promise.all(
        commands.map(async (args) => {
          const want = await lro([args[0], a, ...args.slice(1)], { env: local });
          const got = await lro([args[0], b, ...args.slice(1)], { env: other });
          expect(got.code, `${args.join(' ')}: ${got.stderr}`).toBe(want.code);
          expect(got.stderr, args.join(' ')).toBe(want.stderr);
          expect(same(got.out, b), args.join(' ')).toBe(same(want.out, a));
        }),
      );
    }
  });
});
