// A seeded sequence of numbers for the tests that draw their cases at random: the same seed draws the same cases,
// so a failure that names its seed is run again as it was. (A linear congruential generator, as C's rand().)
export interface Seeded {
  /** The next number, 0 to 2^31 - 1. */
  next(): number;
  /** The next number below n. */
  below(n: number): number;
  /** One of xs. */
  pick<T>(xs: readonly T[]): T;
  /** The next number from 0 to 1. */
  unit(): number;
}

export function seeded(seed: number): Seeded {
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) & 0x7fffffff);
  return { next, below: (n) => next() % n, pick: (xs) => xs[next() % xs.length], unit: () => next() / 0x7fffffff };
}
