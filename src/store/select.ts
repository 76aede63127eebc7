// Which stored results a question across the store is about (`lro ls --session`, `lro grep --all` and its
// --session, --since, --source, --from): the listing's results, newest first, with the filters that names alone
// settle applied before any file is opened, and the rest on the header.
import { UsageError } from '../errors.js';
import type { Header } from '../format/header.js';
import { parseDuration } from '../units.js';
import type { ResultName } from './scan.js';

export interface ResultFilter {
  /** Only results of this session (its folder, or a header saying so in the root). */
  session?: string;
  /** Only results stored at or after this time (ms since the epoch). */
  sinceMs?: number;
  /** Only results whose command (see commandOf) contains this text. */
  source?: string;
  /** Only this result and older ones (ids are ULIDs: they sort by time). */
  fromId?: string;
}

/** Whether a result, from its name and folder alone, can pass the filter (so its file need not be opened). */
export function nameMayPass(entry: ResultName, f: ResultFilter): boolean {
  // another session's folder
  if (f.session !== undefined && entry.session !== null && entry.session !== f.session) return false;
  if (f.fromId !== undefined && entry.id > f.fromId) return false;
  return true;
}

/** What made a result, as far as its header knows: the command (lro run, a proxied tool call), else --query. */
export function commandOf(h: Header): string | null {
  return h.source?.command ?? h.query ?? null;
}

/** Whether a result's header passes the filter. `createdMs` is its parsed timestamp. */
export function headerPasses(h: Header, createdMs: number, f: ResultFilter): boolean {
  if (f.session !== undefined && h.session !== f.session) return false;
  if (f.sinceMs !== undefined && !(createdMs >= f.sinceMs)) return false;
  if (f.source !== undefined && !(commandOf(h) ?? h.operation).includes(f.source)) return false;
  return true;
}

/** --since: a duration back from now (2h, 30m, 7d) or a time (2026-01-31T12:00:00Z); as ms since the epoch. */
export function parseSince(text: string, now: number, name: string): number {
  if (/^\d{4}-\d\d-\d\d/.test(text)) {
    const t = Date.parse(text);
    const what = 'use a duration (2h, 30m, 7d) or a time like 2026-01-31T12:00:00Z';
    if (!Number.isFinite(t)) throw new UsageError(`invalid ${name} '${text}': ${what}`);
    return t;
  }
  return now - parseDuration(text, name) * 1000;
}
