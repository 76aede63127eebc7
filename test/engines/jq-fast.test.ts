// jq-fast.ts against jq itself (the build's jq-wasm, jq 1.8.2): on real records and on records made to trip it
// (number literals JavaScript prints otherwise, keys it reorders, DEL, surrogates, __proto__), every filter it
// answers gives jq's output byte for byte; and it does answer the filters agents write most, so the comparison is
// not empty.
import { describe, expect, it, beforeAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { runFast } from '../../src/engines/jq-fast.js';
import { corpusFile } from '../helpers/corpus.js';
import { seeded } from '../helpers/seeded.js';

type Raw = (input: Uint8Array, filter: string, flags: string[], watch: (b: Uint8Array) => void) => { stderr: string; exitCode: number };
let jqRaw: Raw;

beforeAll(async () => {
  const dist = join(__dirname, '../../dist/jq');
  const glue = createRequire(import.meta.url)(join(dist, 'jq.cjs')) as { loadJq(o: { wasmModule: unknown }): Promise<{ raw: Raw }> };
  const wasm = (globalThis as unknown as { WebAssembly: { compile(b: Uint8Array): Promise<unknown> } }).WebAssembly;
  jqRaw = (await glue.loadJq({ wasmModule: await wasm.compile(readFileSync(join(dist, 'jq.wasm'))) })).raw;
});

const input = (records: string[]) => Buffer.from(records.map((r) => `${r}\n`).join(''));

function byJq(records: string[], filter: string, flags: string[]): { out: string; code: number } {
  const out: Buffer[] = [];
  const r = jqRaw(input(records), filter, [...flags, '--'], (b) => out.push(Buffer.from(b)));
  return { out: Buffer.concat(out).toString('utf8'), code: r.exitCode };
}

function byFast(records: string[], filter: string, flags: string[]): string | null {
  const out: Buffer[] = [];
  const r = runFast(input(records), filter, [...flags, '--'], (b) => out.push(Buffer.from(b)));
  return r && Buffer.concat(out).toString('utf8');
}

/** Runs every filter with every flag set on the records; returns how many it answered (each checked against jq). */
function compareAll(records: string[], filters: string[]): { answered: number; declined: string[] } {
  let answered = 0;
  const declined: string[] = [];
  for (const filter of filters) {
    for (const flags of [['-c'], [], ['-r'], ['-c', '-s'], ['-j']]) {
      const fast = byFast(records, filter, flags);
      if (fast === null) {
        declined.push(`${flags.join(' ')} ${filter}`);
        continue;
      }
      const jq = byJq(records, filter, flags);
      expect({ filter, flags, code: jq.code, out: fast }).toEqual({ filter, flags, code: 0, out: jq.out });
      answered++;
    }
  }
  return { answered, declined };
}

const lines = (file: string, n: number) => readFileSync(corpusFile(file), 'utf8').split('\n').filter((l) => l.trim() !== '').slice(0, n);

/** Filters of the kinds agents write (and a few edges of each). */
const COMMON = [
  '.',
  '.Action',
  '.Test',
  'select(.Action == "pass")',
  'select(.Action? == "pass") | .Test',
  'select(.Action == "fail" or .Action == "skip") | {Test, Elapsed}',
  'select(.Elapsed > 0.1) | .Elapsed',
  'select(.Elapsed >= 0 and .Test != null) | [.Package, .Test]',
  'select(.Output) | .Output',
  '.Package, .Action',
  '{a: .Action, t: .Time}',
  'keys',
  'length',
  '[.[]] | length',
  'map(length)',
  'select(.Action == null | not)',
  '.["Action"]',
  '."Test"',
  '.missing.deeper',
  '.[0]',
  '.[]?',
  '.Test | length',
  'select(.Action < "output")',
  'select(.Elapsed == 0)',
  'select(. == {"a": 1})',
  '[.[]?] | length',
];

describe('jq filters answered without the engine', () => {
  it('give jq output on go test -json records', () => {
    const { answered } = compareAll(lines('shell-output/go-test-json.out', 60), COMMON);
    expect(answered).toBeGreaterThan(90);
  });

  it('give jq output on API records (nested objects, arrays, unicode)', () => {
    const events = (JSON.parse(readFileSync(corpusFile('json-docs/github_events.json'), 'utf8')) as unknown[]).map((e) => JSON.stringify(e));
    const tweets = (JSON.parse(readFileSync(corpusFile('json-docs/twitter.json'), 'utf8')) as { statuses: unknown[] }).statuses.map((e) => JSON.stringify(e));
    const filters = [
      '.type',
      'select(.type == "PushEvent") | .payload.commits[0].message',
      '.actor | {login, id}',
      '.payload.commits[]?.author.name',
      '[.payload.commits[]? | .sha] | length',
      '.user.screen_name, .text',
      'select(.retweet_count > 0) | {id, retweet_count}',
      '.entities.hashtags | map(.text)',
      '.user | keys',
      '.text | length',
      'select(.user.lang == "ja") | .text',
    ];
    const a = compareAll(events.slice(0, 20), filters);
    const b = compareAll(tweets.slice(0, 40), filters);
    expect(a.answered + b.answered).toBeGreaterThan(60);
    const ndjson = compareAll(lines('json-docs/amazon_cellphones.ndjson', 50), ['.', 'keys', 'select(.rating >= 4) | .title', '[.[]] | length']);
    expect(ndjson.answered).toBeGreaterThan(5);
  });

  it('give jq output, or decline, on records made to trip it', () => {
    const tricky = [
      '{"n":[1.0,1.50,1E+2,1e2,-0,0,100000000000000000001,0.1,1e-7,0.0000001,5e-324,123456789012345,12345]}',
      '{"id":505874924095815700,"big":[9007199254740993,9007199254740992,1000000000000000000000,999999999999999900000],"f":0.30000000000000004}',
      '{"s":"x\\u007fy\u007f\\u00e9\\ud83d\\ude00 \\u2028 \\u001b \\/ \\"q\\" tab\\t é 😀"}',
      '{"1":1,"b":2,"0":3}',
      '{"a":1,"b":2,"a":3}',
      '{"__proto__":{"x":1},"constructor":2,"toString":3,"hasOwnProperty":null}',
      '{"lone":"\\ud800"}',
      '[1,[2,[3,[]]],{},{"a":[]}]',
      '"just a string"',
      '42',
      'null',
      'true',
      '{"nested":{"a":{"b":{"c":[1,2,{"d":"deep"}]}}}}',
      '{"a":"b","Action":"pass","Test":"T","Elapsed":0.5}',
    ];
    const filters = [
      ...COMMON,
      '.n',
      '.n[]',
      '.n | length',
      '.s',
      '.s | length',
      '.__proto__',
      '.constructor',
      '.toString',
      '{__proto__: .a}',
      '{"1": .a}',
      '.lone',
      '.[1]',
      '.[5]',
      '.nested.a.b.c[2].d',
      'select(.a == "b")',
      'select(.n == [1.0])',
      'select(. == 42)',
      'select(. > 41)',
      '. < "k"',
      '[.[]?]',
      'map(.)',
      '.a.b?',
      '.[]? | .a?',
      'length > 2',
      'keys | length',
      '(.a, .b) | length',
      '.a == .b',
      'true and false, null or 1, (1 | not)',
      '{a: 1, b: "two", c: null, d: true, e: [1]}',
      '.x.y.z',
    ];
    let answered = 0;
    for (const r of tricky) answered += compareAll([r], filters).answered;
    answered += compareAll(tricky, filters).answered;
    expect(answered).toBeGreaterThan(400);
  });

  it('give jq output on random filters over random records', () => {
    const rnd = seeded(7).below;
    const pick = <T>(xs: readonly T[]): T => xs[rnd(xs.length)];
    const NUMBERS = ['0', '1', '-3', '0.5', '2.25', '10', '1e2', '1.0', '123456789012345678', '-0.125'];
    const STRINGS = ['"s"', '""', '"é"', '"😀"', '"a\u007f"', '"\n"', '"pass"', '"Z"', '"a"'];
    const KEYS = ['a', 'b', 'c', 'x y'];
    const value = (depth: number): string => {
      const k = rnd(depth > 2 ? 4 : 7);
      if (k === 0) return pick(NUMBERS);
      if (k === 1) return pick(STRINGS);
      if (k === 2) return pick(['null', 'true', 'false']);
      if (k === 3) return pick(NUMBERS);
      if (k === 4) return `[${Array.from({ length: rnd(4) }, () => value(depth + 1)).join(',')}]`;
      return `{${Array.from({ length: rnd(4) }, () => `${JSON.stringify(pick(KEYS))}:${value(depth + 1)}`).join(',')}}`;
    };
    const path = () => pick(['.', '.a', '.b', '.a.b', '.[0]', '.[]', '.a[]?', '."x y"', '.[1]?', '.c?', '.a?.b?', '.[]?']);
    const literal = () => pick(['1', '0.5', '"s"', 'null', 'true', 'false', '"pass"', '10']);
    const filter = (depth: number): string => {
      const k = rnd(depth > 1 ? 2 : 11);
      if (k <= 1) return path();
      if (k === 2) return `${path()} | ${filter(depth + 1)}`;
      if (k === 3) return `${filter(depth + 1)}, ${path()}`;
      if (k === 4) return `select(${path()} ${pick(['==', '!=', '<', '<=', '>', '>='])} ${literal()})`;
      if (k === 5) return `{a: ${path()}, b}`;
      if (k === 6) return `[${filter(depth + 1)}]`;
      if (k === 7) return `map(${path()})`;
      if (k === 8) return `${path()} | ${pick(['length', 'keys', 'not'])}`;
      if (k === 9) return `select(${path()} ${pick(['and', 'or'])} ${path()})`;
      return `(${filter(depth + 1)}) ${pick(['==', '<', '>='])} ${path()}`;
    };
    let answered = 0;
    for (let i = 0; i < Number(process.env.FUZZ_N ?? 400); i++) {
      const records = Array.from({ length: 1 + rnd(3) }, () => value(0));
      answered += compareAll(records, [filter(0)]).answered;
    }
    expect(answered).toBeGreaterThan(300);
  });

  it('declines a record nested deeper than it goes, and an input larger than it takes', () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    expect(runFast(input([deep]), '.', ['-c', '--'], () => undefined)).toBeNull();
    const big = Array.from({ length: 60_000 }, (_, i) => `{"i":${i},"pad":"${'x'.repeat(64)}"}`);
    expect(runFast(input(big), 'length', ['-s', '--'], () => undefined)).toBeNull();
    expect(runFast(input(big.slice(0, 1000)), 'length', ['-s', '--'], () => undefined)).not.toBeNull();
  });

  it('declines what it cannot be sure of, before writing anything', () => {
    const rec = ['{"a":1.0,"b":"x"}'];
    for (const [filter, flags] of [
      ['.a', ['-c']], // 1.0: jq keeps the literal
      ['.b', ['-S']], // a flag it does not take
      ['.b', ['-e']],
      ['.b | ascii_downcase', ['-c']], // a builtin it does not know
      ['.b as $x | $x', ['-c']],
      ['.a + 1', ['-c']],
      ['.[-1]', ['-c']],
      ['.b | .x', ['-c']], // an error: jq's message is jq's to give
      ['select((.a, .a) == 1)', ['-c']],
      ['.b # a comment', ['-c']],
      ['"\\(.b)"', ['-c']],
    ] as const) {
      let wrote = false;
      expect(runFast(input(rec), filter, [...flags, '--'], () => void (wrote = true)), filter).toBeNull();
      expect(wrote).toBe(false);
    }
  });
});
