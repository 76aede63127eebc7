// `lro run -- CMD [ARGS...]`: runs a command (no shell) and offloads its stdout exactly as `lro offload` would.
// Its stderr passes through unchanged and at once; the header and the descriptor record the command and how it
// ended; lro exits with the command's own status (128+n for signal n, as a shell does), so `lro run -- npm test`
// still fails a script when the tests fail, and the descriptor tells an agent so.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { constants as os } from 'node:os';
import { basename } from 'node:path';
import type { CommandDef } from './command.js';
import { shellQuote } from '../describe/shell.js';
import { LroError } from '../errors.js';
import type { Source } from '../format/header.js';
import type { IO } from '../io.js';
import type { Readable } from 'node:stream';
import { detectContent } from '../format/detect.js';
import type { StreamFields, StreamName } from '../format/streams.js';
import { StreamMerger } from '../engines/stream-merge.js';
import { offloadOptionDefs, offloadOptions, runOffload, type OffloadCliOptions } from './offload.js';

/** Exit statuses a shell uses when it cannot run a command. */
export const EXIT_NOT_FOUND = 127;
export const EXIT_CANNOT_EXECUTE = 126;

/** How a child ended: its exit code, or the signal that killed it. */
interface Ending {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** The status a shell reports for an ending: the code, or 128 + the signal's number. */
export function shellStatus(e: Ending): number {
  if (e.signal) return 128 + (os.signals[e.signal] ?? 0);
  return e.code ?? 0;
}

/** A spawn failure as the one-line error a shell would give, with its status (127 not found, 126 otherwise). */
export function spawnError(file: string, e: NodeJS.ErrnoException): LroError {
  if (e.code === 'ENOENT') {
    const hint = file.includes('/') ? 'check the path' : 'check the name, or that it is on PATH';
    return new LroError(`command not found: ${file}: ${hint}`, EXIT_NOT_FOUND);
  }
  if (e.code === 'EACCES') {
    return new LroError(`permission denied: ${file}: it is not executable (chmod +x) or is a directory`, EXIT_CANNOT_EXECUTE);
  }
  return new LroError(`cannot execute ${file}: ${e.code ?? e.message}`, EXIT_CANNOT_EXECUTE);
}

/** Runs argv, offloads its stdout and stderr, and returns the command's exit status. */
export async function runRun(argv: string[], o: OffloadCliOptions, io: IO): Promise<number> {
  const [file, ...args] = argv;
  if (!file) throw new LroError('no command to run: lro run [options] -- CMD [ARGS...]');
  offloadOptions(o, io); // bad options fail before anything runs
  const inherit = !!io.inheritStdio;
  const child = spawn(file, args, { stdio: [inherit ? 'inherit' : 'pipe', 'pipe', 'pipe'], env: io.env });
  // Listen for the end at once: a quick command can exit before the offload starts reading.
  const ended = new Promise<Ending>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  try {
    await once(child, 'spawn');
  } catch (e) {
    throw spawnError(file, e as NodeJS.ErrnoException);
  }
  child.on('error', () => undefined); // e.g. a failed kill(); the exit still comes
  // Ctrl-C on a terminal already reaches the whole foreground process group, the command included; passing it
  // on too would make it a second SIGINT, which many programs take as "quit now, skip the cleanup".
  const forward = (sig: NodeJS.Signals) => void (sig === 'SIGINT' && io.stdinIsTTY ? undefined : child.kill(sig));
  const stopForwarding = io.onSignal?.(forward) ?? (() => undefined);
  void ended.then(stopForwarding);
  if (!inherit) feedStdin(child.stdin!, io);
  const merged = mergeOutput(child.stdout!, child.stderr!, io);

  const command = argv.map(shellQuote).join(' ');
  const source: Promise<Source> = ended.then((e) => ({ command, exit_code: e.code, ...(e.signal ? { signal: e.signal } : {}) }));
  try {
    await runOffload(merged.input, o, io, { operation: o.operation ?? basename(file), source, streams: merged.streams }, merged.split);
  } finally {
    // Normally read to the end already; after a failure this makes the command stop on a closed pipe rather than
    // block on a full one.
    child.stdout!.destroy();
    child.stderr!.destroy();
  }
  return shellStatus(await ended);
}

/** The command's output as one input, and what the offload needs to tell its streams apart. */
interface MergedOutput {
  input: AsyncIterable<Buffer>;
  /** Which records came from stderr, once both streams ended (null: stderr was not merged). */
  streams: Promise<StreamFields | null>;
  /** The output handed back unstored, split into what each stream printed. */
  split: (content: Buffer) => Record<StreamName, Buffer>;
}

/**
 * Merges stdout and stderr line by line (engines/stream-merge.ts). Only stdout that begins as binary is kept
 * alone, byte for byte, its stderr passing through as it comes: lines of text cannot go between its bytes. So
 * stderr waits for stdout's first bytes (or its end) before anything is merged.
 */
function mergeOutput(stdout: Readable, stderr: Readable, io: IO): MergedOutput {
  const merger = new StreamMerger();
  const waiting: Buffer[] = [];
  let mode: 'undecided' | 'merge' | 'stdout-only' = 'undecided';
  const passStderr = (b: Buffer) => void io.stderr.write(b).catch(() => undefined);
  const decide = (first: Buffer | null) => {
    mode = first && detectContent(first, false).contentType === 'binary' ? 'stdout-only' : 'merge';
    for (const b of waiting.splice(0)) {
      if (mode === 'merge') merger.push('stderr', b);
      else if (!io.stderr.isTTY) passStderr(b); // else shown as it came
    }
  };
  const pauseIfFull = (more: boolean) => {
    if (more) return;
    stdout.pause();
    stderr.pause();
  };
  merger.onDrain(() => {
    stdout.resume();
    stderr.resume();
  });
  stdout.on('data', (b: Buffer) => {
    if (mode === 'undecided') decide(b);
    pauseIfFull(merger.push('stdout', b));
  });
  // A person at a terminal sees the diagnostics as they come (a long build's progress) as well as having them
  // stored; a small output then gives back its stdout alone, its stderr already shown.
  const live = io.stderr.isTTY;
  stderr.on('data', (b: Buffer) => {
    if (live && mode !== 'stdout-only') passStderr(b);
    if (mode === 'undecided') waiting.push(b); // a child's chunks are never reused
    else if (mode === 'stdout-only') passStderr(b);
    else pauseIfFull(merger.push('stderr', b));
  });
  const stdoutDone = new Promise<void>((resolve) => stdout.once('close', resolve));
  const stderrDone = new Promise<void>((resolve) => stderr.once('close', resolve));
  void stdoutDone.then(() => {
    if (mode === 'undecided') decide(null);
    merger.end('stdout');
  });
  void Promise.all([stdoutDone, stderrDone]).then(() => merger.end('stderr'));
  const streams = Promise.all([stdoutDone, stderrDone]).then(() => (mode === 'merge' ? merger.fields() : null));
  const split = (content: Buffer) => {
    if (mode !== 'merge') return { stdout: content, stderr: Buffer.alloc(0) };
    const parts = merger.splitLines(content);
    return live ? { stdout: parts.stdout, stderr: Buffer.alloc(0) } : parts;
  };
  return { input: merger, streams, split };
}

/** Without inherited descriptors: feeds io.stdin to the child. */
function feedStdin(stdin: NodeJS.WritableStream, io: IO): void {
  stdin.on('error', () => undefined); // the command may exit without reading its input
  void (async () => {
    try {
      // a copy: the stream may still hold the chunk when io.stdin reuses its buffer
      for await (const chunk of io.stdin) if (!stdin.write(Buffer.from(chunk))) await once(stdin, 'drain');
    } catch {
      // the command went away
    }
    stdin.end();
  })();
}

/** `lro run`. */
export const runCommand: CommandDef<OffloadCliOptions & { command: string[] }> = {
  name: 'run',
  description: "run a command (no shell) and offload its stdout and stderr like `lro offload`; lro exits with the command's status",
  arguments: [{ name: 'command', variadic: true, description: 'the command and its arguments (put -- before it)', complete: 'command' }],
  passThrough: true,
  usage: '[offload options] -- <command> [args...]',
  options: offloadOptionDefs('the command name'),
  examples: [
    'lro run -- npm test                          the test output, or a descriptor saying the tests failed and where',
    'lro run --descriptor text -- kubectl get pods -A -o json',
    'lro run --operation build --ttl 7d -- make -j8',
  ],
  notes: `The command runs directly, without a shell (write lro run -- sh -c '...' for pipes and globs). Its stdout and
stderr are offloaded together, line by line as they came (the header lists the stderr records: read them with
--stream stderr); a small output comes back on the stream it came from. On a terminal, stderr is also shown as it
comes. A stdout that begins as binary is stored alone and its stderr passes through. The header and the
descriptor record source: {command, exit_code} (and signal when it was killed).
Exit status: the command's own; 128+n if a signal n killed it; 127 if the command is not found, 126 if it cannot
be executed; 2 for lro's own errors. SIGINT, SIGTERM and SIGHUP are passed on to the command (Ctrl-C on a terminal
reaches it directly).`,
  run: ({ command, ...o }, io) => runRun(command, o, io),
};
