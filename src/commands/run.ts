// `lro run -- CMD [ARGS...]`: runs a command (no shell) and offloads its stdout exactly as `lro offload` would.
// Its stderr passes through unchanged and at once; the header and the descriptor record the command and how it
// ended; lro exits with the command's own status (128+n for signal n, as a shell does), so `lro run -- npm test`
// still fails a script when the tests fail, and the descriptor tells an agent so.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, statfsSync } from 'node:fs';
import { once } from 'node:events';
import { constants as os } from 'node:os';
import { basename, dirname } from 'node:path';
import type { CommandDef } from './command.js';
import { shellQuote } from '../shell-quote.js';
import { LroError, UsageError } from '../errors.js';
import type { Source } from '../format/header.js';
import type { IO } from '../io.js';
import type { Readable } from 'node:stream';
import { detectContent } from '../format/detect.js';
import type { StreamFields } from '../format/streams.js';
import { HeadAndTail, StreamMerger } from '../engines/stream-merge.js';
import { storePath } from '../store/dir.js';
import { formatBytes, formatCount, parseSize } from '../units.js';
import { offloadOptionDefs, runOffload, type SplitOutput } from './offload.js';
import { offloadOptions, type OffloadCliOptions } from '../offload-settings.js';
import RUN_HELP from 'help:run';

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

/** `lro run`'s options: the offload's, and the cap on what is kept. */
export type RunCliOptions = OffloadCliOptions & { maxBytes?: string };

/** Runs argv, offloads its stdout and stderr, and returns the command's exit status. */
export async function runRun(argv: string[], o: RunCliOptions, io: IO): Promise<number> {
  const [file, ...args] = argv;
  if (!file) throw new LroError('no command to run: lro run [options] -- CMD [ARGS...]');
  const options = offloadOptions(o, io); // bad options fail before anything runs
  const maxBytes = o.maxBytes !== undefined ? parseMaxBytes(o.maxBytes) : defaultMaxBytes(storePath(options.dir, io.env));
  const inherit = !!io.inheritStdio;
  // A signal to lro (SIGHUP, SIGINT, SIGTERM: a closed terminal, Ctrl-C, a harness's timeout) goes to the command
  // and every process it started, so a child that keeps the output pipes open (a test runner's workers, `sh -c
  // 'server & wait'`) does not hold lro; what came until then is stored, marked as cut. Not a process group of
  // its own: a harness that kills lro's group (SIGKILL, no chance to pass it on) would leave the command running.
  // Listened for before the command starts: one that comes while it starts is passed on once it has.
  let stoppedBy: NodeJS.Signals | null = null;
  let child: ChildProcess | null = null;
  // A command still running LRO_RUN_KILL_AFTER seconds after the signal (it ignores or outlasts it) is killed
  // with its tree (SIGKILL): a harness kills lro a few seconds after its TERM (Claude Code: 5 s), and what the
  // command printed must be stored by then.
  const killAfterMs = killAfter(io) * 1000;
  let killedAfter = false;
  let killTimer: NodeJS.Timeout | null = null;
  const running = (c: ChildProcess) => c.exitCode === null && c.signalCode === null; // (else its pid may be another's now)
  const pass = (c: ChildProcess, sig: NodeJS.Signals) => {
    // Ctrl-C on a terminal already reaches the whole foreground process group, the command included; passing it
    // on too would make it a second SIGINT, which many programs take as "quit now, skip the cleanup".
    if (running(c) && !(sig === 'SIGINT' && io.stdinIsTTY)) signalTree(c.pid!, sig);
    if (killAfterMs > 0 && !killTimer) {
      killTimer = setTimeout(() => {
        if (!running(c)) return;
        killedAfter = true;
        signalTree(c.pid!, 'SIGKILL');
      }, killAfterMs);
      killTimer.unref();
    }
  };
  // after a signal, once the command has ended, what others still hold open is waited for a moment, not to its end
  let lettingGo = false;
  const letGo = (c: ChildProcess, ended: Promise<Ending>) => {
    if (lettingGo) return;
    lettingGo = true;
    void ended.then(() =>
      setTimeout(() => {
        c.stdout!.destroy();
        c.stderr!.destroy();
      }, STRAGGLER_MS).unref(),
    );
  };
  const stopForwarding =
    io.onSignal?.((sig) => {
      stoppedBy ??= sig;
      if (!child) return;
      pass(child, sig);
      letGo(child, end); // (set: the command has started)
    }) ?? (() => undefined);
  const started = spawn(file, args, { stdio: [inherit ? 'inherit' : 'pipe', 'pipe', 'pipe'], env: io.env });
  // Listen for the end at once: a quick command can exit before the offload starts reading.
  const end = new Promise<Ending>((resolve) => started.once('exit', (code, signal) => resolve({ code, signal })));
  // read from the start: lines that wait in both pipes while lro is busy lose the order they came in
  const merged = mergeOutput(started.stdout!, started.stderr!, io);
  try {
    await once(started, 'spawn');
  } catch (e) {
    stopForwarding();
    throw spawnError(file, e as NodeJS.ErrnoException);
  }
  child = started;
  child.on('error', () => undefined); // e.g. a failed kill(); the exit still comes
  if (stoppedBy) {
    pass(child, stoppedBy);
    letGo(child, end);
  }
  if (!inherit) feedStdin(child.stdin!, io);
  const kept = new HeadAndTail(merged.input, maxBytes);

  const command = argv.map(shellQuote).join(' ');
  const whole = Promise.all([end, kept.done]);
  const source: Promise<Source> = whole.then(([e]) => {
    if (killTimer) clearTimeout(killTimer);
    const stopped = stoppedBy && stoppedNote(stoppedBy, killedAfter ? killAfterMs / 1000 : null);
    const incomplete = [stopped, kept.cut && cutNote(kept)].filter(Boolean).join('; ');
    return { command, exit_code: e.code, ...(e.signal ? { signal: e.signal } : {}), ...(incomplete ? { incomplete } : {}) };
  });
  const streams = Promise.all([merged.streams, kept.done]).then(([f]) => f && kept.keptFields(f));
  const extra = {
    operation: o.operation ?? basename(file),
    source,
    streams,
    // read once the output has ended: a cut output is stored even when small, its descriptor saying so
    get force() {
      return !!o.force || stoppedBy !== null || kept.cut;
    },
  };
  try {
    await runOffload(kept, o, io, extra, merged.split);
  } finally {
    stopForwarding();
    // Normally read to the end already; after a failure this makes the command stop on a closed pipe rather than
    // block on a full one.
    child.stdout!.destroy();
    child.stderr!.destroy();
  }
  return shellStatus(await end);
}

/** After a signal and the command's end, how long processes it left may keep the output open. */
const STRAGGLER_MS = 1000;

/** What the descriptor says of an output cut by a signal (killedAfter: seconds after which SIGKILL followed). */
function stoppedNote(sig: NodeJS.Signals, killedAfter: number | null): string {
  const killed = killedAfter === null ? '' : `; still running ${killedAfter} s later, they were killed (SIGKILL)`;
  return `lro run was stopped by ${sig} (passed on to the command and the processes it started${killed}): this is what they printed until then`;
}

const KILL_AFTER_SECONDS = 3;

/**
 * LRO_RUN_KILL_AFTER: seconds from a signal passed on to SIGKILL (default 3; 0: never). One that does not parse
 * is said on stderr and the default taken: the command still runs (a caller cannot see its environment, and a
 * variable must never cost it its command; see offload-settings.ts).
 */
function killAfter(io: IO): number {
  const v = io.env.LRO_RUN_KILL_AFTER;
  if (v === undefined || v === '') return KILL_AFTER_SECONDS;
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v);
  void io.stderr
    .write(`lro: invalid LRO_RUN_KILL_AFTER '${v}': seconds, e.g. 3 (0: never), or unset LRO_RUN_KILL_AFTER; using ${KILL_AFTER_SECONDS}\n`)
    .catch(() => undefined);
  return KILL_AFTER_SECONDS;
}

/** What the descriptor says of an output past --max-bytes. */
function cutNote(k: HeadAndTail): string {
  const tailFrom = k.headLines + 1;
  return (
    `the output passed --max-bytes ${formatBytes(k.maxBytes)}: kept are its first ${formatBytes(k.headBytes)} (lines 1-${k.headLines}) and its last ` +
    `${formatBytes(k.tailBytes)} (from line ${tailFrom} on); the ${formatBytes(k.droppedBytes)} between (${formatCount(k.droppedLines)} lines) were not kept`
  );
}

/** --max-bytes: a size (500MB, 2GB), more than 0. */
function parseMaxBytes(text: string): number {
  const n = parseSize(text, '--max-bytes');
  if (n < 1) throw new UsageError(`invalid --max-bytes '${text}': must be more than 0`);
  return n;
}

/** The cap without --max-bytes: 4 GB, or a quarter of the space free where the store is when less (16 MB at least). */
export function defaultMaxBytes(storeDir: string): number {
  let free = Infinity;
  for (let dir = storeDir; ; dir = dirname(dir)) {
    try {
      const fs = statfsSync(dir);
      free = fs.bavail * fs.bsize;
      break;
    } catch {
      if (dirname(dir) === dir) break; // the store is made later; its nearest folder that exists says
    }
  }
  return Math.max(MIN_DEFAULT_MAX_BYTES, Math.min(DEFAULT_MAX_BYTES, Math.floor(free / 4)));
}
const DEFAULT_MAX_BYTES = 4e9;
const MIN_DEFAULT_MAX_BYTES = 16e6;

/**
 * Sends sig to pid and to every process it started, as found now (their parents, from /proc on Linux, from ps
 * elsewhere): taken first, so that a child's children are found before its end hands them to init.
 */
function signalTree(pid: number, sig: NodeJS.Signals): void {
  const all = [pid, ...descendants(pid)];
  for (const p of all) {
    try {
      process.kill(p, sig);
    } catch {
      // gone already
    }
  }
}

/** The processes started by pid, and theirs, as they are now. */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const [p, parent] of parents()) {
    const list = children.get(parent);
    if (list) list.push(p);
    else children.set(parent, [p]);
  }
  const out: number[] = [];
  for (let i = -1, at = pid; ; at = out[++i]) {
    for (const c of children.get(at) ?? []) if (!out.includes(c)) out.push(c);
    if (i + 1 >= out.length) return out;
  }
}

/** [pid, parent pid] of every process this user can see. */
function parents(): [number, number][] {
  const out: [number, number][] = [];
  if (process.platform === 'linux') {
    let names: string[] = [];
    try {
      names = readdirSync('/proc');
    } catch {
      return out;
    }
    for (const name of names) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
        // pid (comm) state ppid ...: comm may hold spaces and parentheses, so it is read from the last ')'
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (ppid > 0) out.push([Number(name), ppid]);
      } catch {
        // ended meanwhile
      }
    }
    return out;
  }
  try {
    const text = execFileSync('ps', ['-A', '-o', 'pid=', '-o', 'ppid='], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 2000 });
    for (const line of text.split('\n')) {
      const [p, parent] = line.trim().split(/\s+/).map(Number);
      if (p > 0 && parent > 0) out.push([p, parent]);
    }
  } catch {
    // no ps: the command alone is signalled
  }
  return out;
}

/** The command's output as one input, and what the offload needs to tell its streams apart. */
interface MergedOutput {
  input: AsyncIterable<Buffer>;
  /** Which records came from stderr, once both streams ended (null: stderr was not merged). */
  streams: Promise<StreamFields | null>;
  /** The output handed back unstored, split into what each stream printed. */
  split: (content: Buffer) => SplitOutput;
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
  const split = (content: Buffer): SplitOutput => {
    if (mode !== 'merge') return { stdout: content, stderr: Buffer.alloc(0) };
    const parts = merger.splitLines(content);
    // written back in the order the lines came (2>&1 into a file, or a harness that reads both, shows that order)
    return live ? { stdout: parts.stdout, stderr: Buffer.alloc(0) } : { ...parts, inOrder: merger.segments(content) };
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
export const runCommand: CommandDef<RunCliOptions & { command: string[] }> = {
  name: 'run',
  description: "run a command (no shell) and offload its stdout and stderr like `lro offload`; lro exits with the command's status",
  arguments: [{ name: 'command', variadic: true, description: 'the command and its arguments (put -- before it)', complete: 'command' }],
  passThrough: true,
  usage: '[offload options] -- <command> [args...]',
  options: [
    ...offloadOptionDefs('the command name'),
    {
      flags: '--max-bytes <size>',
      description: 'keep at most this much of the output: its start and its last part (default: 4GB, or a quarter of the free space where the store is)',
    },
  ],
  examples: [
    'lro run -- npm test                          the test output, or a descriptor saying the tests failed and where',
    'lro run --descriptor text -- kubectl get pods -A -o json',
    'lro run --operation build --ttl 7d -- make -j8',
  ],
  notes: RUN_HELP,
  run: ({ command, ...o }, io) => runRun(command, o, io),
};
