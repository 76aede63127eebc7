// `lro __complete-ids`: the stored ids for the shell completion scripts (faces/completion.ts), newest first. It
// reads only directory entries and never prints an error into a command line.
import type { IO } from '../io.js';
import { storeFor } from '../store/open.js';
import { DIR_OPTION, type CommandDef } from './command.js';

/** Prints stored ids for completion, newest first, as `id<TAB>operation` lines; nothing when there is no store. */
export function printIds(io: IO, dir: string | undefined): Promise<void> {
  const store = storeFor(dir, io.env);
  let lines = 'last\tthe newest result\n';
  try {
    const results = store.results(); // an S3 store: the bucket's ids, by its listing (nothing fetched)
    for (const r of results.slice(0, 500)) lines += `${r.id}\t${r.operation}\n`; // newest first
  } catch {
    return Promise.resolve(); // completion never prints errors into a command line
  }
  return io.stdout.write(lines);
}

/** The hidden `lro __complete-ids` the scripts call. */
export const completeIdsCommand: CommandDef<{ dir?: string }> = {
  name: '__complete-ids',
  description: 'print stored ids for shell completion, newest first (id, a tab, the operation)',
  options: [DIR_OPTION],
  examples: ['lro __complete-ids              used by the scripts of lro completion'],
  hidden: true,
  run: async ({ dir }, io) => {
    await printIds(io, dir);
    return 0;
  },
};
