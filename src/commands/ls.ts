// `lro ls`: what the store holds, newest first, from line 1 of each result (the records are never read).
// A terminal gets a table with relative times; a pipe gets tab-separated rows with absolute times, or JSON.
// Files lro cannot read are reported (a row on a terminal, a note on stderr otherwise), never a crash.
import { Chalk } from 'chalk';
import { DIR_OPTION, MAX_TOKENS_OPTION, type CommandDef } from './command.js';
import { giveValue, inToolCall, largerBudget, maxTokensFrom, OutputBudget, type Next } from '../budget.js';
import { formatCount, parseCount } from '../units.js';
import { sanitizeOperation } from '../format/naming.js';
import type { IO } from '../io.js';
import { OutputBatch } from '../render/batch.js';
import { jsonItem, renderTable, tsvFields, tsvLine, type LsRow, type TsvFields } from '../render/store-table.js';
import { checkStore } from '../store/dir.js';
import { storeFor } from '../store/open.js';
import { EMPTY_LISTING, listStore, lstatFacts, type DamagedResult, type ForeignEntry, type ScannedResult, type StoreListing } from '../store/scan.js';
import type { Store } from '../store/store.js';
import { headerPasses, nameMayPass } from '../store/select.js';
import { checkSession } from '../store/session.js';
import { renderSessions, type SessionRow } from '../render/session-table.js';
import { decodeTime } from 'ulid';
import { nextCommand } from './argv.js';
import LS_HELP from 'help:ls';

export interface LsOptions {
  dir?: string;
  json?: boolean;
  session?: string;
  operation?: string;
  expired?: boolean;
  sessions?: boolean;
  offset?: string;
  maxTokens?: string;
}

const MAX_NOTES = 10;

/** What `lro ls` gives an MCP tool call besides its text: the rows it printed for a pipe, newest first. */
export interface ListedRows {
  results: TsvFields[];
}

function toRow(r: ScannedResult): LsRow {
  const h = r.header;
  return {
    kind: 'result',
    id: r.id,
    operation: h.operation,
    records: h.count,
    tokens: h.estimated_tokens,
    size: r.size,
    createdMs: r.createdMs,
    expiresMs: r.expiresMs,
    timestamp: h.timestamp,
    expiresAt: h.expires_at,
    session: h.session ?? null,
  };
}

/** Which results `lro ls` lists: of one operation, of one session, expired ones (by `now`, ms). */
export interface LsFilter {
  operation?: string;
  session?: string;
  expired: boolean;
  now: number;
}

/**
 * A result of the listing: one that passes the filter (`index`: its place among those, from 0), one the page does
 * not print (before --offset, or past the cut) counted by its name alone (`counted`: a remote store's header costs
 * a fetch), or a damaged file named like one.
 */
export type Listed =
  | { kind: 'result'; r: ScannedResult; index: number }
  | { kind: 'counted'; index: number }
  | { kind: 'damaged'; r: DamagedResult; operation: string };

/**
 * The results `lro ls` lists, newest first, as values: the filters the names settle applied before a header is
 * read, the rest on the header. `wants(index)`: whether the page prints the result at that index; one it does not
 * is counted by its name when reading its header would cost a fetch and no filter needs it.
 */
export function* listedResults(store: Store, listing: StoreListing, f: LsFilter, wants: (index: number) => boolean): Generator<Listed> {
  let index = 0;
  for (const entry of listing.results) {
    if (f.operation !== undefined && entry.operation !== f.operation) continue; // the operation is in the name: skip the read
    if (!nameMayPass(entry, { session: f.session })) continue; // another session's folder
    if (store.fetchesHeaders && !wants(index) && f.session === undefined && !f.expired) {
      yield { kind: 'counted', index: index++ };
      continue;
    }
    const r = store.readListed(entry);
    if (!r) continue; // removed since the listing
    if (r.kind === 'damaged') {
      yield { kind: 'damaged', r, operation: entry.operation };
      continue;
    }
    if (f.operation !== undefined && r.header.operation !== f.operation) continue;
    if (!headerPasses(r.header, r.createdMs, { session: f.session })) continue;
    if (f.expired && r.expiresMs > f.now) continue;
    yield { kind: 'result', r, index: index++ };
  }
}

/** One stderr line for entries lro ignores, naming a few of them. */
export function foreignNote(foreign: ForeignEntry[]): string {
  const shown = foreign.slice(0, 5).map((f) => (f.why === 'not an lro name' ? f.name : `${f.name} (${f.why})`));
  const more = foreign.length > shown.length ? `, and ${foreign.length - shown.length} more` : '';
  return `lro: ignored ${foreign.length} entr${foreign.length === 1 ? 'y' : 'ies'} that ${foreign.length === 1 ? 'is' : 'are'} not lro results: ${shown.join(', ')}${more}\n`;
}

export async function runLs(opts: LsOptions, io: IO): Promise<number> {
  const store = storeFor(opts.dir, io.env);
  const dir = store.listingDir(opts.sessions ? 'sessions' : 'ls'); // an S3 store's headers: fetched as rows need them
  const found = checkStore(dir);
  const session = opts.session !== undefined ? checkSession(opts.session, '--session') : undefined;
  if (opts.sessions) {
    const code = await listSessions(store.name, found ? listStore(dir) : EMPTY_LISTING, opts, io);
    store.listingDone();
    return code;
  }
  const now = io.now().getTime();
  const tty = io.stdout.isTTY && !opts.json;
  const listing = store.withUnread(found ? listStore(dir) : EMPTY_LISTING);
  const op = opts.operation !== undefined ? sanitizeOperation(opts.operation) : undefined;
  const out = new OutputBatch(io.stdout, { reuse: true });
  const page = new LsPage(opts, io, tty);
  const rows: LsRow[] = [];
  const notes: string[] = [];
  let damagedCount = 0;
  let shown = 0;
  // the rows an MCP tool call lists, as values (its result is made from them, not from the lines printed)
  const given: TsvFields[] | null = inToolCall(io) && !tty && !opts.json ? [] : null;
  if (opts.json) await out.add('[');
  const filter = { operation: op, session, expired: !!opts.expired, now };
  for (const x of listedResults(store, listing, filter, (index) => page.wants(index))) {
    if (x.kind === 'damaged') {
      damagedCount++;
      const row: LsRow = { kind: 'damaged', id: x.r.id, operation: x.operation, reason: x.r.reason };
      if (tty && page.wants(shown)) rows.push(row);
      if (tty && store.fetchesHeaders) page.fills(rows, now, io.stdout.color);
      else if (!tty && notes.length < MAX_NOTES) notes.push(`lro: damaged result file ${x.r.name}: ${x.r.reason}\n`);
      continue;
    }
    shown++;
    if (x.kind === 'counted' || !page.wants(shown - 1)) continue; // before --offset, or after the cut (still counted)
    const r = x.r;
    if (tty) rows.push(toRow(r));
    if (tty && store.fetchesHeaders) page.fills(rows, now, io.stdout.color);
    else if (opts.json) {
      await page.add(shown - 1, `${page.printed === 0 ? '\n' : ',\n'}${jsonItem(r.line, store.shown(r.path), r.size)}`, out);
    }
    else {
      const fields = tsvFields(toRow(r))!;
      given?.push(fields);
      await page.add(shown - 1, tsvLine(fields), out);
    }
  }
  if (given) giveValue(io, { results: given } satisfies ListedRows);
  if (tty && rows.length > 0) await out.add(page.table(rows, now, io.stdout.color));
  const cut = page.cutLine(shown);
  if (opts.json) {
    const element = JSON.stringify({ type: 'truncated', message: cut?.what, next: cut?.next.text });
    const last = cut ? `${page.printed ? ',' : ''}\n${element}` : '';
    await out.add(`${last}${page.printed || cut ? '\n]\n' : ']\n'}`);
  }
  else if (cut) await out.add(cut.line);
  await out.flush();

  if (damagedCount > notes.length && !tty) notes.push(`lro: ${damagedCount - notes.length} more damaged result files not shown\n`);
  if (listing.foreign.length > 0) notes.push(foreignNote(listing.foreign));
  if (shown === 0 && damagedCount === 0) {
    const filtered = op !== undefined || session !== undefined || opts.expired;
    const where = store.name; // an s3:// store by its URL, not its cache
    const what = !found
      ? `no results: the store ${where} does not exist yet`
      : filtered
        ? `no results match in ${where}`
        : `no results in ${where}`;
    // on a terminal this is the answer; in a pipe stdout stays empty (or `[]`) and this goes to stderr
    if (tty) await io.stdout.write(`${what}\n`);
    else notes.push(`${what}\n`);
  }
  for (const n of notes) await io.stderr.write(n);
  store.listingDone(); // an S3 store's index of headers, when this listing had to fetch many
  return 0;
}

/**
 * The part of the listing one run prints: from --offset, as many results as the output budget holds; the rest is
 * still counted, for the last line's `next: lro ls --offset N`. A tool call gets the whole listing (the MCP layer
 * keeps the newest that one result holds).
 */
class LsPage {
  readonly offset: number;
  private readonly budget: OutputBudget;
  /** Results printed, and the index (in the listing) of the first one not printed for the budget. */
  printed = 0;
  private cutAt: number | null = null;

  constructor(
    private readonly opts: LsOptions,
    io: IO,
    private readonly tty: boolean,
  ) {
    this.offset = opts.offset !== undefined ? parseCount(opts.offset, '--offset') : 0;
    this.budget = new OutputBudget(inToolCall(io) ? 0 : maxTokensFrom(opts.maxTokens, io.env), undefined, io.run);
    // room for the last line (as long as it can be)
    const longest = { type: 'truncated', message: this.what(1e6, 1e6), next: this.nextCommand(1e6).text };
    if (!tty) this.budget.take(`${JSON.stringify(longest)}\n`);
  }

  /** On a terminal, the rows gathered already fill more than the table holds (see fills). */
  private full = false;

  /** Whether the result at this index of the listing is one to print (or, on a terminal, to try to). */
  wants(index: number): boolean {
    return index >= this.offset && this.cutAt === null && !this.full;
  }

  /**
   * Notes whether the terminal's rows gathered so far fill more than the table holds, so that a remote store's
   * results after them are counted by their names instead of each fetching its header: table() prints the longest
   * run of rows that fits, the same whatever follows it.
   */
  fills(rows: LsRow[], now: number, color: boolean): void {
    const paint = new Chalk({ level: color ? 1 : 0 });
    this.full = !this.budget.unlimited && this.budget.cost(renderTable(rows, now, paint)) > this.room();
  }

  private room(): number {
    return Math.max(1, this.budget.max - 60);
  }

  /** Prints a row if it fits; else the listing is cut there. */
  async add(index: number, text: string, out: OutputBatch): Promise<void> {
    if (this.budget.take(text)) {
      this.printed++;
      await out.add(text);
    } else this.cutAt = index;
  }

  /** The terminal's table of as many rows as fit (header and summary lines included). */
  table(rows: LsRow[], now: number, color: boolean): string {
    const paint = new Chalk({ level: color ? 1 : 0 });
    let n = rows.length;
    let text = renderTable(rows, now, paint);
    const room = this.room();
    while (!this.budget.unlimited && n > 1 && this.budget.cost(text) > room) {
      n = Math.max(1, Math.floor((n * room) / this.budget.cost(text)) - 1);
      text = renderTable(rows.slice(0, n), now, paint);
    }
    // the guess above is on the short side: as many more as still fit (so the rows shown never depend on the
    // rows after the last that fits)
    while (n < rows.length) {
      const more = renderTable(rows.slice(0, n + 1), now, paint);
      if (this.budget.cost(more) > room) break;
      text = more;
      n++;
    }
    if (n < rows.length) this.cutAt = this.offset + n;
    this.printed = n;
    return text;
  }

  /** The continuation of a cut listing, or null. */
  cutLine(total: number): { what: string; next: Next; line: string } | null {
    if (this.cutAt === null) return null;
    // not one result fitted: the next part asks for a larger budget (the same one would stop here again)
    const stuck = this.cutAt === this.offset;
    const what = stuck ? `the next result does not fit in --max-tokens ${this.budget.max}` : this.what(this.cutAt, total);
    const next = this.nextCommand(this.cutAt, stuck ? String(largerBudget(this.budget.max)) : this.opts.maxTokens);
    return { what, next, line: this.budget.continuation(what, next) };
  }

  private what(cutAt: number, total: number): string {
    const range = `${this.offset + 1}-${cutAt}`;
    return `listed results ${range} of ${formatCount(total)}, newest first (--max-tokens ${this.budget.max})`;
  }

  private nextCommand(offset: number, maxTokens = this.opts.maxTokens): Next {
    const o = this.opts;
    const input = { offset: String(offset), json: o.json, session: o.session, operation: o.operation, expired: o.expired, maxTokens, dir: o.dir || undefined };
    return nextCommand(lsCommand, input, LS_LAYOUT);
  }
}

/** `lro ls --sessions`: one row per session (and one for results outside any), from names and sizes alone. */
async function listSessions(where: string, listing: StoreListing, opts: LsOptions, io: IO): Promise<number> {
  const rows = new Map<string | null, SessionRow>();
  for (const s of listing.sessions) rows.set(s.name, { session: s.name, results: 0, bytes: 0, newestId: null, newestMs: null });
  for (const r of listing.results) {
    let row = rows.get(r.session);
    if (!row) rows.set(r.session, (row = { session: r.session, results: 0, bytes: 0, newestId: null, newestMs: null }));
    const facts = lstatFacts(`${r.dir}/${r.name}`);
    if (!facts) continue; // removed since the listing
    row.results++;
    row.bytes += facts.size;
    if (row.newestId === null) {
      row.newestId = r.id; // results come newest first
      row.newestMs = decodeTime(r.id);
    }
  }
  const list = [...rows.values()].sort((a, b) => (b.newestMs ?? 0) - (a.newestMs ?? 0));
  await io.stdout.write(sessionsPage(list, opts, io));
  if (listing.foreign.length > 0) await io.stderr.write(foreignNote(listing.foreign));
  if (list.length === 0 && !opts.json) await (io.stdout.isTTY ? io.stdout : io.stderr).write(`no sessions in ${where}\n`); // an s3:// store by its URL
  return 0;
}

/**
 * The sessions from --offset, as many as the output budget holds (a tool call gets them all), and when cut the
 * line (or, with --json, the last element) with the command for the rest.
 */
function sessionsPage(list: SessionRow[], opts: LsOptions, io: IO): string {
  const offset = opts.offset !== undefined ? parseCount(opts.offset, '--offset') : 0;
  const json = !!opts.json;
  const render = (rows: SessionRow[]) =>
    renderSessions(rows, { json, tty: io.stdout.isTTY && !json, now: io.now().getTime(), color: io.stdout.color });
  const budget = new OutputBudget(inToolCall(io) ? 0 : maxTokensFrom(opts.maxTokens, io.env), undefined, io.run);
  const rest = list.slice(offset);
  let n = rest.length;
  let text = render(rest);
  const room = Math.max(1, budget.max - 80); // the last line
  while (!budget.unlimited && n > 1 && budget.cost(text) > room) {
    n = Math.max(1, Math.floor((n * room) / budget.cost(text)) - 1);
    text = render(rest.slice(0, n));
  }
  // the guess above is on the short side: as many more as still fit
  for (let more = render(rest.slice(0, n + 1)); n < rest.length && budget.cost(more) <= room; ) {
    text = more;
    more = render(rest.slice(0, ++n + 1));
  }
  if (n === rest.length) return text;
  const next = nextCommand(lsCommand, { sessions: true, offset: String(offset + n), json: opts.json, maxTokens: opts.maxTokens, dir: opts.dir || undefined }, LS_LAYOUT);
  const what = `listed sessions ${offset + 1}-${offset + n} of ${formatCount(list.length)}, newest first (--max-tokens ${budget.max})`;
  const line = budget.continuation(what, next);
  if (!json) return `${text}${line}`;
  const element = JSON.stringify({ type: 'truncated', message: what, next: next.text });
  return `${text.replace(/\]\n$/, '')},${element}]\n`;
}

/** The order lro ls's next command shows its words in (as it printed them before): --offset first. */
export const LS_LAYOUT = ['--sessions', '--offset', '--json', '--session', '--operation', '--expired', '--max-tokens', '--dir'];

/** `lro ls`. */
export const lsCommand: CommandDef<LsOptions> = {
  name: 'ls',
  description: 'list stored results, newest first (reads only the header line of each file)',
  options: [
    DIR_OPTION,
    { flags: '--json', description: 'a JSON array: each header plus file_path and file_size' },
    { flags: '--session <session>', description: 'only results of this session', mcp: '' },
    { flags: '--operation <operation>', description: 'only results of this operation', mcp: '', manual: 'The name is sanitised as offload sanitises it.' },
    { flags: '--expired', description: 'only results whose expires_at has passed (what lro gc removes)', mcp: '' },
    { flags: '--sessions', description: 'one row per session instead: results, bytes, newest result' },
    { flags: '--offset <n>', description: 'skip the n newest results (to continue a cut listing)' },
    MAX_TOKENS_OPTION,
  ],
  examples: [
    'lro ls                                table: id, operation, records, tokens, size, age, expires, session',
    'lro ls --session build-42 --json      that session\'s results as JSON',
    'lro ls | head -1 | cut -f1            the newest id (in a pipe, rows are tab-separated, times absolute)',
    'lro ls --sessions                     sessions with their result counts, sizes and newest result',
  ],
  notes: LS_HELP,
  run: (o, io) => runLs(o, io),
};
