// The results in a store, from directory entries alone: names lro owns (`lro-<op>-<ULID>.jsonl`, regular files,
// never symlinks) and its temporary files. Nothing else in the directory is ever touched.
import { readdirSync } from 'node:fs';
import { isTempFileName, parseResultFileName } from '../format/naming.js';

export interface StoreEntry {
  name: string;
  id: string;
  operation: string;
}

/** Names in the store that lro owns, sorted by id (= by time). */
export function listResultNames(dir: string): { results: StoreEntry[]; temps: string[]; foreign: string[] } {
  const results: StoreEntry[] = [];
  const temps: string[] = [];
  const foreign: string[] = [];
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const parsed = parseResultFileName(d.name);
    if (parsed && d.isFile()) results.push({ name: d.name, ...parsed });
    else if (isTempFileName(d.name) && d.isFile()) temps.push(d.name);
    else foreign.push(d.name);
  }
  results.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { results, temps, foreign };
}
