// lro_offload's and lro_info's results are made from the document the command gives as a value, not from its
// printed JSON: what a client receives is what it received when the server parsed that JSON (a number beyond 2^53
// as the nearest double there; the printed text keeps its digits), and it survives the worker's structured clone.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LroTools } from '../../src/mcp/lro-tools.js';
import { toolDescriptor } from '../../src/mcp/descriptor.js';
import { printedDescriptor, renderDescriptorJson, type Descriptor } from '../../src/describe/descriptor.js';
import { describeResult } from '../../src/api/results.js';
import { cleanup, lro, tempDir } from '../helpers/cli.js';

let root: string;
let env: Record<string, string>;
let tools: LroTools;

beforeAll(async () => {
  root = tempDir();
  env = { LRO_DIR: join(root, 'store') };
  tools = await LroTools.load(env);
});
afterAll(() => cleanup(root));

/** What a client receives of a structuredContent: sent from the worker by structured clone, then as JSON. */
const received = (v: unknown) => JSON.stringify(structuredClone(v));

/** A JSON document split at its array, its envelope holding an integer beyond 2^53. */
const items = Array.from({ length: 400 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ['a', 'b'] }));
const document = `{"total":9007199254740993,"items":${JSON.stringify(items)}}`;

describe('lro_offload and lro_info results from the document given', () => {
  it('a passthrough is the JSON lro offload --json prints', async () => {
    const r = await tools.call('lro_offload', { content: 'small output\n' });
    const printed = await lro(['offload', '--json'], { input: 'small output\n', env });
    expect(received(r.structuredContent)).toBe(JSON.stringify(JSON.parse(printed.out)));
  });

  it("a descriptor and a header are the JSON lro info prints, the descriptor's commands as calls", async () => {
    const stored = await tools.call('lro_offload', { content: document, force: true });
    const id = (stored.structuredContent as { id: string }).id;
    const info = await tools.call('lro_info', { id });
    const described = describeResult(id, { dir: env.LRO_DIR }); // the value, its commands' words with it
    expect(renderDescriptorJson(described)).toBe((await lro(['info', id], { env })).out);
    const tool = await toolDescriptor(described, tools.calls);
    expect(received(info.structuredContent)).toBe(JSON.stringify(printedDescriptor(tool as unknown as Descriptor)));
    expect(received(stored.structuredContent)).toBe(received(info.structuredContent));

    const header = await tools.call('lro_info', { id, header: true });
    const line = (await lro(['info', id, '--header'], { env })).out;
    expect(line).toContain('"total":9007199254740993');
    expect(header.content[0].text).toBe(line.trim()); // the text as printed, digit for digit
    expect(received(header.structuredContent)).toBe(JSON.stringify(JSON.parse(line)));
  });
});
