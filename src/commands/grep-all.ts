// `lro grep --all PATTERN`: the same search over every stored result, newest first, narrowed by --session,
// --since, --source, and continued by --from ID[:N] (what a cut output's next: line writes). The printing is
// render/grep-all-output.ts; here the options become a filter of the store's listing.
import { DEFAULT_STALL_SECONDS } from '../watchdog.js';
import { UsageError } from '../errors.js';
import { isUlid } from '../format/naming.js';
import type { IO } from '../io.js';
import { OutputBatch } from '../render/batch.js';
import { maxTokensFrom, OutputBudget, type NextOf } from '../budget.js';
import { printGrepAll } from '../render/grep-all-output.js';
import { planGrep } from '../search/grep-plan.js';
import { checkStore, storePath } from '../store/dir.js';
import { remoteOf, type RemoteStore } from '../store/location.js';
import { fetchListed, remoteListing } from '../store/remote.js';
import { listStore, type ResultName } from '../store/scan.js';
import { nameMayPass, parseSince, type ResultFilter } from '../store/select.js';
import { decodeTime } from 'ulid';
import { checkSession } from '../store/session.js';
import { parseTimeout } from '../units.js';
import type { GrepOptions } from '../search/grep-plan.js';

/** What `lro grep` takes besides the search's own options: --all and what goes with it. */
export interface GrepCommandOptions extends GrepOptions {
  all?: boolean;
  filesWithMatches?: boolean;
  session?: string;
  since?: string;
  source?: string;
  from?: string;
}

/** `lro grep --all`: the store's results, filtered, searched newest first. */
export async function runGrepAll(pattern: string, o: GrepCommandOptions, io: IO, nextOf: NextOf): Promise<number> {
  const plan = planGrep(pattern, o, 0);
  const timeout = o.timeout !== undefined ? parseTimeout(o.timeout) : DEFAULT_STALL_SECONDS;
  const { filter, fromRecord, filterInput } = storeFilter(o, io.now().getTime());
  const dir = storePath(o.dir, io.env);
  const remote = remoteOf(dir)?.store;
  const results = remote ? remoteResults(remote, filter) : checkStore(dir) ? listStore(dir).results : [];
  const out = new OutputBatch(io.stdout);
  let fetched = 0;
  try {
    return await printGrepAll({
      fetch: remote && ((entry) => void (fetchListed(remote, entry) && fetched++)),
      plan,
      results,
      filter,
      fromRecord,
      listOnly: !!o.filesWithMatches,
      filterInput,
      nextOf,
      budget: new OutputBudget(maxTokensFrom(o.maxTokens, io.env)),
      write: (s) => out.add(s),
      warn: async (line) => {
        await out.flush();
        await io.stderr.write(line);
      },
      stallSeconds: plan.query.matcher.linearTime ? undefined : timeout,
    });
  } finally {
    await out.flush();
    const what = `${fetched} result${fetched === 1 ? '' : 's'} from ${remote?.url}`;
    if (fetched > 0) await io.stderr.write(`lro: fetched ${what} into this machine's cache to search them\n`);
  }
}

/** Leeway between a result's id (its time) and its header's timestamp, both taken as it was stored. */
const ID_TIME_LEEWAY_MS = 60_000;

/**
 * A remote store's results, by the bucket's listing: --since (by the time in each id) and --session (by folder)
 * narrow them before any is fetched; the header filters still apply to each after.
 */
function remoteResults(remote: RemoteStore, filter: ResultFilter): ResultName[] {
  const since = filter.sinceMs;
  return remoteListing(remote).filter(
    (e) => nameMayPass(e, filter) && (since === undefined || decodeTime(e.id) >= since - ID_TIME_LEEWAY_MS),
  );
}

/** --session, --since, --source and --from as a filter, and as the input of a next command. */
interface StoreFilter {
  filter: ResultFilter;
  fromRecord: number;
  filterInput: { session?: string; since?: string; source?: string };
}

function storeFilter(o: GrepCommandOptions, now: number): StoreFilter {
  const filter: ResultFilter = {};
  const input: StoreFilter['filterInput'] = {};
  if (o.session !== undefined) {
    filter.session = checkSession(o.session, '--session');
    input.session = filter.session;
  }
  if (o.since !== undefined) {
    filter.sinceMs = parseSince(o.since, now, '--since');
    input.since = new Date(filter.sinceMs).toISOString();
  }
  if (o.source !== undefined) {
    filter.source = o.source;
    input.source = o.source;
  }
  let fromRecord = 1;
  if (o.from !== undefined) {
    const m = /^([0-9A-Za-z]{26})(?::(\d+))?$/.exec(o.from);
    if (!m || !isUlid(m[1].toUpperCase()) || (m[2] !== undefined && Number(m[2]) < 1)) {
      const what = 'give a result id, or ID:N to start at its record N (as a next: line writes it)';
      throw new UsageError(`invalid --from '${o.from}': ${what}`);
    }
    filter.fromId = m[1].toUpperCase();
    fromRecord = m[2] !== undefined ? Number(m[2]) : 1;
  }
  return { filter, fromRecord, filterInput: input };
}
