// `lro __complete-ids`: the stored ids for the shell completion scripts (faces/completion.ts), newest first. It
// reads only directory entries and never prints an error into a command line.
import type { IO } from '../io.js';
import { checkStore, storePath } from '../store/dir.js';
import { remoteOf } from '../store/location.js';
import { remoteListing } from '../store/remote.js';
import { listStore } from '../store/scan.js';
import { DIR_OPTION, type CommandDef } from './command.js';

/** Prints stored ids for completion, newest first, as `id<TAB>operation` lines; nothing when there is no store. */
export function printIds(io: IO, dir: string | undefined): Promise<void> {
  const path = storePath(dir, io.env);
  let lines = 'last\tthe newest result\n';
  try {
    const remote = remoteOf(path)?.store; // a remote store: the bucket's ids, by its listing (nothing fetched)
    const results = remote ? remoteListing(remote) : checkStore(path) ? listStore(path).results : [];
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
