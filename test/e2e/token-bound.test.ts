// End-to-end: an output, or an offload's input, that an upper bound of its tokens already keeps within the budget
// or the threshold is decided without reading the rank table (src/tokens/token-bound.ts; issue 25): `lro read`
// prints the same lines as with the exact count, and an input under the threshold passes through unchanged. The
// table is still read, and the output cut by the exact count, when the bound cannot tell.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { corpusFile } from '../helpers/corpus.js';

const TRACE = join(__dirname, '../helpers/open-trace.cjs');
const reference = new Tiktoken(o200k);
const exact = (text: string) => reference.encode(text, [], []).length;

let root: string;
let n = 0;
let env: Record<string, string>;
beforeAll(() => {
  root = tempDir();
  env = { LRO_DIR: join(root, 'store') };
});
afterAll(() => cleanup(root));

/** Runs lro traced: its result and the token tables it opened. */
async function traced(args: string[], input?: string) {
  const trace = join(root, `trace-${n++}`);
  const r = await lro(args, { input, env: { ...env, LRO_OPEN_TRACE: trace }, nodeArgs: ['--require', TRACE] });
  expect(r.code, r.stderr).toBe(0);
  return { r, opened: (JSON.parse(readFileSync(trace, 'utf8')) as { opened: string[] }).opened };
}

const log = readFileSync(corpusFile('loghub/Android_2k.log'), 'utf8');

describe('lro read: an output the bound keeps within the budget', () => {
  let id: string;
  beforeAll(async () => {
    const r = await lro(['offload', '--force'], { input: log, env });
    id = JSON.parse(r.out).id;
  });

  it('is printed whole without reading the rank table, as the exact count prints it', async () => {
    // 20 lines of about 2,700 bytes: over the 2,000 bytes the default budget takes uncounted, about 900 tokens
    const { r, opened } = await traced(['read', id, '--head', '20']);
    const out = r.stdout.toString('utf8');
    expect(Buffer.byteLength(out)).toBeGreaterThan(2000);
    expect(out.split('\n')).toHaveLength(21);
    expect(out).not.toContain('[lro:');
    expect(opened).toEqual(['o200k_base.short.bin']);
    // the same lines as with no budget at all
    const whole = await lro(['read', id, '--head', '20', '--max-tokens', '0'], { env });
    expect(out).toBe(whole.out);
  });

  it('reads the rank table when the bound cannot tell, and cuts where the exact count says', async () => {
    const { r, opened } = await traced(['read', id, '--head', '20', '--max-tokens', '500']);
    expect(opened).toContain('o200k_base.bin');
    const lines = r.out.split(/(?<=\n)/);
    const shown = lines.slice(0, -1);
    expect(lines.at(-1)).toMatch(/^\[lro: showed records 1-\d+ of 2,000 \(--max-tokens 500\); next: lro read /);
    const used = shown.reduce((s, l) => s + exact(l), 0);
    expect(used).toBeLessThanOrEqual(500);
    // the next record would not have fitted
    const next = (await lro(['read', id, '--records', `${shown.length + 1}`, '--max-tokens', '0'], { env })).out;
    expect(used + exact(next)).toBeGreaterThan(500);
  });
});

describe('lro offload: an input the bound keeps under the threshold', () => {
  // the log's first 70 lines: 11 KB, far over the 6,400 bytes that bytes alone decide; about 4,000 tokens, and a
  // bound of about 5,700
  const input = log.split(/(?<=\n)/).slice(0, 70).join('');

  it('passes through unchanged without reading the rank table', async () => {
    expect(Buffer.byteLength(input)).toBeGreaterThan(1.5 * 6400);
    expect(exact(input)).toBeLessThan(6400);
    const { r, opened } = await traced(['offload'], input);
    expect(r.out).toBe(input);
    expect(opened).toEqual(['o200k_base.short.bin']);
  });

  it('is counted exactly, and stored, when the bound is over the threshold', async () => {
    const more = log.split(/(?<=\n)/).slice(0, 200).join(''); // about 9,000 tokens
    expect(exact(more)).toBeGreaterThan(6400);
    const { r, opened } = await traced(['offload'], more);
    expect(JSON.parse(r.out).offloaded ?? true).toBe(true);
    expect(JSON.parse(r.out).id).toMatch(/^[0-9A-Z]{26}$/);
    expect(opened).toContain('o200k_base.bin');
  });

  it('an input the bound cannot keep under the threshold but the exact count can passes through', async () => {
    // long words of one token each: a bound of several tokens each (parts of 5 to 9 bytes go unchecked)
    const words = `${' information'.repeat(1500)}\n`;
    expect(Buffer.byteLength(words)).toBeLessThan(3 * 6400);
    expect(exact(words)).toBeLessThanOrEqual(6400);
    const { r, opened } = await traced(['offload'], words);
    expect(r.out).toBe(words);
    expect(opened).toContain('o200k_base.bin');
  });
});
