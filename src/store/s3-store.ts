// A store in an S3 bucket (`s3://bucket/prefix`) as a Store (store/store.ts): its local cache (store/location.ts) is
// the folder every reader and writer works on, and store/remote.ts's requests keep it and the bucket in step.
import { decodeTime } from 'ulid';
import type { RemoteStore } from './location.js';
import { prepareWorker } from './s3-sync.js';
import {
  fetchListed,
  fetchPendingHead,
  isPendingHead,
  keepIndex,
  pointersRemoved,
  publishRef,
  publishResult,
  pullRemoteRef,
  readListed,
  remoteListing,
  removeRemoteMany,
  shownStore,
  syncHeads,
  trimCacheFor,
  withPendingHeads,
} from './remote.js';
import type { DamagedResult, ResultName, ScannedResult, StoreListing } from './scan.js';
import { nameMayPass, type ResultFilter } from './select.js';
import type { ListingFor, SameOutput, Store } from './store.js';

/** Leeway between a result's id (its time) and its header's timestamp, both taken as it was stored. */
const ID_TIME_LEEWAY_MS = 60_000;

export class S3Store implements Store {
  readonly fetchesHeaders = true;

  constructor(private readonly remote: RemoteStore) {}

  get name(): string {
    return this.remote.url;
  }

  get dir(): string {
    return this.remote.files;
  }

  /** The s3:// URL of the store, or of the object a path of its cache stands for (never the cache's path). */
  shown(path: string): string {
    return shownStore(path);
  }

  prepare(): void {
    prepareWorker(this.remote.env);
  }

  listingDir(forWhat: ListingFor): string {
    syncHeads(this.remote, forWhat);
    return this.remote.heads;
  }

  withUnread(listing: StoreListing): StoreListing {
    return withPendingHeads(this.remote, listing);
  }

  readListed(entry: ResultName): ScannedResult | DamagedResult | null {
    if (isPendingHead(entry)) fetchPendingHead(entry);
    return readListed(entry);
  }

  listingDone(): void {
    keepIndex(this.remote.heads); // when this listing had to fetch many headers
  }

  /** By the bucket's listing: --since (by the time in each id) and --session (by folder) narrow it before a fetch. */
  results(narrow?: ResultFilter): ResultName[] {
    const listed = remoteListing(this.remote);
    if (!narrow) return listed;
    const since = narrow.sinceMs;
    return listed.filter((e) => nameMayPass(e, narrow) && (since === undefined || decodeTime(e.id) >= since - ID_TIME_LEEWAY_MS));
  }

  fetchListed(entry: ResultName): boolean {
    return fetchListed(this.remote, entry);
  }

  publish(path: string): void {
    publishResult(path);
  }

  pullSameOutput(folder: string, key: string): SameOutput | null {
    return pullRemoteRef(folder, key);
  }

  publishSameOutput<T>(folder: string, key: string, path: string, adopt: (won: SameOutput) => T | null): T | null {
    return publishRef(folder, key, path, adopt);
  }

  removeJudged(judged: { path: string; size: number; mtimeMs: number }[]): void {
    removeRemoteMany(judged);
  }

  tidyAfterGc(dryRun: boolean): number {
    const pointers = pointersRemoved(this.remote.heads, dryRun);
    if (!dryRun) trimCacheFor(this.remote.files); // the cache of whole results, to LRO_S3_CACHE_MAX
    if (!dryRun) keepIndex(this.remote.heads, true); // what gc removed leaves the index
    return pointers;
  }
}
