// lro run in the test's own process: the built CLI bundle's `main(argv, io)` (the parser and the command, as the
// binary runs them) on a thread of this process (in-process-worker.cjs), answered as `lro()` of helpers/cli.ts
// answers. For what a test needs around the behaviour it spawns the binary for: the results it reads made, the
// pages of a cut output followed. A process costs 0.3-2 s of CPU on a loaded 2-core machine; this costs the
// command's own work. The command runs as a tool call of the MCP server does (IO.ownProcess unset: no V8 flag set).
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { lroEnv, type RunOptions, type RunResult } from './cli.js';

interface Answer {
  n: number;
  code?: number;
  stdout?: Uint8Array;
  stderr?: string;
  error?: string;
}

let thread: Worker | null = null;
let calls = 0;
const pending = new Map<number, { done: (a: Answer) => void; fail: (e: Error) => void }>();

function runner(): Worker {
  if (thread) return thread;
  const t = new Worker(join(__dirname, 'in-process-worker.cjs'));
  t.on('message', (a: Answer) => {
    const p = pending.get(a.n);
    pending.delete(a.n);
    if (pending.size === 0) t.unref(); // (an idle thread keeps no test process alive)
    if (a.error !== undefined) p?.fail(new Error(`lro in this process threw: ${a.error}`));
    else p?.done(a);
  });
  t.on('error', (e) => {
    for (const p of pending.values()) p.fail(e);
    pending.clear();
    thread = null;
  });
  t.unref();
  return (thread = t);
}

/** Runs lro with args here, with the environment `lro()` gives a child (PATH, HOME, NO_COLOR, then opts.env). */
export async function lroHere(args: string[], opts: Pick<RunOptions, 'input' | 'env'> = {}): Promise<RunResult> {
  const env = lroEnv(opts.env);
  const t = runner();
  const n = ++calls;
  const answer = await new Promise<Answer>((done, fail) => {
    pending.set(n, { done, fail });
    t.ref();
    t.postMessage({ n, args, env, input: opts.input === undefined ? undefined : Buffer.from(opts.input) });
  });
  const stdout = Buffer.from(answer.stdout!);
  return { code: answer.code!, signal: null, stdout, stderr: answer.stderr!, out: stdout.toString('utf8') };
}
