// lro run under test/helpers/read-trace.mjs: what a reader read from stored results, and its peak memory, so a
// test can tell a reader that seeks from one that scans, and one that streams from one that holds.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lro } from './cli.js';

const TRACE = join(__dirname, 'read-trace.mjs');
let traces = 0;

export interface Traced {
  out: string;
  stdout: Buffer;
  code: number | null;
  stderr: string;
  /** Bytes read from stored results (lro-*.jsonl) with readSync. */
  read: number;
  /** Peak resident memory, MB. */
  rssMb: number;
}

/** Runs lro with `args` traced; the trace file goes in `dir`. `shellPrefix`: as lro()'s (e.g. a stdin redirect). */
export async function traced(args: string[], env: Record<string, string>, dir: string, timeout = 60_000, shellPrefix?: string): Promise<Traced> {
  const trace = join(dir, `trace-${traces++}`);
  const r = await lro(args, { env: { ...env, LRO_READ_TRACE: trace }, nodeArgs: ['--import', TRACE], timeout, shellPrefix });
  const [read, rss] = readFileSync(trace, 'utf8').split(' ').map(Number);
  return { out: r.out, stdout: r.stdout, code: r.code, stderr: r.stderr, read, rssMb: rss / 1024 };
}
