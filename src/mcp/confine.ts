// What an MCP client may read: results of the server's store (its root and its sessions), by id. The CLI also takes
// the path of a result file anywhere, which is the user's own choice on their own machine; a client is not the
// user, so over MCP a path is served only when it lies in the store or in a directory the server was started with
// (`lro mcp --allow-dir DIR`). Symlinks are followed before judging, so a link in the store cannot point out of it.
import { realpathSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { LroError } from '../errors.js';
import { storePath } from '../store/dir.js';
import { MAX_ECHO_CHARS } from './bounds.js';

/** Whether a reference is a path rather than an id (the rule of store/resolve.ts). */
const isPath = (ref: string): boolean => ref.includes('/') || ref.endsWith('.jsonl');

/** The real path of p, or p itself (absolute) when it does not exist. */
function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

const within = (p: string, root: string): boolean => p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);

/** The directories an MCP client may read results from: the store, and the allowed ones. */
export class Confinement {
  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly allowed: string[] = [],
  ) {}

  /** Throws unless ref is an id, or the path of a file inside the store or an allowed directory. */
  check(ref: string): void {
    if (!isPath(ref)) return;
    const store = storePath(undefined, this.env);
    const target = real(ref);
    if ([store, ...this.allowed].some((root) => within(target, real(root)))) return;
    const shown = ref.length > MAX_ECHO_CHARS ? `${ref.slice(0, MAX_ECHO_CHARS)}…` : ref;
    throw new LroError(
      `${JSON.stringify(shown)} is a path outside this server's store: the id must be an id from lro_ls or lro_offload in this store (a result file elsewhere is served only by a server started with --allow-dir DIR)`,
    );
  }
}
