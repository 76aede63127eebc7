// A tool result's next call always moves on, at any max_tokens: following `structuredContent.next` from a budget of
// 1 token up never repeats a call already made, and the calls end (the CLI's pages: e2e/continuations-progress).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LroTools } from '../../src/mcp/lro-tools.js';
import { cleanup, tempDir } from '../helpers/cli.js';

type Call = { tool: string; arguments: Record<string, unknown> };
type NextCall = Call & { same_arguments_as_this_call?: true };

let root: string;
let tools: LroTools;
let id: string;
let long: string;

beforeAll(async () => {
  root = tempDir();
  tools = await LroTools.load({ LRO_DIR: join(root, 'store') });
  const stored = async (content: string) => ((await tools.call('lro_offload', { content, force: true })).structuredContent as { id: string }).id;
  id = await stored(Array.from({ length: 80 }, (_, i) => JSON.stringify({ id: i, level: ['info', 'warn', 'error'][i % 3], msg: `event number ${i} ${'word '.repeat(i % 7)}` })).join('\n'));
  long = await stored(`a\n${'long words '.repeat(400)}\nb\n`);
});
afterAll(() => cleanup(root));

describe("a tool result's next call", () => {
  it('moves on at every budget, for every tool that cuts its output', async () => {
    const problems: string[] = [];
    const firsts = (): Call[] => [
      { tool: 'lro_read', arguments: { id } },
      { tool: 'lro_read', arguments: { id: long } },
      { tool: 'lro_grep', arguments: { id, pattern: 'error' } },
      { tool: 'lro_grep', arguments: { id: long, pattern: 'words' } },
      { tool: 'lro_count', arguments: { id, by: ['msg'] } },
      { tool: 'lro_where', arguments: { id, condition: ['level=error'] } },
      { tool: 'lro_jq', arguments: { id, filter: '.msg' } },
      { tool: 'lro_diff', arguments: { a: id, b: long } },
    ];
    for (const max of [1, 5, 20, 60]) {
      for (const first of firsts()) {
        let call: Call = { tool: first.tool, arguments: { ...first.arguments, max_tokens: max } };
        const seen = new Set<string>();
        for (let page = 0; ; page++) {
          const key = JSON.stringify(call);
          if (seen.has(key) || page === 500) {
            problems.push(`${first.tool} at ${max}: ${page === 500 ? '500 calls' : `repeats ${key}`}`);
            break;
          }
          seen.add(key);
          const r = await tools.call(call.tool, call.arguments);
          expect(r.isError, `${key}: ${r.content[0].text}`).toBeFalsy();
          const next = (r.structuredContent as { next?: NextCall } | undefined)?.next;
          if (!next) break;
          call = next.same_arguments_as_this_call ? { tool: next.tool, arguments: { ...call.arguments, ...next.arguments } } : next;
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
