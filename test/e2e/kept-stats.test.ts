// The descriptor's statistics kept in line 1 (header `stats`): `lro info` takes them instead of reading the
// records again, and gives what it gave before, when it computed them (a result without them: an older one,
// or one whose statistics did not fit); `ls --json` and `info --header` leave them out.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseHeader, parseHeaderFields, serializeHeader } from '../../src/format/header.js';
import { SchemaNode } from '../../src/describe/schema.js';
import { cleanup, lro, storeEnv, tempDir } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';

const ROOT = resolve(__dirname, '../..');
const root = tempDir();
const env = storeEnv(root);
afterAll(() => cleanup(root));

const FILES = [
  'corpus/loghub/HDFS_2k.log',
  'corpus/loghub/Linux_2k.log',
  'corpus/shell-output/go-test-json.out',
  'corpus/shell-output/vitest-test-output-fail.ansi',
  'corpus/json-docs/github_events.json',
  'corpus/json-docs/amazon_cellphones.ndjson',
  'corpus/json-docs/canada.json',
  'terminal/npm-install-run-color.tty',
];

/** Line 1 and the rest of a result file. */
function split(path: string): { line: Buffer; rest: Buffer } {
  const file = readFileSync(path);
  const nl = file.indexOf(0x0a);
  return { line: file.subarray(0, nl), rest: file.subarray(nl) };
}

/** The descriptor without what changes from call to call. */
const stable = (out: string) => out.replace(/"expires_at":"[^"]*"/, '');

/** The files `npm test` takes (a log, JSONL, a JSON document, a terminal capture); the soak takes the others. */
const QUICK = ['corpus/loghub/HDFS_2k.log', 'corpus/shell-output/go-test-json.out', 'corpus/json-docs/github_events.json', 'terminal/npm-install-run-color.tty'];

describe('statistics kept in the header', () => {
  for (const name of FILES) {
    it(`${name}: info from them is info computed from the records`, { tags: QUICK.includes(name) ? [] : ['soak'] }, async () => {
      const input = readFileSync(join(ROOT, 'fixtures', name));
      const off = await lroHere(['offload', '--force', '--no-dedupe'], { input, env });
      expect(off.code).toBe(0);
      const { id, file_path: path } = JSON.parse(off.out) as { id: string; file_path: string };
      const { line, rest } = split(path);
      const h = parseHeader(line);
      expect(typeof h.stats).toBe('string');

      const kept = await lro(['info', id], { env });
      const keptFull = await lro(['info', id, '--full', '--descriptor', 'text'], { env });
      expect(stable(kept.out)).toBe(stable(off.out));

      // the same file as an older lro wrote it: no stats, so info reads the records
      const { stats: _stats, ...older } = h;
      writeFileSync(path, Buffer.concat([Buffer.from(serializeHeader(older)), rest]));
      const computed = await lro(['info', id], { env });
      const computedFull = await lro(['info', id, '--full', '--descriptor', 'text'], { env });
      expect(computed.code).toBe(0);
      expect(stable(computed.out)).toBe(stable(kept.out));
      expect(stable(computedFull.out)).toBe(stable(keptFull.out));
    });
  }

  it('leaves them out of ls --json and info --header, and ignores ones that are not an offload\'s', async () => {
    const input = readFileSync(join(ROOT, 'fixtures/corpus/loghub/OpenSSH_2k.log'));
    const off = await lroHere(['offload', '--force', '--no-dedupe', '--operation', 'kept'], { input, env });
    const { id, file_path: path } = JSON.parse(off.out) as { id: string; file_path: string };
    const ls = await lro(['ls', '--json', '--operation', 'kept'], { env });
    const listed = JSON.parse(ls.out) as Record<string, unknown>[];
    expect(listed.map((r) => r.id)).toEqual([id]);
    expect(listed[0]).not.toHaveProperty('stats');
    expect(listed[0].sha256).toBe(parseHeader(split(path).line).sha256);
    const header = await lro(['info', id, '--header'], { env });
    expect(JSON.parse(header.out)).not.toHaveProperty('stats');
    expect(JSON.parse(header.out).id).toBe(id);

    // stats that are not what an offload writes: computed again, same descriptor
    const { line, rest } = split(path);
    const h = parseHeader(line);
    for (const stats of ['not json', '{"kind":"records"}', '{"kind":"text","text":{"head":"x"}}']) {
      writeFileSync(path, Buffer.concat([Buffer.from(serializeHeader({ ...h, stats })), rest]));
      const info = await lro(['info', id], { env });
      expect(info.code).toBe(0);
      expect(stable(info.out)).toBe(stable(off.out));
    }
  });

  it('kept by an older lro with a bare from_first_lines: info says in words which lines the figures are of', async () => {
    const rows = ['NAME  SIZE  STATE', ...Array.from({ length: 400 }, (_, i) => `svc-${i}  ${i * 10}  ${i % 7 ? 'up' : 'down'}`)];
    const off = await lroHere(['offload', '--force'], { input: `${rows.join('\n')}\n`, env });
    const { id, file_path: path } = JSON.parse(off.out);
    const { line, rest } = split(path);
    const h = parseHeader(line);
    const stats = JSON.parse(h.stats!);
    expect(stats.text.kind.kind).toBe('table');
    // as an offload before the words wrote it: the figures of the first 100 lines, said by a number alone
    stats.text.kind.facts = { rows: 400, header_line: 1, from_first_lines: 100, columns: stats.text.kind.facts.columns };
    writeFileSync(path, Buffer.concat([Buffer.from(serializeHeader({ ...h, stats: JSON.stringify(stats) })), rest]));
    for (const args of [[], ['--full']]) {
      const facts = JSON.parse((await lro(['info', id, ...args], { env })).out).summary.kind_facts;
      expect(facts).not.toHaveProperty('from_first_lines');
      expect(facts.counted_over).toBe('the figures after this are of the first 100 of 401 lines only, not totals');
      expect(Object.keys(facts)).toEqual(['rows', 'header_line', 'counted_over', 'columns']);
    }
  });

  it('parseHeaderFields cuts the last member only, whatever the strings before it hold', async () => {
    const input = readFileSync(join(ROOT, 'fixtures/corpus/loghub/Apache_2k.log'));
    const tricky = ',"stats":"x"}';
    const off = await lroHere(['offload', '--force', '--no-dedupe', '--query', tricky, '--meta', `k=${tricky}`], { input, env });
    const { file_path: path } = JSON.parse(off.out) as { file_path: string };
    const line = split(path).line;
    const h = parseHeader(line);
    expect(h.stats).toBeDefined();
    const { stats: _stats, blocks, ...rest } = h;
    expect(blocks).toBeDefined(); // the block hashes, just before stats, go with them
    const cut = parseHeaderFields(line).line;
    expect(JSON.parse(cut.toString('utf8'))).toEqual(JSON.parse(serializeHeader(rest)));
    expect(JSON.parse(cut.toString('utf8')).query).toBe(tricky);
  });
});

describe('line 1 read without its statistics', () => {
  it('keeps an envelope that has a "stats" string of its own', async () => {
    const doc = { a: 1, stats: 'mine', items: Array.from({ length: 3000 }, (_, i) => ({ n: i, s: 'x'.repeat(20) })) };
    const off = await lroHere(['offload', '--force', '--no-dedupe', '--operation', 'envelope'], { input: JSON.stringify(doc), env });
    const { id, file_path: path } = JSON.parse(off.out) as { id: string; file_path: string };
    const h = parseHeader(split(path).line);
    expect(h.split).toBe('path');
    expect(h.stats).toBeDefined();
    const fields = parseHeaderFields(split(path).line);
    expect(fields.header.stats).toBeUndefined();
    expect(fields.header.envelope!.toString()).toBe('{"a":1,"stats":"mine","items":[]}');
    const listed = JSON.parse((await lro(['ls', '--json', '--operation', 'envelope'], { env })).out) as Record<string, unknown>[];
    expect(listed[0].envelope).toEqual({ a: 1, stats: 'mine', items: [] });
    expect(listed[0]).not.toHaveProperty('stats');
    // and without statistics of its own, the envelope's member is not taken for them
    const { stats: _s, ...bare } = h;
    const line = Buffer.from(serializeHeader(bare));
    const parsed = parseHeaderFields(line);
    expect(parsed.line.equals(line)).toBe(true);
    expect(parsed.header.envelope!.toString()).toBe('{"a":1,"stats":"mine","items":[]}');
    const cat = await lro(['cat', id], { env });
    expect(JSON.parse(cat.out)).toEqual(doc);
  });
});

describe('SchemaNode as JSON', () => {
  it('comes back the same, types in the order seen', () => {
    const n = new SchemaNode();
    for (const v of [{ a: 1, b: [1, 'x', null], c: { d: 'y' } }, { a: 'z', c: null }, { e: true, a: 2.5 }]) n.add(v);
    const back = SchemaNode.fromJSON(JSON.parse(JSON.stringify(n)));
    expect(back).toEqual(n);
    expect([...back.properties!.get('a')!.types]).toEqual(['integer', 'string', 'number']);
    expect(() => SchemaNode.fromJSON([1, 2, 'q'])).toThrow(TypeError);
    expect(() => SchemaNode.fromJSON({ seen: 1 })).toThrow(TypeError);
  });
});
