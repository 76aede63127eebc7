// A store as the commands, the offload and the library use it, whatever holds it: a local folder (here) or an S3
// bucket (s3-store.ts), picked by its location in open.ts. Every backend works through a local folder (an S3
// store's cache), so a result is written by format/writer.ts and read by format/reader.ts as a local file; what
// differs is what is done besides: fetching, uploading, listing the bucket, deleting its objects. Opening one
// result by id is store/resolve.ts's.
import { checkStore } from './dir.js';
import { listStore, readResult, type DamagedResult, type ResultName, type ScannedResult, type StoreListing } from './scan.js';
import type { ResultFilter } from './select.js';

/**
 * Who lists a store: `ls` (a result's header read as its row needs it), `ls --sessions` (every result, and the
 * sessions' folders), or `gc` (that, and what it tidies after: an S3 store's pointers by id).
 */
export type ListingFor = 'ls' | 'sessions' | 'gc';

/** A result of another writer holding the same output, by its dedupe key (store/dedupe.ts). */
export interface SameOutput {
  id: string;
  name: string;
}

export interface Store {
  /** The store as users see it: its folder, or `s3://bucket/prefix`. */
  readonly name: string;
  /** The local folder results are written to and read from (an S3 store's cache of whole results). */
  readonly dir: string;
  /**
   * Whether reading a listed result's header may cost a request: `ls` then reads only the rows it prints and
   * counts the rest by their names.
   */
  readonly fetchesHeaders: boolean;
  /** A file or folder of the store as users see it: its path, or the s3:// URL of its object. */
  shown(path: string): string;
  /**
   * Begins, while the caller works on, what the store's first request will need (an S3 store's worker thread,
   * which loads the SDK on another core); nothing for a folder. A writer calls it once it knows it will store.
   */
  prepare(): void;

  /**
   * The folder a listing reads (ls, ls --sessions, gc), made current first: each result listed there has the
   * result's line 1 and size (an S3 store's header files, brought in line with the bucket; for `ls`, those not
   * fetched yet are left for readListed).
   */
  listingDir(forWhat: ListingFor): string;
  /** `ls`'s listing of that folder with the results whose header is not here yet among them, newest first. */
  withUnread(listing: StoreListing): StoreListing;
  /** Line 1 of a result of `ls`'s listing, fetched first when it is not here; null when it is gone. */
  readListed(entry: ResultName): ScannedResult | DamagedResult | null;
  /** After a listing (ls): keeps what it learned for the next one (an S3 store's index of headers). */
  listingDone(): void;

  /**
   * The results, newest first, by their names alone (nothing fetched, no header read), for the questions across
   * the store (grep --all, completion). With `narrow`, a store whose reads cost a fetch leaves out first those its
   * session and --since rule out by name; the caller still applies the filter to each result it reads.
   */
  results(narrow?: ResultFilter): ResultName[];
  /** Brings a result of `results()` whole into `dir` before it is searched; true when it was fetched now. */
  fetchListed(entry: ResultName): boolean;

  /**
   * Publishes a result just committed in `dir` (an S3 store's upload, with its pointer by id); a failure is thrown,
   * and the file is gone with it (a result is in the cache only when it is in the bucket).
   */
  publish(path: string): void;
  /**
   * Another machine's result for the same output (dedupe `key`, in the folder `folder`), brought into `dir` so the
   * caller writes its ref beside it and judges it as a local one; null when there is none.
   */
  pullSameOutput(folder: string, key: string): SameOutput | null;
  /**
   * Publishes the dedupe ref of a result just published. When another machine stored the same output first, its
   * result is pulled and `adopt` judges it: taken, this one goes and what `adopt` gave is returned; else null.
   */
  publishSameOutput<T>(folder: string, key: string, path: string, adopt: (won: SameOutput) => T | null): T | null;

  /**
   * Removes from the store what gc judged, ahead of the removal of each listed file (store/gc.ts removeUnchanged,
   * which finishes it): an S3 store's objects, 1,000 a request.
   */
  removeJudged(judged: { path: string; size: number; mtimeMs: number }[]): void;
  /**
   * What gc tidies after its removals (with `dryRun`, nothing): an S3 store's pointers whose result is gone, its
   * cache trimmed and its index. Returns the pointers removed (with `dryRun`, those it would remove).
   */
  tidyAfterGc(dryRun: boolean): number;
}

/** A store in a local folder: the folder is the whole store, so what a remote one does besides is nothing here. */
export class LocalStore implements Store {
  readonly fetchesHeaders = false;

  constructor(readonly dir: string) {}

  get name(): string {
    return this.dir;
  }

  shown(path: string): string {
    return path;
  }

  prepare(): void {}

  listingDir(): string {
    return this.dir;
  }

  withUnread(listing: StoreListing): StoreListing {
    return listing;
  }

  readListed(entry: ResultName): ScannedResult | DamagedResult | null {
    return readResult(entry);
  }

  listingDone(): void {}

  results(): ResultName[] {
    return checkStore(this.dir) ? listStore(this.dir).results : [];
  }

  fetchListed(): boolean {
    return false;
  }

  publish(): void {}

  pullSameOutput(): SameOutput | null {
    return null;
  }

  publishSameOutput(): null {
    return null;
  }

  removeJudged(): void {}

  tidyAfterGc(): number {
    return 0;
  }
}
