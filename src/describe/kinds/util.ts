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
