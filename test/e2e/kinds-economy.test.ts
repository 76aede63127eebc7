// @module-tag soak: every test here is part of `npm run test:soak`, not of `npm test` (vitest.config.ts)
// The question an agent asks of each kind of output (bench/kinds-tasks.mjs: the outputs of fixtures/outputs made
// 1 MB or more) is answered from the descriptor and at most one more call, with no jq written, in at most 1% of
// the output's tokens, and the answer is the one computed from the input. bench/economy.sh prints the same table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { cleanup, tempDir } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';
import { KIND_TASKS, writtenFilter } from '../../bench/kinds-tasks.mjs';

interface Task {
  name: string;
  kind: string;
  input: () => string;
  calls: (d: Record<string, any>) => string[][];
  answer: (outs: string[], d: Record<string, any>) => unknown;
  truth: (input: string) => unknown;
  compare?: (a: unknown, b: unknown) => boolean;
}

let root: string;
let env: Record<string, string>;
beforeAll(() => {
  root = tempDir();
  env = { LRO_DIR: join(root, 'store') };
});
afterAll(() => cleanup(root));

const tok = getTokenizer('o200k_base');

/** Per question: whether the asker wrote a filter (a regex or jq the descriptor did not print). */
const written: boolean[] = [];

describe('one question per kind of output', () => {
  it.each((KIND_TASKS as Task[]).map((t) => [t.name, t]))('%s', async (_, t: Task) => {
    const input = t.input();
    const off = await lroHere(['offload'], { input, env }); // (every kind's offload and question here: a sweep)
    expect(off.code, off.stderr).toBe(0);
    const d = JSON.parse(off.out);
    expect(d.summary.kind).toBe(t.kind);
    const outs = [off.out];
    written.push(t.calls(d).some((args) => writtenFilter(args, d)));
    for (const args of t.calls(d)) {
      // no jq written: a call is a plain lro command, or a jq recipe the descriptor printed as it is
      if (args[0] === 'jq') expect(d.jq_recipes.map((r: { command: string }) => r.command).join('\n')).toContain(args.at(-1));
      outs.push((await lroHere(args.map((a) => (a === 'ID' ? d.id : a)), { env })).out);
    }
    expect(outs.length).toBeLessThanOrEqual(2);
    const printed = outs.reduce((s, o) => s + tok.count(o), 0);
    expect(printed).toBeLessThanOrEqual(tok.count(input) * 0.01);
    const answer = t.answer(outs, d);
    const truth = t.truth(input);
    if (t.compare) expect(t.compare(answer, truth), `${JSON.stringify(answer)} vs ${JSON.stringify(truth)}`).toBe(true);
    else expect(answer).toEqual(truth);
  });

  it('at least 40 real outputs, and 90% of the questions answered with lro\'s own verbs (no regex or jq written)', () => {
    const outputs = new Set((KIND_TASKS as Task[]).map((t) => t.input().slice(0, 2000)));
    expect(outputs.size).toBeGreaterThanOrEqual(40);
    expect(written.length).toBe(KIND_TASKS.length);
    expect(written.filter((w) => !w).length / written.length).toBeGreaterThanOrEqual(0.9);
  });
});
