// Small helpers of the kind detectors.

/** Counts as an object, most frequent first, at most n. */
export function topCounts(counts: Map<string, number>, n: number): Record<string, number> {
  return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, n));
}

export function bump(counts: Map<string, number>, key: string, by = 1): void {
  counts.set(key, (counts.get(key) ?? 0) + by);
}

/** The non-blank lines of a sample with their line numbers. */
export function numbered(lines: string[]): { n: number; text: string }[] {
  const out: { n: number; text: string }[] = [];
  lines.forEach((text, i) => {
    if (text.trim() !== '') out.push({ n: i + 1, text });
  });
  return out;
}

/** Whether at least `share` of the items satisfy the test (and there are at least `min` items). */
export function most<T>(items: T[], test: (x: T) => boolean, share: number, min = 3): boolean {
  if (items.length < min) return false;
  let ok = 0;
  for (const x of items) if (test(x)) ok++;
  return ok >= items.length * share;
}

/** A regex source matching the text literally. */
export function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** "in the first N lines" when the sample is not the whole input. */
export function scope(complete: boolean, lines: number): Record<string, unknown> {
  return complete ? {} : { from_first_lines: lines };
}

/**
 * Counts by key over a whole output in bounded memory: exact while there are at most `cap` distinct keys; past
 * that, a Misra-Gries summary (when the map holds 2 × cap keys, the (cap + 1)-th largest count is taken from every
 * count and the keys left at 0 or below dropped). Each count is then an estimate, low by at most `error` (the sum
 * taken from each key), and any key with more than `error` occurrences is still there.
 */
export class TopCounts {
  private readonly counts = new Map<string, number>();
  /** How much any count may be below the truth (0: every count is exact). */
  error = 0;
  /** Keys seen, exactly while no key was dropped. */
  constructor(private readonly cap = 1000) {}

  add(key: string, by = 1): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + by);
    if (this.counts.size >= 2 * this.cap) this.prune();
  }

  private prune(): void {
    const sorted = [...this.counts.values()].sort((a, b) => b - a);
    const cut = sorted[this.cap];
    this.error += cut;
    for (const [k, v] of this.counts) {
      if (v <= cut) this.counts.delete(k);
      else this.counts.set(k, v - cut);
    }
  }

  get exact(): boolean {
    return this.error === 0;
  }

  /** Distinct keys: exact while `exact`. */
  get size(): number {
    return this.counts.size;
  }

  /** All the counts (all keys while `exact`). */
  map(): Map<string, number> {
    return this.counts;
  }

  /**
   * The n largest, most frequent first, and the sum of the others as "(others)" while the counts are exact (a
   * list cut short is not read as all of them).
   */
  top(n: number): Record<string, number> {
    const shown = topCounts(this.counts, n);
    if (!this.exact || this.counts.size <= n) return shown;
    let rest = 0;
    for (const [k, v] of this.counts) if (!(k in shown)) rest += v;
    return { ...shown, '(others)': rest };
  }

  /** Whether the key was counted (once the counts are estimates, a rare key may have been dropped). */
  has(key: string): boolean {
    return this.counts.has(key);
  }

  /** The most frequent key, or undefined. */
  first(): string | undefined {
    return Object.keys(this.top(1))[0];
  }

  /** Moves every count into one key (the keys were all one thing seen from further up); '' drops them. */
  collapse(into: string): void {
    let total = 0;
    for (const v of this.counts.values()) total += v;
    this.counts.clear();
    if (total && into) this.counts.set(into, total);
  }
}

/** The facts' words for counts that are estimates (past TopCounts' cap), else nothing. */
export function estimateNote(name: string, c: TopCounts): Record<string, string> {
  return c.exact ? {} : { [`${name}_estimated`]: `counts are estimates: each may be low by up to ${c.error.toLocaleString('en-US')}` };
}

/** The first `n` and the last `n` of a stream of items (what a descriptor shows of a long list of error lines). */
export class FirstLast<T> {
  private readonly firstItems: T[] = [];
  private lastItems: T[] = [];
  count = 0;
  constructor(private readonly n = 10) {}

  push(x: T): void {
    this.count++;
    if (this.firstItems.length < this.n) this.firstItems.push(x);
    else {
      this.lastItems.push(x);
      if (this.lastItems.length > 4 * this.n) this.lastItems = this.lastItems.slice(-this.n);
    }
  }

  items(): T[] {
    return [...this.firstItems, ...this.lastItems.slice(-this.n)];
  }
}

/** The `n` largest items by a number, kept as they pass (ties: the first seen stays ahead). */
export class Largest<T> {
  private readonly items: { key: number; item: T }[] = [];
  constructor(private readonly n: number) {}

  push(key: number, item: T): void {
    const list = this.items;
    if (list.length === this.n && key <= list[list.length - 1].key) return;
    let i = list.length;
    while (i > 0 && list[i - 1].key < key) i--;
    list.splice(i, 0, { key, item });
    if (list.length > this.n) list.pop();
  }

  list(): T[] {
    return this.items.map((x) => x.item);
  }
}
