// Which backend a store is, from where it is: the one place that picks (store/store.ts says what a store does).
import { dirname } from 'node:path';
import { storePath } from './dir.js';
import { remoteOf } from './location.js';
import { S3Store } from './s3-store.js';
import { LocalStore, type Store } from './store.js';

/** The store named by --dir, else $LRO_DIR, else the default folder (store/dir.ts storePath): `s3://…` or a folder. */
export function storeFor(dirOption: string | undefined, env: NodeJS.ProcessEnv): Store {
  const dir = storePath(dirOption, env);
  return backendOf(dir, dir);
}

/**
 * The store a result's file is in, whatever named it: the S3 store whose cache holds it, else its own folder's (for
 * a result opened before, as the library may be given one).
 */
export function storeHolding(path: string): Store {
  return backendOf(path, dirname(path));
}

/** The store whose cache holds `path` (an S3 store's), else the folder `dir`'s. */
function backendOf(path: string, dir: string): Store {
  const remote = remoteOf(path)?.store;
  return remote ? new S3Store(remote) : new LocalStore(dir);
}
