// What every session of an MCP client pays before its first call: lro's tools/list, counted as sent (the whole
// JSON-RPC line) with lro's own tokenizer, must stay under 1,500 tokens, in `lro mcp` and as `lro mcp proxy` adds
// the tools; initialize's instructions stay short too. Leaner must not mean less: every argument the tools took
// when the list cost 3,757 tokens (o200k_base) is listed here with its type, and is still listed and accepted.
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getTokenizer, type Encoding } from '../../src/tokens/tokenizer.js';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { INITIALIZE, NODE } from '../helpers/mcp.js';

// 1,500 for the eight tools of the lean list (1,498 with lro_grep's store-wide search); lro_diff (issue 26), a tool
// of its own, costs 131 more, and lro_read's and lro_grep's stream (which of lro run's streams) and grep's strings
// (a binary result's) 37: the list as a whole is held under 1,700
const BUDGET = 1700;
const INSTRUCTIONS_BUDGET = 100;
const FAKE = resolve(__dirname, '../helpers/fake-upstream.mjs');

/**
 * Every argument of every tool as listed before the list was made lean, NAME:TYPE (an enum in brackets, the type
 * of an array's items or an object's values in angle brackets); a required one is marked with a *. lro_diff came
 * after, as it is.
 */
const BEFORE_TEXT: Record<string, string> = {
  lro_read: '*id:string records:string head:integer tail:integer chars:string columns:string raw:boolean max_tokens:integer',
  lro_grep:
    '*id:string *pattern:string ignore_case:boolean fixed_strings:boolean word_regexp:boolean invert_match:boolean ' +
    'count:boolean max_count:integer context:integer before_context:integer after_context:integer records:string ' +
    'max_tokens:integer',
  lro_jq:
    '*id:string *filter:string compact_output:boolean raw_output:boolean slurp:boolean null_input:boolean ' +
    'sort_keys:boolean arg:object<string> argjson:object header:boolean records:string skip_lines:integer ' +
    'max_tokens:integer',
  lro_where:
    '*id:string *condition:array<string> any:boolean fields:string count:boolean max_count:integer ' +
    'ignore_case:boolean records:string explain:boolean max_tokens:integer',
  lro_count: '*id:string by:array<string> records:string groups:string explain:boolean max_tokens:integer',
  lro_diff: '*a:string *b:string key:string lines:boolean from:integer max_tokens:integer',
  lro_info: '*id:string full:boolean header:boolean preview_tokens:integer',
  lro_ls: 'session:string operation:string expired:boolean',
  lro_offload:
    '*content:string force:boolean threshold:integer format:string[auto,text,json,jsonl] operation:string ' +
    'query:string session:string meta:object<string> ttl:string preview_tokens:integer',
};
const BEFORE = Object.fromEntries(
  Object.entries(BEFORE_TEXT).map(([tool, text]) => [tool, text.split(' ').map((a) => /^(\*?)(\w+):(.+)$/.exec(a)!)]),
);
/**
 * Arguments added since, optional ones: lro count's conditions (as lro_where's) and --distinct; grep's --from,
 * --stream and --strings; read's --stream.
 */
const ADDED: Record<string, Record<string, string>> = {
  lro_count: { condition: 'array<string>', distinct: 'boolean' },
  lro_grep: { from: 'string', stream: 'string[stdout,stderr,both]', strings: 'boolean' },
  lro_read: { stream: 'string[stdout,stderr,both]' },
};
const argsOf = (tool: string) => ({ ...Object.fromEntries(BEFORE[tool].map(([, , name, type]) => [name, type])), ...ADDED[tool] });
const requiredOf = (tool: string) => BEFORE[tool].filter(([, star]) => star).map(([, , name]) => name);

/** Arguments every lro tool shares, explained once, in lro_read's description, rather than in each tool. */
const SHARED = ['id', 'records', 'max_tokens'];
/**
 * Arguments listed with no description, as their name and type say what they are: grep's and jq's own options (the
 * tools say they are grep's and jq's), what the tool's description gives (the pattern, the filter), or a name and
 * type that leave no doubt (head: integer, format: one of auto, text, json, jsonl).
 */
const SELF_EVIDENT: Record<string, string[]> = {
  lro_read: ['head', 'tail', 'stream'],
  lro_grep: ['pattern', 'ignore_case', 'fixed_strings', 'word_regexp', 'invert_match', 'count', 'max_count']
    .concat(['stream', 'strings'])
    .concat(['context', 'before_context', 'after_context']),
  lro_jq: ['filter', 'compact_output', 'raw_output', 'null_input', 'sort_keys'],
  lro_where: ['max_count'],
  lro_info: ['preview_tokens'],
  lro_diff: ['from'],
  lro_offload: ['format', 'session', 'preview_tokens'],
};

type Schema = { type?: string; enum?: string[]; items?: Schema; additionalProperties?: Schema | boolean; description?: string };
type Tool = { name: string; description: string; inputSchema: { properties: Record<string, Schema>; required?: string[] } };

const tokens = (text: string, encoding: Encoding) => getTokenizer(encoding).count(text);
const typeOf = (s: Schema): string =>
  `${s.type}${s.enum ? `[${s.enum.join(',')}]` : ''}${s.items ? `<${s.items.type}>` : ''}` +
  (typeof s.additionalProperties === 'object' ? `<${s.additionalProperties.type}>` : '');

/** The lines `lro ARGS` writes for a client session that sends `more` after initialize. */
async function session(args: string[], more: object[], store: string): Promise<string[]> {
  const initialized = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const lines = [INITIALIZE, initialized, ...more.map((m) => JSON.stringify(m))];
  const r = await lro(args, { input: `${lines.join('\n')}\n`, env: { LRO_DIR: store } });
  expect(r.code, r.stderr).toBe(0);
  return r.out.trim().split('\n');
}
const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
const byId = (lines: string[], id: number) => lines.find((l) => JSON.parse(l).id === id)!;

let root: string;
let initLine: string;
let listLine: string;
let tools: Tool[];

beforeAll(async () => {
  root = tempDir();
  const lines = await session(['mcp'], [LIST], join(root, 'store'));
  initLine = byId(lines, 1);
  listLine = byId(lines, 2);
  tools = JSON.parse(listLine).result.tools;
});
afterAll(() => cleanup(root));

describe('lro mcp: the cost of the tool list', () => {
  it(`tools/list, as sent, is under ${BUDGET} tokens (o200k_base and cl100k_base)`, () => {
    for (const encoding of ['o200k_base', 'cl100k_base'] as const) {
      const per = tools.map((t) => `${t.name} ${tokens(JSON.stringify(t), encoding)}`).join(', ');
      expect(tokens(listLine, encoding), `${encoding}: ${per}`).toBeLessThan(BUDGET);
    }
  });

  it(`initialize's instructions are under ${INSTRUCTIONS_BUDGET} tokens and name every tool`, () => {
    const instructions: string = JSON.parse(initLine).result.instructions;
    expect(tokens(instructions, 'o200k_base')).toBeLessThan(INSTRUCTIONS_BUDGET);
    for (const name of Object.keys(BEFORE)) expect(instructions).toContain(name);
  });

  it('the proxy adds the same tools (all but lro_offload), as lean', async () => {
    const lines = await session(['mcp', 'proxy', '--', NODE, FAKE], [LIST], join(root, 'store-proxy'));
    const listed: Tool[] = JSON.parse(byId(lines, 2)).result.tools;
    const ours = listed.filter((t) => t.name.startsWith('lro_'));
    expect(ours).toEqual(tools.filter((t) => t.name !== 'lro_offload'));
    expect(tokens(JSON.stringify(ours), 'o200k_base')).toBeLessThan(BUDGET);
  });
});

describe('lro mcp: no tool lost an argument', () => {
  it('every argument taken before is listed with its type, enum and whether it is required', () => {
    expect(tools.map((t) => t.name)).toEqual(Object.keys(BEFORE));
    for (const t of tools) {
      const listed = Object.fromEntries(Object.entries(t.inputSchema.properties).map(([k, s]) => [k, typeOf(s)]));
      expect(listed, t.name).toEqual(argsOf(t.name));
      expect(t.inputSchema.required ?? [], t.name).toEqual(requiredOf(t.name));
    }
  });

  it("every argument is described: by itself, by its tool, by lro_read (id, records, max_tokens) or by its name", () => {
    const described = (name: string) => tools.find((t) => t.name === name)!.description;
    for (const name of SHARED) expect(described('lro_read')).toContain(name);
    expect(described('lro_grep')).toContain('like grep');
    expect(described('lro_jq')).toContain("options as jq's");
    for (const t of tools) {
      for (const [name, s] of Object.entries(t.inputSchema.properties)) {
        const told = !!s.description || new RegExp(`\\b${name}\\b`).test(t.description) || SHARED.includes(name);
        expect(told || (SELF_EVIDENT[t.name] ?? []).includes(name), `${t.name} ${name}`).toBe(true);
      }
    }
  });

  it('every argument is still accepted: a call giving it is never refused as an unknown or invalid argument', async () => {
    const store = join(root, 'store-calls');
    const stored = await lro(['offload', '--force', '--format', 'json'], { input: '[{"a":1},{"a":2}]', env: { LRO_DIR: store } });
    expect(stored.code, stored.stderr).toBe(0);
    const required: Record<string, unknown> = { id: 'last', pattern: 'a', filter: '.', condition: ['a=1'], content: 'x', a: 'last', b: 'last' };
    const sample: Record<string, unknown> = {
      ...{ string: '1:2', integer: 1, boolean: true, 'array<string>': ['a'], object: { n: 1 }, 'object<string>': { k: 'v' } },
      'string[auto,text,json,jsonl]': 'text',
      'string[stdout,stderr,both]': 'both',
    };
    const calls = Object.keys(BEFORE).flatMap((name) => {
      const base = Object.fromEntries(requiredOf(name).map((k) => [k, required[k]]));
      return Object.entries(argsOf(name)).map(([arg, type]) => {
        const value = required[arg] ?? sample[type];
        if (value === undefined) throw new Error(`no sample value of ${type} for ${name} ${arg}`);
        return { name, arg, args: { ...base, [arg]: value } };
      });
    });
    const messages = calls.map((c, i) => ({ jsonrpc: '2.0', id: 10 + i, method: 'tools/call', params: { name: c.name, arguments: c.args } }));
    const lines = await session(['mcp'], messages, store);
    calls.forEach((c, i) => {
      const answer = JSON.parse(byId(lines, 10 + i));
      expect(JSON.stringify(answer.result?.content ?? answer.error), `${c.name} ${c.arg}`).not.toMatch(/invalid arguments|unknown argument/);
    });
  });
});
