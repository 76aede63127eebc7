// A continuation made as a value (budget.ts Next): the command table's inverse (commands/argv.ts) prints it as the
// `lro …` line the CLI parses back to the same input, and the MCP server makes its tool call from the value alone.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { commandLine, nextCommand } from '../../src/commands/argv.js';
import { readCommand } from '../../src/commands/read.js';
import { CallReader } from '../../src/mcp/calls.js';
import { loadToolDefs, type ToolDef } from '../../src/mcp/definitions.js';
import { continuationLine, withContinuations } from '../../src/budget.js';

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
        expect(await calls.read(next.text)).toEqual(calls.fromNext(next));
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
    const { continuations } = await withContinuations(async () => continuationLine('showed records 1-8', next));
    expect(continuations).toEqual([{ what: 'showed records 1-8', next: next.text, line: `[lro: showed records 1-8; next: ${next.text}]\n`, command: next }]);
  });
});
