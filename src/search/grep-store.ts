// The walk of `lro grep --all` over the store: every listed result (newest first) that passes the filters, opened
// and handed to the search; a result lro cannot read, or that the pattern could not finish in time, is skipped
// with a warning line and the walk goes on. `lro grep --all` (commands/grep-all.ts, its text
// render/grep-all-output.ts) and the library's grepStore (api/search.ts) search each result their own way.
import { oneLine, LroError } from '../errors.js';
import { FormatError } from '../format/header.js';
import type { ResultFile } from '../format/reader.js';
import { damagedError, openInStore, SEE_LS } from '../store/resolve.js';
import type { Next } from '../io.js';
import type { ResultName } from '../store/scan.js';
import { headerPasses, nameMayPass, type ResultFilter } from '../store/select.js';
import { Stalled } from '../watchdog.js';

/** Which results a walk visits, and where its warnings go. */
export interface StoreWalk {
  /** The results of the store, newest first. */
  results: ResultName[];
  filter: ResultFilter;
  /** The record of the --from result to start at (1: all of it). */
  fromRecord: number;
  /** A warning line to stderr (a result skipped), with the commands it names as values. */
  warn: (line: string, mentions?: Next[]) => Promise<void> | void;
  /** Brings a result whole into the store's folder before it is opened (an S3 store's: Store.fetchListed). */
  fetch?: (entry: ResultName) => void;
}

/** What a walk did: results searched, and those the pattern could not finish in time (named and skipped). */
export interface StoreWalked {
  searched: number;
  unfinished: number;
}

/** Opens a listed result; null when it vanished since the listing or is skipped (damaged: warned). */
async function openListed(entry: ResultName, s: StoreWalk): Promise<ResultFile | null> {
  try {
    s.fetch?.(entry);
    return openInStore(`${entry.dir}/${entry.name}`, entry.id);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null; // removed by gc meanwhile
    const cause = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    const why = e instanceof LroError ? e.message : `result ${entry.id} cannot be read (${cause})`;
    await s.warn(`lro: skipped: ${oneLine(why)}\n`);
    return null;
  }
}

/**
 * Visits each result that passes the filters, from record `from` (the --from result's record when `resume`, else
 * 1), until `visit` answers false (the output's budget is spent). Warns when no result was searched at all.
 */
export async function walkStore(
  s: StoreWalk,
  resume: boolean,
  visit: (rf: ResultFile, from: number) => Promise<boolean>,
): Promise<StoreWalked> {
  let searched = 0;
  let unfinished = 0;
  for (const entry of s.results) {
    if (!nameMayPass(entry, s.filter)) continue;
    const rf = await openListed(entry, s);
    if (!rf || !headerPasses(rf.header, Date.parse(rf.header.timestamp), s.filter)) continue;
    const from = entry.id === s.filter.fromId && resume ? s.fromRecord : 1;
    if (from > rf.header.count) continue; // a next part that starts past this result's end
    searched++;
    let more: boolean;
    try {
      more = await visit(rf, from);
    } catch (e) {
      if (e instanceof Stalled) {
        // one result the pattern runs away on does not stop the search of the others (as rg goes on past a file)
        unfinished++;
        await s.warn(`lro: skipped ${entry.id}, not finished: ${oneLine(e.message)}\n`);
        continue;
      }
      if (!(e instanceof FormatError)) throw e;
      await s.warn(`lro: skipped: ${oneLine(damagedError(rf, e).message)}\n`);
      continue;
    }
    if (!more) break;
  }
  if (searched === 0) await s.warn('lro: no stored results to search (see lro ls)\n', [SEE_LS]);
  return { searched, unfinished };
}
