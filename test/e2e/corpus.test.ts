// Every file of the corpus goes through `lro offload --force` and comes back from `lro cat` exactly
// (JSON documents: equal as JSON, with every number written as in the input).
// @module-tag soak: every test here is part of `npm run test:soak`, not of `npm test` (vitest.config.ts)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { corpusDir, corpusFiles } from '../helpers/corpus.js';

let root: string;
beforeAll(() => {
  root = tempDir();
});
afterAll(() => cleanup(root));

/** Runs fn over items, `width` at a time. */
async function pool<T>(items: T[], width: number, fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

/** JSON text with whitespace outside strings removed, numbers and strings untouched (to compare documents). */
function compact(text: string): string {
  let out = '';
  let inStr = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inStr) {
      out += c;
      if (c === '\\') out += text[++i];
      else if (c === '"') inStr = false;
    } else if (c === '"') {
      inStr = true;
      out += c;
    } else if (!' \t\r\n'.includes(c)) out += c;
  }
  return out;
}

describe('corpus round trip through the binary', () => {
  it('gives back every corpus file', async () => {
    const files = corpusFiles();
    expect(files.length).toBeGreaterThan(350);
    const env = { LRO_DIR: join(root, 'store') };
    const failures: string[] = [];
    const types = new Map<string, number>();
    await pool(files, 4, async (file) => {
      const name = relative(corpusDir(), file);
      const input = readFileSync(file);
      const off = await lro(['offload', '--force'], { input, env });
      if (off.code !== 0) return void failures.push(`${name}: offload exit ${off.code}: ${off.stderr}`);
      const d = JSON.parse(off.out);
      types.set(d.summary.content_type, (types.get(d.summary.content_type) ?? 0) + 1);
      const back = await lro(['cat', d.id], { env });
      if (back.code !== 0) return void failures.push(`${name}: cat exit ${back.code}: ${back.stderr}`);
      if (d.summary.content_type === 'json') {
        // equal as JSON, and every literal as written: the compacted original equals what cat printed
        if (compact(input.toString('utf8')) !== back.out.replace(/\n$/, '')) failures.push(`${name}: JSON differs`);
      } else if (!back.stdout.equals(input)) failures.push(`${name}: bytes differ`);
    });
    expect(failures).toEqual([]);
    expect(types.get('json')).toBeGreaterThan(100);
    expect(types.get('text')).toBeGreaterThan(100);
    expect(types.get('binary')).toBeGreaterThan(10);
    expect(types.get('jsonl')).toBeGreaterThanOrEqual(2);
  });
});
