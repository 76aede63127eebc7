// Items of a diff gathered by what they have in common (records changed the same way, records added with keys
// of one pattern), the rarest first: a change seen once is the one an agent looks for, and it would be on page
// 2 behind twenty copies of one image bump. Held as typed arrays (a 53-bit hash and two ints an item), never
// the items' texts, so a diff of millions of changed records groups them in tens of megabytes.

/** Items, in groups: group g is members[start[g]..start[g+1]), each an index into the items, in their order. */
export interface Groups {
  /** How many groups. */
  size: number;
  start: Int32Array;
  members: Int32Array;
}

/**
 * Groups items 0..n-1 by their hashes (hashes[i]: a number of 53 bits; equal hashes, one group). Groups are
 * ordered by their size, the smallest first, then by their first item; members keep their order.
 */
export function groupByHash(hashes: Float64Array): Groups {
  const n = hashes.length;
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((x, y) => hashes[x] - hashes[y] || x - y);
  // runs of one hash: their first position in `order` and their size
  const runStart: number[] = [];
  for (let i = 0; i < n; i++) if (i === 0 || hashes[order[i]] !== hashes[order[i - 1]]) runStart.push(i);
  const runs = runStart.length;
  const size = (r: number) => (r + 1 < runs ? runStart[r + 1] : n) - runStart[r];
  const byRarity = new Int32Array(runs);
  for (let r = 0; r < runs; r++) byRarity[r] = r;
  byRarity.sort((x, y) => size(x) - size(y) || order[runStart[x]] - order[runStart[y]]);
  const start = new Int32Array(runs + 1);
  const members = new Int32Array(n);
  let at = 0;
  for (let g = 0; g < runs; g++) {
    const r = byRarity[g];
    start[g] = at;
    members.set(order.subarray(runStart[r], runStart[r] + size(r)), at);
    at += size(r);
  }
  start[runs] = at;
  return { size: runs, start, members };
}

/** How many items a group holds. */
export const groupSize = (g: Groups, i: number): number => g.start[i + 1] - g.start[i];

/** The first `max` members of a group. */
export function groupFirst(g: Groups, i: number, max: number): number[] {
  const out: number[] = [];
  for (let k = g.start[i]; k < g.start[i + 1] && out.length < max; k++) out.push(g.members[k]);
  return out;
}

/**
 * A key's pattern, for gathering records added or removed: the parts of a name that hold a digit (a hash, an
 * index, a date) and a random suffix after one (Kubernetes' `-x2k9p`) are masked, so web-7d4b9c-x2k9p and
 * web-7d4b9c-kqzbw are one pattern, web-*-*, and db-0 is db-*.
 */
export function keyPattern(key: string): string {
  const parts = key.split(/([-_.:/@ ]+)/);
  let masked = false;
  for (let i = 0; i < parts.length; i += 2) {
    const p = parts[i];
    const mask: boolean = /\d/.test(p) || (masked && i === parts.length - 1 && parts[i - 1] === '-' && /^[a-z]{5}$/.test(p));
    if (mask) parts[i] = '*';
    if (p !== '') masked = mask;
  }
  return parts.join('');
}
