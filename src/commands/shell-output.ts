// `lro __shell-output`: the large path of the shell prefix (bin/lro-shell-prefix). The prefix ran a harness's
// shell call and kept what it printed; it calls this only when that was larger than the threshold in bytes, so
// Node never starts for a small output. Here the tokens are counted: still small, the bytes go back unchanged;
// large, they are stored with the command and its exit code as the source, and the descriptor (text) is printed.
// When the store cannot be written nothing is printed and the exit status is 75 (EX_TEMPFAIL): the prefix then
// gives the output back as the harness would have shown it.
import type { CommandDef } from './command.js';
import { renderDescriptorText } from '../render/descriptor-text.js';
import type { IO } from '../io.js';
import { offload } from '../offload.js';
import { offloadOptions } from './offload.js';
import { UsageError } from '../errors.js';

/** The prefix's cue to print the output itself. */
export const EXIT_STORE_FAILED = 75;

export interface ShellOutputOptions {
  dir?: string;
  threshold?: string;
  exitCode?: string;
  command?: string;
  operation?: string;
}

/** Offloads the shell call's output from stdin; returns 0, or EXIT_STORE_FAILED with nothing printed. */
export async function runShellOutput(o: ShellOutputOptions, io: IO): Promise<number> {
  const exitCode = o.exitCode === undefined ? null : Number(o.exitCode);
  if (exitCode !== null && !(Number.isInteger(exitCode) && exitCode >= 0 && exitCode <= 255)) {
    throw new UsageError(`invalid --exit-code '${o.exitCode}': expected 0 to 255`);
  }
  const options = offloadOptions({ dir: o.dir, threshold: o.threshold }, io);
  const result = await offload(io.stdin, {
    ...options,
    operation: o.operation ?? 'bash',
    query: o.command ?? null,
    format: 'auto',
    source: { command: o.command ?? '(shell call)', exit_code: exitCode },
  });
  if (result.offloaded) {
    await io.stdout.write(renderDescriptorText(result.descriptor));
    return 0;
  }
  if (result.truncated) {
    await io.stderr.write(`${result.warning}\n`);
    return EXIT_STORE_FAILED;
  }
  await io.stdout.write(result.content);
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
    { flags: '--operation <name>', description: 'what produced the output (default: bash)' },
  ],
  examples: ['lro __shell-output --exit-code 3 --command \'make\' < captured-output'],
  hidden: true,
  run: (o, io) => runShellOutput(o, io),
};
