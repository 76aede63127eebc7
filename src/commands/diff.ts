// `lro diff A B`: what changed between two stored results (ids, 'last', 'last~1', paths), by kind: tests newly
// failing and passing, records added, removed and changed, line templates new and gone and new error lines;
// --lines adds a unified diff. The comparing is src/compare/; here the options and the exit status (0 equal,
// 1 different, 2 error, as diff(1)).
import { DIR_OPTION, MAX_TOKENS_OPTION, type CommandDef } from './command.js';
import { openAndCompare } from '../compare/api.js';
import { itemsFrom } from '../compare/diff.js';
import { printDiff } from '../compare/print.js';
import { EXIT } from '../errors.js';
import type { IO } from '../io.js';
import { OutputBatch } from '../render/batch.js';
import { maxTokensFrom, OutputBudget } from '../budget.js';
import { parseCount } from '../units.js';
import { nextCommand } from './argv.js';
import DIFF_HELP from 'help:diff';

export interface DiffCommandOptions {
  key?: string;
  lines?: boolean;
  json?: boolean;
  from?: string;
  maxTokens?: string;
  dir?: string;
}

/** Compares and prints; returns 0 when equal, 1 when different. */
export async function runDiff(refA: string, refB: string, o: DiffCommandOptions, io: IO): Promise<number> {
  const budget = new OutputBudget(maxTokensFrom(o.maxTokens, io.env), undefined, io.run);
  const from = o.from !== undefined ? parseCount(o.from, '--from') : 0;
  const { a, b, comparison } = openAndCompare(refA, refB, { key: o.key, lines: o.lines, dir: o.dir, env: io.env });
  const next = (at: number, maxTokens?: number) => {
    const max = maxTokens ?? (o.maxTokens !== undefined ? budget.max : undefined);
    const input = { a: a.header.id, b: b.header.id, key: o.key, lines: o.lines, json: o.json, maxTokens: max?.toString(), dir: o.dir || undefined, from: String(at) };
    return nextCommand(diffCommand, input, DIFF_LAYOUT);
  };
  const out = new OutputBatch(io.stdout);
  try {
    await printDiff(comparison, itemsFrom(comparison, a, b, from), { json: !!o.json, from, budget, write: (s) => out.add(s), next });
  } finally {
    await out.flush();
  }
  return comparison.summary.equal ? EXIT.ok : EXIT.noMatch;
}

/** The order lro diff's next command shows its words in (as it printed them before): --from last. */
export const DIFF_LAYOUT = ['a', 'b', '--key', '--lines', '--json', '--max-tokens', '--dir', '--from'];

/** `lro diff`. */
export const diffCommand: CommandDef<DiffCommandOptions & { a: string; b: string }> = {
  name: 'diff',
  description: 'what changed between two results: tests newly failing, records changed, new kinds of line and errors',
  arguments: [
    { name: 'a', description: "the older result: an id, 'last~1' (the one before last), or a path", complete: 'id', mcp: '' },
    { name: 'b', description: "the newer result: an id, 'last', or a path", complete: 'id', mcp: '' },
  ],
  options: [
    { flags: '--key <field>', description: "match JSON records, or two tables' rows, by this field or column (default: an id-like one: id, PID, NAME)", mcp: '' },
    { flags: '--lines', description: 'add a unified diff of the lines (bounded: up to 2,000 changed lines)', mcp: '' },
    { flags: '--json', description: 'the summary as one JSON object, then one object per change' },
    { flags: '--from <n>', description: 'print from change N on (to continue a cut output)', mcp: '' },
    MAX_TOKENS_OPTION,
    DIR_OPTION,
  ],
  examples: [
    'lro diff last~1 last                          the last two results',
    'lro diff 01JD2X3Y4Z5A6B7C8D9E0F1G2H last      a run against an earlier one',
    'lro diff last~1 last --key metadata.name      JSON listings matched by a field',
    'lro diff last~1 last --key PID                two ps listings matched by a column',
    'lro diff last~1 last --lines                  with a unified diff',
  ],
  notes: DIFF_HELP,
  run: ({ a, b, ...o }, io) => runDiff(a, b, o, io),
};
