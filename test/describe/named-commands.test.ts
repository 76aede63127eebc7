// Every lro command a descriptor names is made as its words (describe/commands.ts) and kept in its `commands`: over
// the kinds of output in fixtures/outputs and the corpus's logs and documents, each recipe, each "more (lro …)" and
// each command the guidance quotes is there, its line is its words as a shell reads them back, and the MCP face
// turns every one a tool makes into its call, from the words (no printed `lro …` of a tool left in what it gives,
// in JSON or in the text form, whose templates line names `lro count ID --by template`).
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offload } from '../../src/offload.js';
import { describeResult } from '../../src/api/results.js';
import { printedDescriptor, type Descriptor } from '../../src/describe/descriptor.js';
import { renderDescriptorText } from '../../src/render/descriptor-text.js';
import { CallReader } from '../../src/mcp/calls.js';
import { loadToolDefs } from '../../src/mcp/definitions.js';
import { renderToolDescriptor, toolDescriptor } from '../../src/mcp/descriptor.js';
import { corpusFile } from '../helpers/corpus.js';
import { cleanup, tempDir } from '../helpers/cli.js';
import { shellWords } from '../helpers/shell-words.js';

let dir: string;
let calls: CallReader;
beforeAll(async () => {
  dir = tempDir();
  calls = new CallReader(await loadToolDefs());
});
afterAll(() => cleanup(dir));

const outputs = join(__dirname, '../../fixtures/outputs');
const inputs = [
  ...readdirSync(outputs).filter((n) => n !== 'MANIFEST.md').map((n) => join(outputs, n)),
  ...['loghub/HDFS_2k.log', 'loghub/OpenSSH_2k.log', 'json-docs/github_events.json', 'shell-output/go-test-json.out'].map(corpusFile),
];

/**
 * The `lro …` commands a descriptor names: recipes, fields' "(lro …)", the guidance's quoted ones, and the text
 * form's "(lro …):" (templates).
 */
function printedCommands(d: Descriptor): string[] {
  const quoted = [...d.guidance.matchAll(/`(lro [^`]+)`/g)].map((m) => m[1]).filter((c) => shellWords(c) !== null); // not `lro cat ID > file.bin`
  const more = d.fields.flatMap((f) => /\((lro [^()]+)\)$/.exec(f)?.[1] ?? []);
  const text = [...renderDescriptorText(d).matchAll(/\((lro [^()]+)\):$/gm)].map((m) => m[1]);
  return [...d.jq_recipes.map((r) => r.command), ...more, ...quoted, ...text];
}

describe("the commands a descriptor names, as words", () => {
  it('are all in its commands, each line its words, and each a tool makes is given to an MCP client as its call', async () => {
    let named = 0;
    const kinds = new Set<string>();
    for (const file of inputs) {
      const r = await offload(readFileSync(file), { dir, force: true, env: {} });
      if (!r.offloaded) throw new Error(`${file} was not stored`);
      for (const d of [r.descriptor, describeResult(r.id, { dir, env: {} }), describeResult(r.id, { dir, env: {}, full: true })]) {
        kinds.add(d.summary.kind);
        const lines = d.commands.map((c) => c.line);
        for (const c of d.commands) expect(shellWords(c.line), file).toEqual(['lro', ...c.words]);
        for (const line of printedCommands(d)) expect(lines, `${file}: ${line}`).toContain(line);
        named += d.commands.length;
        const tool = await toolDescriptor(d, calls);
        const text = JSON.stringify(printedDescriptor(tool as unknown as Descriptor)) + renderToolDescriptor(tool, 'text');
        // a command some tool makes is left as a command only when its words ask what the tool does not offer
        for (const c of d.commands) {
          const call = await calls.fromWords(c.words);
          if (call) expect(text, `${file}: ${c.line}`).not.toContain(JSON.stringify(c.line).slice(1, -1));
        }
        expect(printedDescriptor(tool as unknown as Descriptor)).not.toHaveProperty('commands');
      }
    }
    expect(kinds.size).toBeGreaterThanOrEqual(20); // the kinds' own next commands, not only the generic ones
    expect(named).toBeGreaterThan(inputs.length * 3 * 3);
  });
});

describe('a result stored when next commands were kept as lines (`next`)', () => {
  it('is described as one stored now: its statistics are computed again, not read as words', async () => {
    for (const name of ['git-diff.patch', 'pytest-v.txt', 'orders.csv']) {
      const r = await offload(readFileSync(join(outputs, name)), { dir, force: true, env: {} });
      if (!r.offloaded) throw new Error(`${name} was not stored`);
      const lines = readFileSync(r.path, 'utf8').split('\n');
      const header = JSON.parse(lines[0]) as { stats: string };
      const stats = JSON.parse(header.stats) as { text: { kind: { nextCommands?: string[][]; next?: string[] } } };
      const next = stats.text.kind.nextCommands!;
      expect(next.length, name).toBeGreaterThan(0);
      delete stats.text.kind.nextCommands;
      stats.text.kind.next = next.map((words) => `lro ${words.join(' ')}`); // as lines, the way they were kept
      header.stats = JSON.stringify(stats);
      writeFileSync(r.path, [JSON.stringify(header), ...lines.slice(1)].join('\n'));
      const again = describeResult(r.id, { dir, env: {} });
      expect(again.guidance, name).toBe(r.descriptor.guidance);
      expect(again.commands, name).toEqual(r.descriptor.commands);
    }
  });
});
