// Commands as tool calls from their words: every form of continuation and recipe lro prints (read back here by the
// test's shellWords, as shellQuote writes them), and the round trip arguments -> words -> arguments for every tool.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { shellQuote } from '../../src/shell-quote.js';
import { callOfLine, shellWords } from '../helpers/shell-words.js';
import { toArgv, checkArguments } from '../../src/mcp/arguments.js';
import { CallReader, formatCall } from '../../src/mcp/calls.js';
import { loadToolDefs, type ToolDef } from '../../src/mcp/definitions.js';
import { TOOLS } from '../../src/mcp/tools.js';

const ID = '01M8165DT1CVS5F6496PDNJ3DY';
let defs: ToolDef[];
let calls: CallReader;

beforeAll(async () => {
  defs = await loadToolDefs();
  calls = new CallReader(defs);
});

describe('shellWords', () => {
  it('reads back any words shellQuote wrote', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary' }), { minLength: 1, maxLength: 6 }), (words) => {
        expect(shellWords(words.map(shellQuote).join(' '))).toEqual(words);
      }),
    );
  });

  it('refuses what a shell would treat specially', () => {
    for (const line of [`lro cat ${ID} > file.bin`, `lro cat ${ID} | file -`, 'echo $HOME', 'a "b"', "it's"]) expect(shellWords(line), line).toBeNull();
  });
});

describe('CallReader', () => {
  const read = (line: string) => callOfLine(calls, line);

  it('reads the continuations of read, grep and jq', async () => {
    expect(await read(`lro read ${ID} --records 13:20 --max-tokens 150`)).toEqual({ tool: 'lro_read', arguments: { id: ID, records: '13:20', max_tokens: 150 } });
    expect(await read(`lro read ${ID} --records 5 --columns 2000: --raw --max-tokens 50 --dir /some/store`)).toEqual({
      tool: 'lro_read',
      arguments: { id: ID, records: '5', columns: '2000:', raw: true, max_tokens: 50 },
    });
    expect(await read(`lro read ${ID} --chars 4000:8000`)).toEqual({ tool: 'lro_read', arguments: { id: ID, chars: '4000:8000' } });
    expect(await read(`lro grep ${ID} 'Invalid user (\\w+)' -i -w -v -C 2 -m 3 --max-tokens 100 --records 45:`)).toEqual({
      tool: 'lro_grep',
      arguments: { id: ID, pattern: 'Invalid user (\\w+)', ignore_case: true, word_regexp: true, invert_match: true, context: 2, max_count: 3, max_tokens: 100, records: '45:' },
    });
    expect(await read(`lro grep ${ID} -F 'it'\\''s' -A 1 -B 2`)).toEqual({
      tool: 'lro_grep',
      arguments: { id: ID, pattern: "it's", fixed_strings: true, after_context: 1, before_context: 2 },
    });
    expect(await read(`lro jq ${ID} 'select(.user == $u and .n > $n)' -c -s --arg u 'alice smith' --argjson n 3 --records 5: --skip-lines 2 --max-tokens 100`)).toEqual({
      tool: 'lro_jq',
      arguments: { id: ID, filter: 'select(.user == $u and .n > $n)', compact_output: true, slurp: true, arg: { u: 'alice smith' }, argjson: { n: 3 }, records: '5:', skip_lines: 2, max_tokens: 100 },
    });
  });

  it('reads the commands of descriptors: recipes, guidance, more fields', async () => {
    expect(await read(`lro jq ${ID} -s -c 'group_by(.type) | map({value: (.[0] | .type), count: length})'`)).toEqual({
      tool: 'lro_jq',
      arguments: { id: ID, filter: 'group_by(.type) | map({value: (.[0] | .type), count: length})', slurp: true, compact_output: true },
    });
    expect(await read(`lro info ${ID} --full`)).toEqual({ tool: 'lro_info', arguments: { id: ID, full: true } });
    expect(await calls.fromWords(['grep', ID, '-F', '-C', '3', '--', '-x failed'])).toEqual({
      tool: 'lro_grep',
      arguments: { id: ID, pattern: '-x failed', fixed_strings: true, context: 3 },
    });
  });

  it('gives null for what no tool does', async () => {
    for (const line of [
      `lro cat ${ID}`, // no tool
      `lro grep ${ID} x --json`, // an option the tool does not offer
      `lro jq ${ID} . -j`,
      `lro read ${ID} --no-such-option`,
      `lro read`, // missing argument
      `tail -n +2 /tmp/x.jsonl | jq .`,
      'lro',
    ]) {
      expect(await read(line), line).toBeNull();
    }
  });

  it('formats a call as the tool name and its arguments as JSON', () => {
    expect(formatCall({ tool: 'lro_read', arguments: { id: ID, head: 5 } })).toBe(`lro_read {"id":"${ID}","head":5}`);
  });
});

/** Arguments for a tool: any strings, numbers and flags, as checkArguments accepts them. */
function argumentsFor(def: ToolDef): fc.Arbitrary<Record<string, unknown>> {
  const text = fc.string({ unit: 'binary', maxLength: 30 });
  const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/);
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  if (def.spec.stdin) fields[def.spec.stdin] = text;
  for (const p of def.positionals) fields[p.name] = p.variadic ? fc.array(text, { minLength: 1, maxLength: 3 }) : text;
  for (const o of def.options) {
    const value: Record<string, fc.Arbitrary<unknown>> = {
      string: o.choices ? fc.constantFrom(...o.choices) : text,
      integer: fc.nat({ max: 100000 }),
      boolean: fc.constant(true),
      strings: fc.dictionary(name, text, { minKeys: 1, maxKeys: 3 }),
      json: fc.dictionary(name, fc.jsonValue({ maxDepth: 2 }), { minKeys: 1, maxKeys: 3 }),
      list: fc.array(text, { minLength: 1, maxLength: 3 }),
    };
    fields[o.arg] = value[o.type];
  }
  const required = [...(def.spec.stdin ? [def.spec.stdin] : []), ...def.positionals.map((p) => p.name)];
  return fc.record(fields, { requiredKeys: required });
}

describe('arguments -> command line -> arguments', () => {
  for (const spec of TOOLS.filter((t) => !t.stdin)) {
    it(`${spec.name}: the words toArgv builds make the same call`, async () => {
      const def = defs.find((d) => d.spec.name === spec.name)!;
      await fc.assert(
        fc.asyncProperty(argumentsFor(def), async (args) => {
          checkArguments(def, args);
          const argv = toArgv(def, args);
          const back = await calls.fromWords([argv[0], ...argv.slice(1 + (def.spec.fixed ?? []).length)]); // without the fixed flags
          // JSON values come back as JSON.parse reads them (-0 is 0)
          expect(back).toEqual({ tool: spec.name, arguments: JSON.parse(JSON.stringify(args)) });
        }),
        { numRuns: 60 },
      );
    });
  }
});
