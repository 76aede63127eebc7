// `lro grep --all PATTERN`: the same search over every stored result, newest first, narrowed by --session,
// --since, --source, and continued by --from ID[:N] (what a cut output's next: line writes). The printing is
// render/grep-all-output.ts; here the options become a filter of the store's listing.
import { DEFAULT_STALL_SECONDS } from '../watchdog.js';
import { UsageError } from '../errors.js';
import { isUlid } from '../format/naming.js';
import type { IO } from '../io.js';
import { OutputBatch } from '../render/batch.js';
import { maxTokensFrom, OutputBudget, stderrLine, type NextOf } from '../budget.js';
import { StoreGrepText, type StoreGrep } from '../render/grep-all-output.js';
import { walkStore } from '../search/grep-store.js';
import { walkGrep } from '../search/grep-values.js';
import { planGrep } from '../search/grep-plan.js';
import { storeFor } from '../store/open.js';
import { parseSince, type ResultFilter } from '../store/select.js';
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
export async function runGrepAll(pattern: string, o: GrepCommandOptions, io: IO, nexts: { nextOf: NextOf; readOf: NextOf }): Promise<number> {
  const plan = planGrep(pattern, o, 0);
  const timeout = o.timeout !== undefined ? parseTimeout(o.timeout) : DEFAULT_STALL_SECONDS;
  const { filter, fromRecord, filterInput } = storeFilter(o, io.now().getTime());
  const store = storeFor(o.dir, io.env);
  const results = store.results(filter); // narrowed by name first where each read costs a fetch
  const out = new OutputBatch(io.stdout);
  let fetched = 0;
  try {
    const walk: StoreGrep = {
      fetch: (entry) => void (store.fetchListed(entry) && fetched++),
      plan,
      results,
      filter,
      fromRecord,
      listOnly: !!o.filesWithMatches,
      filterInput,
      ...nexts,
      budget: new OutputBudget(maxTokensFrom(o.maxTokens, io.env), undefined, io.run),
      write: (s) => out.add(s),
      warn: async (line, mentions) => {
        await out.flush();
        await io.stderr.write(mentions?.length ? stderrLine(io.run, line.replace(/\n$/, ''), mentions) : line);
      },
    };
    const stall = plan.query.matcher.linearTime ? undefined : timeout;
    // the store's results and each one's search give their values; the text takes them (render/grep-all-output.ts)
    const text = new StoreGrepText(walk);
    const { unfinished } = await walkStore(walk, text.resume, async (rf, from) => {
      const one = text.result(rf, from);
      if (one.lines.wanted) await walkGrep(rf, one.plan, one.lines.walk(stall), one.lines.take);
      return text.done(rf, one);
    });
    return await text.end(unfinished);
  } finally {
    await out.flush();
    const what = `${fetched} result${fetched === 1 ? '' : 's'} from ${store.name}`;
    if (fetched > 0) await io.stderr.write(`lro: fetched ${what} into this machine's cache to search them\n`);
  }
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
