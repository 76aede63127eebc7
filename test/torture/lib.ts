// Shared by the torture suite: how hard to try (from the environment, so the soak can turn it up), a JSON
// tokenizer that keeps numbers and strings exactly as written, store snapshots, and the figures the soak prints.
import { createHash } from 'node:crypto';
import { appendFileSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { lro, type RunResult } from '../helpers/cli.js';

function envCount(name: string, fallback: number): number {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number, got ${v}`);
  return n;
}

/** Cases per property-based test (a few hundred in CI, thousands in the soak). */
export const RUNS = envCount('LRO_TORTURE_RUNS', 200);
/** Cases per property run through the spawned binary (slower: a process per case). */
export const CLI_RUNS = envCount('LRO_TORTURE_CLI_RUNS', Math.max(10, Math.round(RUNS / 10)));
/** SIGKILL trials. */
export const KILLS = envCount('LRO_TORTURE_KILLS', 40);
/** Offloads started at once in the concurrency test. */
export const WRITERS = envCount('LRO_TORTURE_WRITERS', 200);
/** A fast-check seed to replay a failure (printed by fast-check when a property fails). */
export const SEED = process.env.LRO_TORTURE_SEED ? Number(process.env.LRO_TORTURE_SEED) : undefined;

/** Adds figures to the soak's report ($LRO_TORTURE_REPORT, one JSON object a line); a no-op without it. */
export function report(figures: { suite: string; cases?: number; kills?: number; writers?: number; losses: number; [more: string]: number | string | undefined }): void {
  const file = process.env.LRO_TORTURE_REPORT;
  if (file) appendFileSync(file, `${JSON.stringify(figures)}\n`);
}

export const sha256 = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');

/**
 * The tokens of a JSON text, whitespace dropped, each exactly as written: strings with their quotes and escapes,
 * numbers with every digit, and literals and punctuation. Two documents are "JSON-equal with numbers and strings
 * exactly as written" when their token lists are equal. Throws on anything that is not JSON.
 */
export function jsonTokens(text: Buffer | string): string[] {
  const s = typeof text === 'string' ? text : text.toString('utf8');
  const out: string[] = [];
  const re = /[ \t\n\r]+|"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|[[\]{}:,]/y;
  let i = 0;
  while (i < s.length) {
    re.lastIndex = i;
    const m = re.exec(s);
    if (!m) throw new Error(`not JSON at character ${i}: ${JSON.stringify(s.slice(i, i + 20))}`);
    if (!/^[ \t\n\r]/.test(m[0])) out.push(m[0]);
    i = re.lastIndex;
  }
  return out;
}

/** A JSON value as a tree of raw tokens (keys kept in order, duplicates included), to check what was split. */
export type RawJson = { kind: 'array'; items: RawJson[] } | { kind: 'object'; members: [string, RawJson][] } | { kind: 'scalar'; raw: string };

/** Parses a token list (from jsonTokens) into a RawJson tree; iterative, so deep nesting is fine. */
export function rawTree(tokens: string[]): RawJson {
  const stack: { node: RawJson; key: string | null }[] = [];
  let root: RawJson | null = null;
  let pendingKey: string | null = null;
  const attach = (v: RawJson) => {
    const top = stack[stack.length - 1];
    if (!top) root = v;
    else if (top.node.kind === 'array') top.node.items.push(v);
    else if (top.node.kind === 'object') top.node.members.push([pendingKey!, v]);
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t === '[' || t === '{') {
      const node: RawJson = t === '[' ? { kind: 'array', items: [] } : { kind: 'object', members: [] };
      attach(node);
      stack.push({ node, key: null });
    } else if (t === ']' || t === '}') stack.pop();
    else if (t === ',' || t === ':') continue;
    else {
      const top = stack[stack.length - 1];
      if (top?.node.kind === 'object' && tokens[i + 1] === ':') pendingKey = t;
      else attach({ kind: 'scalar', raw: t });
    }
  }
  if (!root) throw new Error('empty JSON');
  return root;
}

/** Lengths of every array found at `path` (object members only; duplicate keys give several). */
export function arraysAtPath(v: RawJson, path: string[]): number[] {
  if (path.length === 0) return v.kind === 'array' ? [v.items.length] : [];
  if (v.kind !== 'object') return [];
  const [first, ...rest] = path;
  return v.members.filter(([k]) => JSON.parse(k) === first).flatMap(([, m]) => arraysAtPath(m, rest));
}

/** Records a text or jsonl input makes: one per line, the last one counted even without its newline. */
export function lineCount(input: Buffer): number {
  let n = 0;
  for (let i = input.indexOf(0x0a); i >= 0; i = input.indexOf(0x0a, i + 1)) n++;
  const lastNl = input.lastIndexOf(0x0a);
  return lastNl === input.length - 1 ? n : n + 1;
}

/** Everything in a directory, by name: kind, mode, size and a digest of regular files (symlinks not followed). */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    const st = lstatSync(p);
    const kind = st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other';
    out[name] = `${kind} ${(st.mode & 0o7777).toString(8)} ${st.size} ${st.mtimeMs} ${kind === 'file' ? sha256(readFileSync(p)) : ''}`;
  }
  return out;
}

/** Asserts the shape of an error: exit 2, exactly one line `lro: <what>: <what to do>`, no stack trace. */
export function expectOneLineError(r: RunResult, what: string, code = 2): void {
  expect(r.signal, `${what}: killed`).toBeNull();
  expect(r.code, `${what}: exit code (stderr: ${r.stderr})`).toBe(code);
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  expect(lines, `${what}: stderr should be one line`).toHaveLength(1);
  expect(lines[0], what).toMatch(/^lro: .+: .+/);
  expect(r.stderr, `${what}: stack trace`).not.toMatch(/\n\s+at |Error: |TypeError|RangeError|SyntaxError|Aborted\(/);
}

/** Runs lro and measures how long it took (ms). */
export async function timed(args: string[], opts: Parameters<typeof lro>[1] = {}): Promise<RunResult & { ms: number }> {
  const start = Date.now();
  const r = await lro(args, opts);
  return { ...r, ms: Date.now() - start };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Maps items through an async function, at most `width` at a time, keeping the order of the results. */
export async function pool<T, R>(items: T[], width: number, f: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await f(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return out;
}
