// whereResult and countResult as a program uses them: the built package, in-process, values back.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, tempDir } from '../helpers/cli.js';
import { corpusFile } from '../helpers/corpus.js';

type Lib = typeof import('../../src/index.js');
let lib: Lib;
let root: string;
let dir: string;

beforeAll(async () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { exports: { '.': { default: string } } };
  lib = (await import(new URL(`../../${pkg.exports['.'].default}`, import.meta.url).href)) as Lib;
  root = tempDir();
  dir = join(root, 'store');
});
afterAll(() => cleanup(root));

describe('whereResult and countResult', () => {
  it('filter and count JSON records, with exact numbers in the text', async () => {
    const rows = Array.from({ length: 2000 }, (_, i) => JSON.stringify({ id: i + 1, status: i % 100 === 0 ? 'error' : 'ok', ms: i % 700 }));
    rows[5] = '{"id":12345678901234567890,"status":"error","ms":999}';
    const r = await lib.offload(`${rows.join('\n')}\n`, { dir, force: true });
    if (!r.offloaded) throw new Error('not offloaded');
    const hits = await lib.whereResult(r.id, ['status=error', 'ms>500'], { dir });
    expect(hits.map((h) => h.n)).toEqual([6, 601, 1301]);
    expect(hits[0]).toEqual({ n: 6, text: '{"id":12345678901234567890,"status":"error","ms":999}', value: { id: 12345678901234567000, status: 'error', ms: 999 } });
    expect((await lib.whereResult(r.id, ['id=12345678901234567890'], { dir })).map((h) => h.n)).toEqual([6]);
    expect((await lib.whereResult(r.id, ['status=error'], { dir, fields: ['id'], maxCount: 2 })).map((h) => h.text)).toEqual(['{"id":1}', '{"id":12345678901234567890}']);
    expect(await lib.countResult(r.id, ['status'], { dir })).toEqual({ groups: [{ value: 'ok', count: 1979, first: 2 }, { value: 'error', count: 21, first: 1 }], other: 0 });
    await expect(lib.whereResult(r.id, ['stat=x'], { dir })).rejects.toThrow(/no record has the field \.stat .*did you mean \.status\?/);
  });

  it('count text lines by template, and run a pattern that could run away where it can be stopped', async () => {
    const r = await lib.offload(readFileSync(corpusFile('loghub/OpenSSH_2k.log')), { dir, force: true });
    if (!r.offloaded) throw new Error('not offloaded');
    const t = await lib.countResult(r.id, ['template'], { dir });
    expect(t.groups[0]).toEqual({ value: '<*> LabSZ sshd[<*>]: Received disconnect from <*>: <*>: Bye Bye [preauth]', count: 413, first: 14 });
    expect(t.groups.reduce((s, g) => s + g.count, 0)).toBe(2000);
    const hits = await lib.whereResult(r.id, ['.~port (\\d+)+ ssh2$'], { dir, maxCount: 1 });
    expect(hits[0].text).toMatch(/port \d+ ssh2$/);
  });
});
