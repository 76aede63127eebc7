// The descriptor's jq recipes and guidance are runnable as printed: each recipe succeeds both as `lro jq ...`
// and as plain `tail -n +2 FILE | jq ...` (native jq), with the same output; each command in the guidance runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cleanup, lro, tempDir } from '../helpers/cli.js';
import { corpusFile } from '../helpers/corpus.js';

let root: string;
let env: Record<string, string>;
beforeAll(() => {
  root = tempDir();
  const bin = join(root, 'bin');
  mkdirSync(bin);
  symlinkSync(BIN, join(bin, 'lro'));
  env = { LRO_DIR: join(root, 'store'), PATH: `${bin}:${process.env.PATH}`, LRO_MAX_OUTPUT_TOKENS: '0' };
});
afterAll(() => cleanup(root));

function sh(cmd: string): { code: number; out: string; err: string } {
  const r = spawnSync('bash', ['-c', cmd], { env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 1 << 28 });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

const inputs: [string, Buffer][] = [
  ['github events (JSON array)', readFileSync(corpusFile('json-docs/github_events.json'))],
  ['twitter (object split on .statuses)', readFileSync(corpusFile('json-docs/twitter.json'))],
  ['go test -json (JSONL)', readFileSync(corpusFile('shell-output/go-test-json.out'))],
  ['phone listings (JSONL of arrays)', readFileSync(corpusFile('json-docs/amazon_cellphones.ndjson'))],
  ['HDFS log (text with levels)', readFileSync(corpusFile('loghub/HDFS_2k.log'))],
  ['Apache log (bracketed levels)', readFileSync(corpusFile('loghub/Apache_2k.log'))],
  ['sshd log (text)', readFileSync(corpusFile('loghub/OpenSSH_2k.log'))],
  [
    'tool calls with a status',
    Buffer.from(JSON.stringify(Array.from({ length: 5000 }, (_, i) => ({ id: `call-${i}`, tool: ['read', 'grep', 'bash'][i % 3], status: i % 25 === 7 ? 'error' : 'success', ms: i % 300 })))),
  ],
  ['JSONL with a broken line', Buffer.from(`${Array.from({ length: 400 }, (_, i) => JSON.stringify({ n: i, level: i % 9 ? 'info' : 'warn' })).join('\n')}\n{"n": 400, "lev\n`)],
];

/** The inputs `npm test` runs the recipes of (a JSON array, JSONL, JSONL with a broken line, a log); the soak runs the rest. */
const QUICK = ['github events (JSON array)', 'go test -json (JSONL)', 'JSONL with a broken line', 'HDFS log (text with levels)'];

describe('descriptor recipes and guidance run as printed', () => {
  for (const [name, input] of inputs) {
    it(name, { tags: QUICK.includes(name) ? [] : ['soak'] }, async () => {
      const r = await lro(['offload', '--force'], { input, env });
      expect(r.code, r.stderr).toBe(0);
      const d = JSON.parse(r.out);
      expect(d.jq_recipes.length).toBeGreaterThan(0);
      // a jsonl result with broken lines: lro jq says once that it skipped them, and nothing else
      const skipNote = d.summary.invalid_records?.length ? /^lro: skipped \d+ records? that (is|are) not JSON \(lro read [^)]+\)\n$/ : /^$/;
      for (const recipe of d.jq_recipes as { description: string; command: string; plain: string }[]) {
        expect(recipe.command.startsWith(`lro jq ${d.id} `)).toBe(true);
        expect(recipe.plain.startsWith(`tail -n +2 ${d.file_path} | jq `)).toBe(true);
        const ours = sh(recipe.command);
        expect(ours.code, `${recipe.command}\n${ours.err}`).toBe(0);
        expect(ours.err).toMatch(skipNote);
        const plain = sh(recipe.plain);
        expect(plain.code, `${recipe.plain}\n${plain.err}`).toBe(0);
        expect(ours.out.length, recipe.description).toBeGreaterThan(0);
        // same answer both ways (as values: jq 1.6 and 1.8 print numbers alike here, but compare parsed to be safe)
        const norm = (s: string) => s.split('\n').filter(Boolean).map((l) => { try { return JSON.stringify(JSON.parse(l)); } catch { return l; } });
        expect(norm(ours.out), recipe.description).toEqual(norm(plain.out));
      }
      // for text, the guidance's grep finds exactly the lines counted as errors
      if (d.summary.content_type === 'text' && d.summary.error_lines) {
        const g = /`(lro grep \S+ .*?) -i -C 2`/.exec(d.guidance as string);
        expect(g, d.guidance).not.toBeNull();
        expect(sh(`${g![1]} -i -c`).out.trim()).toBe(String(d.summary.error_lines));
      }
      // every command the guidance names runs and succeeds
      const commands = [...(d.guidance as string).matchAll(/`(lro [^`]+)`/g)].map((m) => m[1]);
      expect(commands.length, d.guidance).toBeGreaterThan(0);
      for (const c of commands) {
        const res = sh(c);
        expect([0, 1], `${c}\n${res.err}`).toContain(res.code);
        expect(res.err, c).toMatch(/^lro (jq|where|count) /.test(c) ? skipNote : /^$/); // all three skip lines that are not JSON
      }
    });
  }
});
