// Every example in README.md and docs/ runs, and prints what the page shows (jq's idea: the manual's examples are
// tests). The pages run in the order of DOCS, as one document: an example may use the ids of an earlier page's.
//   ```console blocks: each `$ command` runs in bash, in order, in one store, from the repository root, with
//     `lro` on PATH; its stdout and stderr must be the lines under it (a line `…` stands for any lines). Ids,
//     store paths and times may differ: the README's ids are mapped to this run's in the order they appear.
//   ```js blocks: run with node against the built package; the ```text block after one is its output.
//   ```crontab lines: the command after the schedule runs and exits 0.
//   ```sh blocks: the two commands of "Two commands"; npm ci, the build and npm test are what CI itself runs,
//     so only the rest of the line (the main job) runs here.
//   ```mcp blocks: `$ command` starts an MCP server (the command a client's config names: the ```json block before
//     it, with its "…" replaced by the directory used) and connects the SDK's Client to it over stdio; each
//     `> tool {arguments}` is a tool call, and the text of its result must be the lines under it, as for console.
// LRO_UPDATE_README=1 rewrites the outputs (and the ids in later commands) from a fresh run instead of checking.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { shellWords } from '../helpers/shell-words.js';
import { BIN, cleanup } from '../helpers/cli.js';

const ROOT = resolve(__dirname, '../..');
/** The pages whose examples run, in this order. */
const DOCS = ['README.md', 'docs/harnesses.md', 'docs/commands.md', 'docs/mcp.md', 'docs/library.md', 'docs/reference.md', 'docs/benchmarks.md'];
/** README.md is the front page: what lro is, the two commands, and where to read more. */
const README_MAX_LINES = 300;
const UPDATE = process.env.LRO_UPDATE_README === '1';
const ULID = /\b[0-7][0-9A-HJKMNP-TV-Z]{25}\b/g;

interface Step {
  command: string;
  expected: string[];
}
interface Page {
  file: string;
  lines: string[];
  /** The lines as rewritten by LRO_UPDATE_README, and how many lines the rewrites so far added. */
  updated: string[];
  shift: number;
}
interface Block {
  lang: string;
  body: string[];
  start: number; // line index of the first body line
  page: Page;
}

function blocks(page: Page): Block[] {
  const { lines } = page;
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^```(\w+)\s*$/.exec(lines[i]);
    if (!m) continue;
    const end = lines.indexOf('```', i + 1);
    out.push({ lang: m[1], body: lines.slice(i + 1, end), start: i + 1, page });
    i = end;
  }
  return out;
}

function steps(body: string[], prompt = '$ '): Step[] {
  const out: Step[] = [];
  for (const line of body) {
    if (line.startsWith(prompt)) out.push({ command: line.slice(prompt.length), expected: [] });
    else out.at(-1)?.expected.push(line);
  }
  return out;
}

/** The text a model sees of a tool result: its text blocks; other blocks named. */
function resultText(r: { content?: { type: string; text?: string; mimeType?: string }[] }): string {
  return (r.content ?? []).map((b) => (b.type === 'text' ? b.text : `[${b.type} ${b.mimeType ?? ''}]`)).join('\n');
}

let root: string;
let env: Record<string, string>;
const ids = new Map<string, string>(); // README id -> this run's id

beforeAll(() => {
  // a place of its own (runs in parallel must not share it) whose path has a fixed length: a descriptor's size
  // (so its preview) depends on the length of the store's path
  root = mkdtempSync(join(tmpdir(), 'lro-rdme-'));
  const bin = join(root, 'bin');
  mkdirSync(bin);
  symlinkSync(BIN, join(bin, 'lro'));
  mkdirSync(join(root, 'tmp'));
  // the store where root would have it, whoever runs the tests (its path's length counts too)
  const store = join(root, 'tmp', 'lro-0');
  env = { PATH: `${bin}:${process.env.PATH}`, HOME: root, TMPDIR: join(root, 'tmp'), LRO_DIR: store, NO_COLOR: '1', LANG: 'C.UTF-8' };
});
afterAll(() => cleanup(root));

/** Output as the README shows it: this run's temporary directory as /tmp. */
const shown = (s: string) => s.split(join(root, 'tmp')).join('/tmp');
/** What may differ between runs: ids (after mapping), the uid in the store name, times. */
const normal = (s: string) =>
  s
    .replace(ULID, 'ID')
    .replace(/\/lro-\d+\//g, '/lro-UID/')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, 'TIME');

function sh(script: string, cwd = ROOT): { code: number; out: string } {
  const r = spawnSync('bash', ['-c', script], { cwd, env, encoding: 'utf8', maxBuffer: 1 << 26 });
  return { code: r.status ?? -1, out: r.stdout + r.stderr };
}

function mapIds(readme: string[], actual: string[]): void {
  for (let i = 0; i < Math.min(readme.length, actual.length); i++) if (!ids.has(readme[i])) ids.set(readme[i], actual[i]);
}
const withActualIds = (s: string) => s.replace(ULID, (id) => ids.get(id) ?? id);

/** Whether the actual lines match the expected ones, `…` matching any number of lines. */
function matches(expected: string[], actual: string[]): boolean {
  const go = (e: number, a: number): boolean => {
    if (e === expected.length) return a === actual.length;
    if (expected[e] === '…') {
      for (let k = a; k <= actual.length; k++) if (go(e + 1, k)) return true;
      return false;
    }
    return a < actual.length && expected[e] === actual[a] && go(e + 1, a + 1);
  };
  return go(0, 0);
}

const pages: Page[] = DOCS.map((f) => {
  const lines = readFileSync(join(ROOT, f), 'utf8').split('\n');
  return { file: join(ROOT, f), lines, updated: [...lines], shift: 0 };
});
const all = pages.flatMap(blocks);

describe('README and docs/ examples', () => {
  it('runs every page of docs/, and keeps the README short', () => {
    const inDocs = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));
    expect(inDocs.map((f) => `docs/${f}`).sort()).toEqual(DOCS.filter((f) => f.startsWith('docs/')).sort());
    expect(pages[0].lines.length).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('has examples of every kind', () => {
    for (const lang of ['console', 'js', 'sh', 'crontab', 'json', 'mcp']) expect(all.some((b) => b.lang === lang), lang).toBe(true);
  });

  it('run and print what the README shows', { timeout: 300_000 }, async () => {
    let config: { command: string; args: string[] } | null = null; // the MCP client config shown last
    /** Checks (or, updating, takes) the output of one step; returns the lines the README should show. */
    const step = (s: Step, actual: string[], shownCommand: string): string[] => {
      mapIds(s.expected.join('\n').match(ULID) ?? [], actual.join('\n').match(ULID) ?? []);
      if (UPDATE) {
        const elided = s.expected.includes('…') && matches(s.expected.map((l) => normal(withActualIds(l))), actual.map(normal));
        return [shownCommand, ...(elided ? s.expected.map(withActualIds) : actual)];
      }
      const want = s.expected.map((l) => normal(withActualIds(l)));
      expect(matches(want, actual.map(normal)), `${shownCommand}\n--- README:\n${s.expected.join('\n')}\n--- this run:\n${actual.join('\n')}`).toBe(true);
      return [];
    };
    for (const block of all) {
      if (block.lang === 'json') {
        const doc = JSON.parse(block.body.join('\n')) as { mcpServers?: Record<string, { command: string; args: string[] }> };
        if (doc.mcpServers) config = Object.values(doc.mcpServers)[0];
        continue;
      }
      if (block.lang === 'mcp') {
        const [start, ...rest] = block.body;
        expect(start.startsWith('$ '), 'an mcp block starts with the server command').toBe(true);
        const words = shellWords(start.slice(2))!;
        expect(config, 'an mcp block follows the client config it runs').not.toBeNull();
        expect(words).toEqual([config!.command, ...config!.args.map((a) => (a === '…' ? words.at(-1) : a))]);
        const transport = new StdioClientTransport({ command: join(root, 'bin', words[0]), args: words.slice(1), env, cwd: ROOT, stderr: 'pipe' });
        const client = new Client({ name: 'readme', version: '1.0.0' });
        await client.connect(transport);
        const body: string[] = [start];
        try {
          for (const s of steps(rest, '> ')) {
            const call = withActualIds(s.command);
            const space = call.indexOf(' ');
            const r = await client.callTool({ name: call.slice(0, space), arguments: JSON.parse(call.slice(space + 1)) });
            const out = shown(resultText(r as never)).replace(/\n$/, '');
            body.push(...step(s, out === '' ? [] : out.split('\n'), `> ${call}`));
          }
        } finally {
          await client.close();
        }
        if (UPDATE) {
          block.page.updated.splice(block.start + block.page.shift, block.body.length, ...body);
          block.page.shift += body.length - block.body.length;
        }
        continue;
      }
      if (block.lang === 'sh') {
        for (const line of block.body.filter((l) => l && !l.startsWith('#'))) {
          const rest = line.replace(/^npm ci && npm run build && /, '');
          if (/^npm (test|ci|run)/.test(rest)) continue; // what CI runs
          const r = sh(rest);
          expect(r.code, `${line}\n${r.out}`).toBe(0);
        }
      } else if (block.lang === 'crontab') {
        for (const line of block.body.filter((l) => l && !l.startsWith('#'))) {
          const m = /^(\S+\s+){5}(.*)$/.exec(line);
          expect(m, line).not.toBeNull();
          const r = sh(m![2]);
          expect(r.code, `${line}\n${r.out}`).toBe(0);
        }
      } else if (block.lang === 'console') {
        const body: string[] = [];
        for (const s of steps(block.body)) {
          // each step in a shell of its own, after the ids of the steps before it are known
          const r = sh(`exec 2>&1\n${withActualIds(s.command)}`);
          const out = shown(r.out).replace(/\n$/, '');
          body.push(...step(s, out === '' ? [] : out.split('\n'), `$ ${withActualIds(s.command)}`));
        }
        if (UPDATE) {
          block.page.updated.splice(block.start + block.page.shift, block.body.length, ...body);
          block.page.shift += body.length - block.body.length;
        }
      } else if (block.lang === 'js') {
        const next = all[all.indexOf(block) + 1];
        expect(next?.lang, 'a js example is followed by a ```text block with its output').toBe('text');
        const dir = join(root, 'js');
        mkdirSync(dir, { recursive: true });
        // the package by its name, as a user imports it
        mkdirSync(join(dir, 'node_modules'), { recursive: true });
        spawnSync('ln', ['-sfn', ROOT, join(dir, 'node_modules', 'lro')]);
        const file = join(dir, 'example.mjs');
        writeFileSync(file, block.body.join('\n'));
        const r = spawnSync(process.execPath, [file], { cwd: dir, env, encoding: 'utf8' });
        expect(r.status, r.stderr).toBe(0);
        const actual = r.stdout.replace(/\n$/, '').split('\n');
        if (UPDATE) {
          next.page.updated.splice(next.start + next.page.shift, next.body.length, ...actual);
          next.page.shift += actual.length - next.body.length;
        } else expect(actual.map(normal)).toEqual(next.body.map(normal));
      }
    }
    if (UPDATE) for (const page of pages) writeFileSync(page.file, page.updated.join('\n'));
  });
});
