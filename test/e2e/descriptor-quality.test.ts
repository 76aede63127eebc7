// The descriptor's new facts (issue 11): log templates for text that repeats itself, numbers' range and median,
// timestamps' earliest and latest value, ids' count of distinct values; within the ~1,000-token bound, and the
// same bytes for the same input (dedupe relies on it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';
import { corpusFile } from '../helpers/corpus.js';

let root: string;
let env: Record<string, string>;
beforeAll(() => {
  root = tempDir();
  env = { LRO_DIR: join(root, 'store') };
});
afterAll(() => cleanup(root));

async function describeInput(input: Buffer | string): Promise<{ text: string; d: Record<string, any> }> {
  const r = await lroHere(['offload', '--force'], { input, env });
  expect(r.code, r.stderr).toBe(0);
  return { text: r.out, d: JSON.parse(r.out) };
}

describe('descriptor quality', () => {
  it('a log says which kinds of line it has, and the guidance names lro count --by template', async () => {
    const { text, d } = await describeInput(readFileSync(corpusFile('loghub/HDFS_2k.log')));
    expect(d.summary.templates.count).toBe(16);
    expect(d.summary.templates.lines).toBe(2000);
    expect(d.summary.templates.top[0]).toEqual({ template: '<*> INFO dfs.FSNamesystem: BLOCK* NameSystem.addStoredBlock: blockMap updated: <*> is added to <*> …', count: 314, line: 3 });
    expect(d.guidance).toContain(`\`lro count ${d.id} --by template\``);
    expect(getTokenizer('o200k_base').count(text)).toBeLessThanOrEqual(1000);
  });

  it('a count of one is said in the singular', async () => {
    const one = await describeInput('{"a":1}');
    expect(one.d.guidance).toMatch(/^1 record \(one object, ~\d+ tokens\) stored as /);
    const two = await describeInput('{"a":1}\n{"a":2}\n');
    expect(two.d.guidance).toMatch(/^2 records \(one object each, ~\d+ tokens\) stored as /);
    const line = await describeInput('a single line\n');
    expect(line.d.guidance).toMatch(/^1 line \(~\d+ tokens?\) stored as /);
  });

  it('text that does not repeat itself has no templates', async () => {
    const prose = Array.from({ length: 400 }, (_, i) => `${['alpha', 'beta', 'gamma', 'delta'][i % 4]} word${i} says something ${'x'.repeat(i % 13)} new about topic ${i * 7}`).join('\n');
    const { d } = await describeInput(prose);
    expect(d.summary.templates).toBeUndefined();
  });

  it('numbers get min, max and median; timestamps earliest and latest; ids their distinct count', async () => {
    const rows = Array.from({ length: 1000 }, (_, i) =>
      JSON.stringify({ id: `req-${(i * 7919) % 1000}`, at: `2026-01-01T00:${String(59 - (i % 60)).padStart(2, '0')}:00Z`, ms: (i * 37) % 1001, status: i % 10 ? 'ok' : 'error' }),
    );
    const { d } = await describeInput(rows.join('\n'));
    const ms = Array.from({ length: 1000 }, (_, i) => (i * 37) % 1001).sort((a, b) => a - b);
    // of an even count, the mean of the two middle values, exact: every value was kept
    expect(d.summary.numbers['.ms']).toEqual({ min: 0, max: 1000, median: (ms[499] + ms[500]) / 2 });
    expect(d.summary.times['.at']).toEqual({ first: '2026-01-01T00:00:00Z', last: '2026-01-01T00:59:00Z' });
    // past 4,096 values the median is a sample's, and says of how many values
    const many = await describeInput(Array.from({ length: 10_000 }, (_, i) => JSON.stringify({ ms: (i * 7919) % 10_007 })).join('\n'));
    const n = many.d.summary.numbers['.ms'];
    expect(n.median_of).toBeGreaterThan(1000);
    expect(n.median_of).toBeLessThan(10_000);
    expect(Math.abs(n.median - 5003)).toBeLessThan(300);
    // the bounded descriptor keeps the first figures (times, then numbers, then ids); --full has them all
    const full = JSON.parse((await lro(['info', d.id, '--full'], { env })).out);
    expect(full.summary.distinct['.id']).toBe(1000);
    expect(d.summary.top_values).toEqual({ '.status': { ok: 900, error: 100 } }); // no top values for times and ids
    expect(d.guidance).toContain(`\`lro where ${d.id} status=error\`, \`lro count ${d.id} --by status\``);
  });

  it('the same input gives the same descriptor, byte for byte, ids aside', async () => {
    for (const file of ['loghub/Linux_2k.log', 'json-docs/twitter.json', 'shell-output/go-test-json.out']) {
      const input = readFileSync(corpusFile(file));
      const a = await describeInput(input);
      const b = await describeInput(input);
      const strip = (x: { text: string; d: Record<string, any> }) => x.text.split(x.d.id).join('ID').replace(/"expires_at":"[^"]*"/, '');
      expect(strip(a), file).toBe(strip(b));
    }
  });
});
