// What two sequences share at their ends: the unified diff of `lro init --dry-run` (render/diff.ts) and the
// diff of two results' lines (compare/lines.ts) both leave it out before comparing what is between.

/**
 * What two sequences share at the start and at the end: x[0, start) equals y[0, start), x[endX, ) equals
 * y[endY, ), and what differs lies between (the shared end never overlaps the shared start).
 */
export function commonEnds<T>(x: ArrayLike<T>, y: ArrayLike<T>): { start: number; endX: number; endY: number } {
  let start = 0;
  while (start < x.length && start < y.length && x[start] === y[start]) start++;
  let endX = x.length;
  let endY = y.length;
  while (endX > start && endY > start && x[endX - 1] === y[endY - 1]) {
    endX--;
    endY--;
  }
  return { start, endX, endY };
}
