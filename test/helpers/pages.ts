// Helpers for commands whose output is cut at a budget: offload a file, follow "next:" commands to the end.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { lro } from './cli.js';
import { lroHere } from './in-process.js';

/** Offloads a file (forced) and returns the id: a result for a test of a reader, made in this process. */
export async function offloaded(file: string, env: Record<string, string>, args: string[] = []): Promise<string> {
  const r = await lroHere(['offload', '--force', ...args], { input: readFileSync(file), env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.out).id as string;
}

/** Splits a shell command printed by lro into words (single quotes, as shellQuote writes them). */
export function shellWords(cmd: string): string[] {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  for (let i = 0; i < cmd.length; i++) {
    const c = cmd[i];
    if (c === "'") {
      const end = cmd.indexOf("'", i + 1);
      cur += cmd.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '\\') {
      cur += cmd[++i];
      inWord = true;
    } else if (c === ' ') {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

export interface Page {
  n: number;
  text: string;
}

/**
 * Runs an lro command and the "next" commands it prints until the last part; returns every other output line
 * and the number of parts. Each run must exit with one of `codes`. The first is the built binary's; the parts after
 * it run in this process (the same command, without a process each).
 */
export async function followNext(args: string[], env: Record<string, string>, codes = [0], max = 500): Promise<{ lines: string[]; pages: number }> {
  const lines: string[] = [];
  let pages = 0;
  let cmd: string[] | null = args;
  while (cmd && pages < max) {
    const r = pages === 0 ? await lro(cmd, { env }) : await lroHere(cmd, { env });
    expect(codes, r.stderr).toContain(r.code);
    pages++;
    cmd = null;
    for (const line of r.out.split('\n')) {
      const next = /^\[lro: .*; next: lro (.*)\]$/.exec(line);
      if (next) cmd = shellWords(next[1]);
      else if (line) lines.push(line);
    }
  }
  return { lines, pages };
}

/** followNext for `lro read`: every numbered line seen (`N: text`) and the number of pages. */
export async function followPages(args: string[], env: Record<string, string>, max = 500): Promise<{ records: Page[]; pages: number }> {
  const { lines, pages } = await followNext(args, env, [0], max);
  const records = lines.map((line) => {
    const m = /^(\d+): (.*)$/.exec(line);
    expect(m, line).not.toBeNull();
    return { n: Number(m![1]), text: m![2] };
  });
  return { records, pages };
}
