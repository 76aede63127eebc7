// A continuation made as a value (budget.ts Next): the command table's inverse (commands/argv.ts) prints it as the
// `lro …` line the CLI parses back to the same input, and the MCP server makes its tool call from the value alone.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { commandLine, nextCommand } from '../../src/commands/argv.js';
import { readCommand } from '../../src/commands/read.js';
import { WHERE_LAYOUT, whereCommand } from '../../src/commands/where.js';
import { COUNT_LAYOUT, countCommand } from '../../src/commands/count.js';
import { nextGrep } from '../../src/commands/grep.js';
import { JQ_LAYOUT, jqCommand } from '../../src/commands/jq.js';
import { DIFF_LAYOUT, diffCommand } from '../../src/commands/diff.js';
import { INFO_LAYOUT, infoCommand } from '../../src/commands/info.js';
import { LS_LAYOUT, lsCommand } from '../../src/commands/ls.js';
import { CallReader } from '../../src/mcp/calls.js';
import { callOfLine } from '../helpers/shell-words.js';
import { loadToolDefs, type ToolDef } from '../../src/mcp/definitions.js';
import { OutputBudget } from '../../src/budget.js';
import type { RunCapture } from '../../src/io.js';

const ID = '01M8165DT1CVS5F6496PDNJ3DY';
let defs: ToolDef[];
let calls: CallReader;

beforeAll(async () => {
  defs = await loadToolDefs();
  calls = new CallReader(defs);
});

describe('commandLine', () => {
  it('prints lro read as it printed its continuations before: arguments, then options in declaration order', () => {
    expect(commandLine(readCommand, { id: ID, records: '13:20', maxTokens: '150' })).toBe(`lro read ${ID} --records 13:20 --max-tokens 150`);
    expect(commandLine(readCommand, { id: ID, records: '5', columns: '2000:', raw: true, stream: 'stderr', maxTokens: '50', dir: '/a b' })).toBe(
      `lro read ${ID} --records 5 --columns 2000: --raw --stream stderr --max-tokens 50 --dir '/a b'`,
    );
    expect(commandLine(readCommand, { id: ID, chars: '4000:8000', raw: false, dir: undefined })).toBe(`lro read ${ID} --chars 4000:8000`);
  });

  it('puts an argument that begins with a dash after --', () => {
    expect(commandLine(readCommand, { id: '-x', records: '1' })).toBe("lro read --records 1 -- -x");
  });

  it('makes the line CallReader reads back to the call fromNext makes, for any values', async () => {
    const value = fc.option(fc.string({ minLength: 1 }), { nil: undefined });
    await fc.assert(
      fc.asyncProperty(fc.record({ records: value, columns: value, raw: fc.boolean(), maxTokens: fc.option(fc.nat().map(String), { nil: undefined }) }), async (o) => {
        const next = nextCommand(readCommand, { id: ID, ...o });
        expect(await callOfLine(calls, next.text)).toEqual(calls.fromNext(next));
      }),
      { numRuns: 50 },
    );
  });
});

describe('fromNext', () => {
  it('makes the tool call from the value, the server-only --dir dropped', () => {
    const next = nextCommand(readCommand, { id: ID, records: '5', columns: '0:2000', raw: true, maxTokens: '50', dir: '/store' });
    expect(calls.fromNext(next)).toEqual({ tool: 'lro_read', arguments: { id: ID, records: '5', columns: '0:2000', raw: true, max_tokens: 50 } });
  });

  it('gives no call for a command no tool runs or an option its tool does not offer', () => {
    expect(calls.fromNext({ command: 'gc', input: {}, text: 'lro gc' })).toBeNull();
    expect(calls.fromNext({ command: 'read', input: { id: ID, lines: '1:2' }, text: '' })).toBeNull();
  });

  it('reaches the MCP layer as the continuation made, not as its printed line', async () => {
    const next = nextCommand(readCommand, { id: ID, records: '9:' });
    const run: RunCapture = { lines: [], values: [], maxBytes: Infinity };
    new OutputBudget(2000, undefined, run).continuation('showed records 1-8', next);
    expect(run.lines).toEqual([{ what: 'showed records 1-8', mentions: [], next, line: `[lro: showed records 1-8; next: ${next.text}]\n` }]);
  });
});

/** A condition or a --by as a model writes one (spaces, quotes, operators; a dash first sometimes). */
const word = fc.oneof(fc.constantFrom('status=error', 'latency>500', "msg~time(d )?out", 'user.id?', "it's", '-x=1', 'a b'), fc.string({ minLength: 1, maxLength: 12 }));
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });

describe('lro where and lro count continuations as values', () => {
  it('prints where as its continuations printed before: conditions, options, --records last', () => {
    const input = { id: ID, condition: ['status=error', 'latency>500'], any: true, ignoreCase: true, fields: 'id,msg', maxCount: '7', stream: 'stderr', maxTokens: '50', dir: '/a b', records: '12:' };
    expect(nextCommand(whereCommand, input, WHERE_LAYOUT).text).toBe(
      `lro where ${ID} status=error 'latency>500' --any -i --fields id,msg -m 7 --stream stderr --max-tokens 50 --dir '/a b' --records 12:`,
    );
  });

  it('prints count as its continuations printed before: --by before the conditions, --groups last', () => {
    const input = { id: ID, by: ['status', 'user name'], condition: ['a=1'], any: true, ignoreCase: true, distinct: true, records: '1:100', json: true, stream: 'stdout', maxTokens: '80', dir: '/s', groups: '21:' };
    expect(nextCommand(countCommand, input, COUNT_LAYOUT).text).toBe(
      `lro count ${ID} --by status --by 'user name' a=1 --any -i --distinct --records 1:100 --json --stream stdout --max-tokens 80 --dir /s --groups 21:`,
    );
  });

  it('makes lines CallReader reads back to the call fromNext makes, for any conditions and options', async () => {
    const where = fc.record({ condition: fc.array(word, { minLength: 1, maxLength: 3 }), any: maybe(fc.constant(true)), ignoreCase: maybe(fc.constant(true)), fields: maybe(word), maxCount: maybe(fc.nat(50).map(String)), maxTokens: maybe(fc.nat().map(String)), records: fc.constantFrom('3:', '3:9', '1') });
    await fc.assert(
      fc.asyncProperty(where, async (o) => {
        const next = nextCommand(whereCommand, { id: ID, ...o }, WHERE_LAYOUT);
        const call = calls.fromNext(next);
        expect(call?.tool).toBe('lro_where');
        expect(await callOfLine(calls, next.text)).toEqual(call);
      }),
      { numRuns: 60 },
    );
    const count = fc.record({ by: fc.array(word, { maxLength: 2 }), condition: fc.array(word, { maxLength: 2 }), distinct: maybe(fc.constant(true)), json: maybe(fc.constant(true)), groups: fc.constantFrom('5:', '2:8') });
    await fc.assert(
      fc.asyncProperty(count, async (o) => {
        const next = nextCommand(countCommand, { id: ID, ...o }, COUNT_LAYOUT);
        const call = calls.fromNext(next);
        expect(call?.tool).toBe(o.json ? undefined : 'lro_count'); // lro_count has no --json: no call made of either
        expect(await callOfLine(calls, next.text)).toEqual(call);
      }),
      { numRuns: 60 },
    );
  });

  it('fails on a layout naming what the command does not have', () => {
    expect(() => commandLine(whereCommand, { id: ID }, ['--nope'])).toThrow('lro where has no argument or option --nope');
  });
});

describe('lro grep continuations as values', () => {
  it('prints grep as its continuations printed before: flags in grep order, --strings, --records, --from', () => {
    const input = { id: ID, pattern: 'a b', fixedStrings: true, ignoreCase: true, wordRegexp: true, invertMatch: true, afterContext: '2', beforeContext: '1', maxCount: '4', json: true, stream: 'stderr', raw: true, maxTokens: '60', dir: '/d', records: '9:', from: '11' };
    expect(nextGrep(input).text).toBe(`lro grep ${ID} 'a b' -F -i -w -v -A 2 -B 1 -m 4 --json --stream stderr --raw --max-tokens 60 --dir /d --records 9: --from 11`);
    expect(nextGrep({ id: ID, pattern: 'GLIBC_[0-9.]+', context: '3', strings: true, records: '40:' }).text).toBe(`lro grep ${ID} 'GLIBC_[0-9.]+' -C 3 --strings --records 40:`);
  });

  it('prints grep --all as it printed before: the flags, the filters, --from, the pattern last (after -- when it begins with one)', () => {
    const input = { id: 'timeout', all: true, filesWithMatches: true, ignoreCase: true, maxTokens: '8000', session: 's1', since: '2026-11-29T00:00:00.000Z', source: 'npm test', from: `${ID}:5` };
    expect(nextGrep(input).text).toBe(`lro grep --all -l -i --max-tokens 8000 --session s1 --since 2026-11-29T00:00:00.000Z --source 'npm test' --from ${ID}:5 timeout`);
    expect(nextGrep({ id: '-x', all: true, count: true, from: ID }).text).toBe(`lro grep --all -c --from ${ID} -- -x`);
  });

  it('makes lines CallReader reads back to the call fromNext makes, one result or all', async () => {
    const flag = maybe(fc.constant(true));
    const n = maybe(fc.integer({ min: 1, max: 9 }).map(String));
    const search = { fixedStrings: flag, ignoreCase: flag, wordRegexp: flag, invertMatch: flag, afterContext: n, beforeContext: n, maxCount: n, raw: flag, maxTokens: n };
    const one = fc.record({ pattern: word, ...search, records: fc.constantFrom('3:', '3:9'), from: n });
    await fc.assert(
      fc.asyncProperty(one, async (o) => {
        const next = nextGrep({ id: ID, ...o });
        const call = calls.fromNext(next);
        expect(call?.tool).toBe(o.raw ? undefined : 'lro_grep'); // lro_grep has no --raw: no call made of either
        expect(await callOfLine(calls, next.text)).toEqual(call);
      }),
      { numRuns: 60 },
    );
    const all = fc.record({ id: word, ...search, session: maybe(fc.constantFrom('s1', 'ci-7')), source: maybe(word), from: fc.constantFrom(ID, `${ID}:4`) });
    await fc.assert(
      fc.asyncProperty(all, async (o) => {
        const next = nextGrep({ ...o, all: true });
        const call = calls.fromNext(next);
        const offered = !o.raw && o.session === undefined && o.source === undefined; // lro_grep has no filters of the store
        expect(call?.tool).toBe(offered ? 'lro_grep' : undefined);
        expect(await callOfLine(calls, next.text)).toEqual(call);
      }),
      { numRuns: 60 },
    );
  });
});

describe('lro jq, diff, info and ls continuations as values', () => {
  it('prints jq as its continuations printed before: output flags, -s -n -e, --header, the variables, --records, --skip-lines', () => {
    const input = { id: ID, filter: '.a | {b}', rawOutput: true, compactOutput: true, sortKeys: true, indent: '3', slurp: true, exitStatus: true, arg: ['user=al ice', 'n=1'], argjson: ['x={"a":1}'], records: '5:', skipLines: '12', maxTokens: '90', dir: '/a b' };
    expect(nextCommand(jqCommand, input, JQ_LAYOUT).text).toBe(
      `lro jq ${ID} '.a | {b}' -r -c -S --indent 3 -s -e --arg user 'al ice' --arg n 1 --argjson x '{"a":1}' --records 5: --skip-lines 12 --max-tokens 90 --dir '/a b'`,
    );
    // a filter that begins with a dash goes after --, the id before the options (as lro jq's usage error says)
    expect(nextCommand(jqCommand, { id: ID, filter: '-(range(40))', header: true, skipLines: '3' }, JQ_LAYOUT).text).toBe(`lro jq ${ID} --header --skip-lines 3 -- '-(range(40))'`);
  });

  it('makes jq lines CallReader reads back to the call fromNext makes', async () => {
    const flag = maybe(fc.constant(true));
    const jq = fc.record({ filter: word, rawOutput: flag, compactOutput: flag, slurp: flag, header: flag, arg: fc.array(fc.tuple(fc.constantFrom('a', 'user_1'), word).map(([k, v]) => `${k}=${v}`), { maxLength: 2 }), records: maybe(fc.constantFrom('3:', '3:9')), skipLines: maybe(fc.nat(99).map(String)), maxTokens: maybe(fc.nat().map(String)) });
    await fc.assert(
      fc.asyncProperty(jq, async (o) => {
        const next = nextCommand(jqCommand, { id: ID, ...o }, JQ_LAYOUT);
        const call = calls.fromNext(next);
        expect(call?.tool).toBe('lro_jq');
        expect(await callOfLine(calls, next.text)).toEqual(call);
      }),
      { numRuns: 60 },
    );
  });

  it('prints diff, info and ls as their continuations printed before', () => {
    const diff = { a: ID, b: ID, key: 'metadata name', lines: true, json: true, maxTokens: '400', dir: '/d', from: '17' };
    expect(nextCommand(diffCommand, diff, DIFF_LAYOUT).text).toBe(`lro diff ${ID} ${ID} --key 'metadata name' --lines --json --max-tokens 400 --dir /d --from 17`);
    const info = { id: ID, header: true, from: '4000', descriptor: 'text', previewTokens: '300', maxTokens: '500', dir: '/d' };
    expect(nextCommand(infoCommand, info, INFO_LAYOUT).text).toBe(`lro info ${ID} --header --from 4000 --descriptor text --preview-tokens 300 --max-tokens 500 --dir /d`);
    const ls = { offset: '40', json: true, session: 'ci 7', operation: 'npm-test', expired: true, maxTokens: '100', dir: '/d' };
    expect(nextCommand(lsCommand, ls, LS_LAYOUT).text).toBe("lro ls --offset 40 --json --session 'ci 7' --operation npm-test --expired --max-tokens 100 --dir /d");
    expect(nextCommand(lsCommand, { sessions: true, offset: '9' }, LS_LAYOUT).text).toBe('lro ls --sessions --offset 9');
  });

  it('makes the tool call of a cut diff from the value', () => {
    const next = nextCommand(diffCommand, { a: ID, b: ID, key: 'id', maxTokens: '400', from: '17' }, DIFF_LAYOUT);
    expect(calls.fromNext(next)).toEqual({ tool: 'lro_diff', arguments: { a: ID, b: ID, key: 'id', max_tokens: 400, from: 17 } });
  });
});
