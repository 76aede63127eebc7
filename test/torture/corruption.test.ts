// Damaged files in the store: truncated (mid-record, mid-header), a wrong count either way, garbage lines, a
// future schema_version, an empty file, a directory named like a result, a header that is not UTF-8, a header
// that is JSON but misses fields. Every reading subcommand gives one clear line and exit 2: no stack trace,
// no hang, no wrong original printed as if it were right; and the healthy result beside them still reads.
// @module-tag soak: every test here is part of `npm run test:soak`, not of `npm test` (vitest.config.ts)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monotonicFactory } from 'ulid';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { expectOneLineError, pool, report, sha256 } from './lib.js';

const ulid = monotonicFactory();
let root: string;
let store: string;
const env = () => ({ LRO_DIR: store });

/** A healthy result of each content type to damage copies of: header line and record lines. */
const good: Record<string, { header: Record<string, unknown>; headerLine: string; records: string[]; input: Buffer; id: string }> = {};

/**
 * Damaged files by name: their id, and the commands that may not notice the damage because they do not read the
 * damaged part as data (grep finds no candidate line in it; info only samples the values of JSON records, and
 * only counts the lines of a result whose header keeps its statistics; a string record is shown without being
 * parsed again). They must still not crash or hang.
 */
const damaged: { name: string; id: string; file: string; blind: string[] }[] = [];

function splitFile(path: string): { headerLine: string; records: string[] } {
  const text = readFileSync(path, 'utf8');
  const nl = text.indexOf('\n');
  const records = text.slice(nl + 1).split('\n');
  records.pop(); // after the last newline
  return { headerLine: text.slice(0, nl), records };
}

/** Writes a damaged copy of a healthy result under a fresh id; returns its path. */
function plant(name: string, make: (id: string) => Buffer | string | null, blind: string[] = []): void {
  const operation = 'damaged';
  const id = ulid();
  const file = join(store, `lro-${operation}-${id}.jsonl`);
  const content = make(id);
  if (content === null) mkdirSync(file);
  else writeFileSync(file, content, { mode: 0o600 });
  damaged.push({ name, id, file, blind });
}

const headerWith = (type: string, id: string, changes: Record<string, unknown>, drop: string[] = []): string => {
  const h: Record<string, unknown> = { ...good[type].header, id, ...changes };
  for (const k of drop) delete h[k];
  return JSON.stringify(h);
};
const fileOf = (type: string, id: string, changes: Record<string, unknown> = {}, records = good[type].records, drop: string[] = []) =>
  `${headerWith(type, id, changes, drop)}\n${records.map((r) => `${r}\n`).join('')}`;

beforeAll(async () => {
  root = tempDir('lro-torture-corrupt-');
  store = join(root, 'store');
  const inputs: Record<string, Buffer> = {
    text: Buffer.from(Array.from({ length: 40 }, (_, i) => `line ${i} says hello`).join('\n') + '\n'),
    jsonl: Buffer.from(Array.from({ length: 40 }, (_, i) => JSON.stringify({ n: i, big: 12345678901234567890 })).join('\n') + '\n'),
    json: Buffer.from(JSON.stringify({ total: 40, items: Array.from({ length: 40 }, (_, i) => ({ n: i })) })),
    array: Buffer.from(JSON.stringify(Array.from({ length: 40 }, (_, i) => ({ n: i })))),
    binary: Buffer.from(Array.from({ length: 10_000 }, (_, i) => (i * 31) & 0xff)),
  };
  for (const [type, input] of Object.entries(inputs)) {
    const r = await lro(['offload', '--force'], { input, env: env() });
    expect(r.code, r.stderr).toBe(0);
    const d = JSON.parse(r.out) as { id: string; file_path: string };
    const { headerLine, records } = splitFile(d.file_path);
    good[type] = { header: JSON.parse(headerLine), headerLine, records, input, id: d.id };
  }
  const t = good.text;
  const full = readFileSync(join(store, `lro-offload-${t.id}.jsonl`));
  const headerEnd = full.indexOf(0x0a);

  plant('truncated mid-record', (id) => {
    const f = Buffer.from(fileOf('text', id));
    return f.subarray(0, f.length - 7);
  });
  plant('truncated after a whole record', (id) => {
    const f = fileOf('text', id);
    return f.slice(0, f.lastIndexOf('\n', f.length - 2) + 1);
  });
  plant('truncated mid-header', (id) => Buffer.from(fileOf('text', id)).subarray(0, Math.floor(headerEnd / 2)));
  plant('header only, count says 40', (id) => `${headerWith('text', id, {})}\n`);
  plant('count too high', (id) => fileOf('text', id, { count: 45 }));
  plant('count too low (extra records)', (id) => fileOf('text', id, { count: 35 }));
  plant('count too low in a json result', (id) => fileOf('json', id, { count: 30 }));
  plant('count too low in a json array', (id) => fileOf('array', id, { count: 39 }));
  plant('count negative', (id) => fileOf('text', id, { count: -1 }));
  plant('count huge', (id) => fileOf('text', id, { count: 1e18 }));
  // (info counts the lines of a result whose header keeps the descriptor's statistics, without reading them; so
  // does count without --by, which answers from the header)
  plant('garbage line among text records', (id) => fileOf('text', id, {}, t.records.map((r, i) => (i === 20 ? 'garbage {{{ not json' : r))), ['grep', 'info', 'count']);
  plant('garbage line among json records', (id) => fileOf('json', id, {}, good.json.records.map((r, i) => (i === 20 ? 'garbage {{{' : r))), ['grep', 'grep -v', 'info', 'count']);
  plant('two values on one json record line', (id) => fileOf('array', id, {}, good.array.records.map((r, i) => (i === 5 ? `${r},{"n":99}` : r))), ['grep', 'grep -v', 'info', 'count']);
  plant('a number where a text record is a string', (id) => fileOf('text', id, {}, t.records.map((r, i) => (i === 3 ? '42' : r))), ['grep', 'jq', 'info', 'count']);
  plant('garbage line among jsonl records', (id) => fileOf('jsonl', id, {}, good.jsonl.records.map((r, i) => (i === 10 ? '{"n": broken' : r))), ['grep', 'grep -v', 'info', 'count']);
  plant('garbage line among binary records', (id) => fileOf('binary', id, {}, good.binary.records.map((r, i) => (i === 1 ? '12' : r))), ['grep', 'grep -v', 'info', 'jq', 'where', 'count']);
  plant('garbage line appended', (id) => `${fileOf('text', id)}garbage at the end\n`);
  plant('a raw NUL inside a text record', (id) => fileOf('text', id, {}, t.records.map((r, i) => (i === 2 ? '"a\u0000b"' : r))), ['grep', 'grep -v', 'info', 'read', 'where', 'count']);
  plant('future schema_version', (id) => fileOf('text', id, { schema_version: 'lro/9' }));
  plant('no schema_version', (id) => fileOf('text', id, {}, t.records, ['schema_version']));
  plant('empty file', () => '');
  plant('a directory named like a result', () => null);
  plant('header not UTF-8', (id) => {
    const [before, after] = headerWith('text', id, { operation: 'OPX' }).split('OPX');
    return Buffer.concat([Buffer.from(before), Buffer.from([0x6f, 0xff, 0xfe, 0x70]), Buffer.from(after), Buffer.from(`\n${t.records.join('\n')}\n`)]);
  });
  plant('header not JSON', () => `this is not a header\n${t.records.join('\n')}\n`);
  plant('header is a JSON array', () => `[1,2,3]\n${t.records.join('\n')}\n`);
  plant('header is null', () => `null\n${t.records.join('\n')}\n`);
  plant('header is an empty object', () => `{}\n${t.records.join('\n')}\n`);
  plant('header of another type', (id) => fileOf('text', id, { type: 'something_else' }));
  for (const field of ['count', 'content_type', 'sha256', 'id', 'bytes', 'meta', 'session', 'query', 'encoding', 'timestamp', 'expires_at', 'operation', 'detail']) {
    plant(`header without ${field}`, (id) => fileOf('text', id, {}, t.records, [field]));
  }
  for (const [field, value] of Object.entries({ meta: 'not an object', encoding: 'rot13', content_type: 'xml', line_ending: 'cr', invalid_records: 'x', timestamp: 'yesterday', count: '40' })) {
    plant(`header with ${field} = ${JSON.stringify(value)}`, (id) => fileOf('text', id, { [field]: value }));
  }
  plant('json header without split', (id) => fileOf('json', id, {}, good.json.records, ['split']));
  plant('json header without its envelope', (id) => fileOf('json', id, {}, good.json.records, ['envelope']));
  plant('json envelope insert point out of range', (id) => fileOf('json', id, { envelope_insert_at: 10_000 }));
  plant('header with a different id than the name', () => fileOf('text', ulid()));
  plant('a line 1 of 100 MB without a newline', () => Buffer.alloc(100 << 20, 0x20));
});
let cases = 0;
let wrong = 0;
afterAll(() => {
  report({ suite: 'corruption', cases, damaged_files: damaged.length, losses: wrong });
  cleanup(root);
});

const COMMANDS: [string, (ref: string) => string[]][] = [
  ['cat', (ref) => ['cat', ref]],
  ['info', (ref) => ['info', ref]],
  ['read', (ref) => ['read', ref, '--max-tokens', '0']],
  ['grep', (ref) => ['grep', ref, 'no such text anywhere', '--max-tokens', '0']],
  ['grep -v', (ref) => ['grep', ref, '-v', 'no such text anywhere', '--max-tokens', '0']],
  ['jq', (ref) => ['jq', ref, '-c', '.', '--max-tokens', '0']],
  ['where', (ref) => ['where', ref, '.?', '-c']],
  ['count', (ref) => ['count', ref]],
];

describe('damaged results', () => {
  it('the healthy results read back exactly', async () => {
    for (const [type, g] of Object.entries(good)) {
      const r = await lro(['cat', g.id], { env: env() });
      expect(r.code, `${type}: ${r.stderr}`).toBe(0);
      if (type === 'json' || type === 'array') expect(JSON.parse(r.out)).toEqual(JSON.parse(g.input.toString()));
      else expect(sha256(r.stdout)).toBe(sha256(g.input));
    }
  });

  // one test per command, all damaged files in it, so a failure lists every case that went wrong
  for (const [cmd, args] of COMMANDS) {
    it(`lro ${cmd}: one clear line, exit 2, for every damaged file (by id and by path)`, async () => {
      // by id for every file; by path too for cat (the other commands resolve a path the same way)
      const runs = damaged.flatMap((d) => (cmd === 'cat' ? [d.id, d.file] : [d.id]).map((ref) => ({ d, ref })));
      const results = await pool(runs, 3, ({ ref }) => lro(args(ref), { env: env(), timeout: 30_000 }));
      cases += runs.length;
      const problems: string[] = [];
      for (const [i, { d, ref }] of runs.entries()) {
        const r = results[i];
        try {
          if (d.blind.includes(cmd) && r.code !== 2) {
            // not noticing is allowed here, crashing is not
            expect(r.signal).toBeNull();
            expect([0, 1]).toContain(r.code);
            expect(r.stderr).toBe('');
          } else expectOneLineError(r, `${cmd} ${d.name}`);
        } catch {
          problems.push(`${d.name} (${ref === d.id ? 'id' : 'path'}): exit ${r.code}${r.signal ? ` ${r.signal}` : ''}, stderr ${JSON.stringify(r.stderr.slice(0, 300))}`);
        }
      }
      wrong += problems.length;
      expect(problems).toEqual([]);
    });
  }

  it('lro read of the first records of a damaged file still reads those, or says why not', async () => {
    const results = await pool(damaged, 3, (d) => lro(['read', d.id, '--head', '2'], { env: env(), timeout: 30_000 }));
    for (const [i, d] of damaged.entries()) {
      const r = results[i];
      expect(r.signal).toBeNull();
      if (r.code !== 0) expectOneLineError(r, `read --head ${d.name}`);
    }
  });
});
