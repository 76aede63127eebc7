// `lro __shell-output`: the large path of the shell prefix (bin/lro-shell-prefix). The prefix ran a harness's
// shell call and kept what it printed; it calls this only when that was larger than the threshold in bytes, so
// Node never starts for a small output. Here the tokens are counted: still small, the bytes not yet shown go back
// unchanged; large, they are stored with the command and its exit code as the source, and the descriptor (text) is
// printed, after a line saying what was shown already while the command ran (`--shown`). An output that may lack
// its end is stored marked so (`source.incomplete`): the call was interrupted, or the prefix's temporary folder
// was full. When the store cannot be written nothing is printed and the exit status is 75 (EX_TEMPFAIL): the
// prefix then gives the output back as the harness would have shown it.
import { statfsSync } from 'node:fs';
import type { CommandDef } from './command.js';
import { ensureResident, gcNowAndThen } from '../harness/resident-start.js';
import { formatBytes } from '../units.js';
import { commandOfClaudeScript } from '../harness/claude-code/shell-script.js';
import { renderDescriptorText } from '../render/descriptor-text.js';
import type { IO } from '../io.js';
import { offload } from '../offload.js';
import { offloadOptions } from '../offload-settings.js';
import { UsageError } from '../errors.js';

/** The prefix's cue to print the output itself. */
export const EXIT_STORE_FAILED = 75;

export interface ShellOutputOptions {
  dir?: string;
  threshold?: string;
  exitCode?: string;
  command?: string;
  script?: string;
  shown?: string;
  spool?: string;
  interrupted?: string;
  dropped?: string;
  capped?: string;
  operation?: string;
}

/** Below this many free bytes the temporary folder is taken as full: what the command wrote may have been cut. */
const SPOOL_FULL_BYTES = 1 << 20;

/** Why the output may lack its end, or undefined. */
function incompleteBecause(o: ShellOutputOptions): string | undefined {
  const signal = `SIG${(o.interrupted ?? '').replace(/^SIG/, '')}`;
  const dropped = Number(o.dropped ?? 0);
  if (o.capped && dropped > 0) {
    const why = `it printed more than ${formatBytes(Number(o.capped))} (LRO_SHELL_PREFIX_MAX_BYTES)`;
    const cut = o.interrupted ? `, then the call was interrupted (${signal})` : '';
    return `${why}${cut}: this is the end of what it printed; its first ${formatBytes(dropped)} were given back to the disk as it ran`;
  }
  if (o.interrupted && dropped > 0) {
    return `the call was interrupted (${signal}): this is the end of what it printed until then; its first ${formatBytes(dropped)} are not kept (only the last part is stored before the harness's kill)`;
  }
  if (o.interrupted) return `the call was interrupted (${signal}): this is what it printed until then`;
  if (!o.spool) return undefined;
  try {
    const fs = statfsSync(o.spool);
    if (fs.bavail * fs.bsize < SPOOL_FULL_BYTES) return `the temporary folder (${o.spool}) was full: the end may be missing`;
  } catch {
    return undefined;
  }
  return undefined;
}

/** Offloads the shell call's output from stdin; returns 0, or EXIT_STORE_FAILED with nothing printed. */
export async function runShellOutput(o: ShellOutputOptions, io: IO): Promise<number> {
  const exitCode = o.exitCode === undefined ? null : Number(o.exitCode);
  if (exitCode !== null && !(Number.isInteger(exitCode) && exitCode >= 0 && exitCode <= 255)) {
    throw new UsageError(`invalid --exit-code '${o.exitCode}': expected 0 to 255`);
  }
  const shown = o.shown === undefined ? 0 : Number(o.shown);
  if (!(Number.isSafeInteger(shown) && shown >= 0)) throw new UsageError(`invalid --shown '${o.shown}': expected a byte count`);
  const command = o.command ?? (o.script === undefined ? '(shell call)' : (commandOfClaudeScript(o.script) ?? o.script));
  const incomplete = incompleteBecause(o);
  const options = offloadOptions({ dir: o.dir, threshold: o.threshold }, io);
  const result = await offload(io.stdin, {
    ...options,
    operation: o.operation ?? 'bash',
    query: command,
    format: 'auto',
    // a cut output is stored even when it is small: its descriptor says so
    ...(incomplete ? { force: true } : {}),
    source: { command, exit_code: exitCode, ...(incomplete ? { incomplete } : {}) },
  });
  if (o.spool) ensureResident(o.spool, io.env);
  if (result.offloaded) {
    if (o.spool) gcNowAndThen(o.dir, io.env, io.now(), o.spool);
    const kept = Number(o.dropped ?? 0) > 0 ? 'its end is stored' : 'all of it is stored';
    const before = shown > 0 ? `\n[lro: the output above is its first ${shown} bytes, shown while it ran; ${kept}:]\n` : '';
    await io.stdout.write(before + renderDescriptorText(result.descriptor));
    return 0;
  }
  if (result.truncated) {
    // the prefix prints the output whole after this line
    await io.stderr.write(`lro: ${result.problem}: the output follows whole, as without lro\n`);
    return EXIT_STORE_FAILED;
  }
  await io.stdout.write(result.content.subarray(shown));
  return 0;
}

/** The hidden `lro __shell-output` the shell prefix calls. */
export const shellOutputCommand: CommandDef<ShellOutputOptions> = {
  name: '__shell-output',
  description: "offload a shell call's captured output (stdin) with its exit code; used by lro-shell-prefix",
  options: [
    { flags: '--dir <dir>', description: 'store directory', complete: 'dir' },
    { flags: '--threshold <tokens>', description: 'store output above this many tokens' },
    { flags: '--exit-code <n>', description: "the command's exit status" },
    { flags: '--command <text>', description: 'the command as the user (or the model) wrote it' },
    { flags: '--script <text>', description: "the script Claude Code handed its shell prefix (the command is read from it)" },
    { flags: '--shown <bytes>', description: 'how many bytes of the output were shown while it ran' },
    { flags: '--spool <dir>', description: "the prefix's temporary folder (full: the output is marked as cut)" },
    { flags: '--interrupted <signal>', description: 'the call was interrupted by this signal (the output is marked as cut)' },
    { flags: '--dropped <bytes>', description: "how many bytes of the output's start were left out (interrupted: only its end is stored)" },
    { flags: '--capped <bytes>', description: 'the output passed this many bytes while it ran: its start was dropped (--dropped)' },
    { flags: '--operation <name>', description: 'what produced the output (default: bash)' },
  ],
  examples: ['lro __shell-output --exit-code 3 --command \'make\' < captured-output'],
  hidden: true,
  run: (o, io) => runShellOutput(o, io),
};
