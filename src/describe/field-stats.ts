// What a descriptor says about a field beyond its frequent values (issue 11): numbers their min, max and
// median; timestamps their earliest and latest value; ids how many distinct values they have. Bounded: a median
// from a sample spread over the whole input (every k-th value, k doubling as it fills), distinct values
// counted up to a cap. Deterministic: the same records give the same figures.

const SAMPLE = 4096;
const MAX_DISTINCT = 10_000;
/** ISO 8601 times, and the `Sun Aug 31 00:29:15 +0000 2014` form of some APIs (ordered by Date.parse). */
const TIME = /^\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?$|^[A-Z][a-z]{2},? +(\d\d? [A-Z][a-z]{2}|[A-Z][a-z]{2} +\d\d?) \d{4}|^[A-Z][a-z]{2} [A-Z][a-z]{2} +\d\d? \d\d:\d\d:\d\d [+-]\d{4} \d{4}$/;
/**
 * Whether TIME can match v, by its first character (every form starts with a digit or an upper-case letter): most
 * strings a record holds are no time, and this spares them the regex.
 */
function mayBeTime(v: string): boolean {
  const c = v.charCodeAt(0);
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a);
}
const ID_NAME = /(^|[._"])(id|uuid|guid|key|sha|hash|[a-z]+_id)"?$|[a-z]Id"?$/i;

/** Figures for one field. */
export interface FieldFigures {
  path: string;
  present: number;
  /** The median is exact (of an even count, the mean of the two middle values) while every value is kept; past
   * SAMPLE values it is a sample's, and `median_of` says of how many of the `numbers` values. */
  numbers?: { min: number; max: number; median: number; median_of?: number };
  /** The earliest and the latest. */
  times?: { first: string; last: string };
  /** How many distinct values (and whether there are more than counted). */
  distinct?: { count: number; more: boolean };
}

class Profile {
  present = 0;
  numbers = 0;
  min = Infinity;
  max = -Infinity;
  sample: number[] = [];
  private stride = 1;
  private seen = 0;
  times = 0;
  firstTime: string | null = null;
  lastTime: string | null = null;
  private firstMs = Infinity;
  private lastMs = -Infinity;
  /** The distinct values seen, strings and numbers apart (a value is its own key: no key string made per value). */
  private readonly strings = new Set<string>();
  private readonly numberValues = new Set<number>();
  moreDistinct = false;

  /** How many distinct values were seen (up to MAX_DISTINCT). */
  get distinct(): number {
    return this.strings.size + this.numberValues.size;
  }

  add(v: unknown): void {
    this.present++;
    if (typeof v === 'number') {
      this.numbers++;
      if (v < this.min) this.min = v;
      if (v > this.max) this.max = v;
      if (this.seen++ % this.stride === 0) {
        this.sample.push(v);
        if (this.sample.length >= SAMPLE) {
          this.sample = this.sample.filter((_, i) => i % 2 === 0);
          this.stride *= 2;
        }
      }
    } else if (typeof v === 'string' && v.length <= 40 && mayBeTime(v) && TIME.test(v)) {
      const ms = Date.parse(v);
      if (Number.isNaN(ms)) return;
      this.times++;
      if (ms < this.firstMs) [this.firstMs, this.firstTime] = [ms, v];
      if (ms > this.lastMs) [this.lastMs, this.lastTime] = [ms, v];
    }
    if ((typeof v === 'string' || typeof v === 'number') && !this.moreDistinct) {
      if (typeof v === 'string') this.strings.add(v);
      else this.numberValues.add(v);
      if (this.distinct >= MAX_DISTINCT) this.moreDistinct = true;
    }
  }
}

/** Profiles of scalar fields, fed value by value. */
export class FieldProfiles {
  private readonly profiles = new Map<string, Profile>();

  constructor(private readonly maxFields: number) {}

  add(path: string, v: unknown): void {
    let p = this.profiles.get(path);
    if (!p) {
      if (this.profiles.size >= this.maxFields) return;
      p = new Profile();
      this.profiles.set(path, p);
    }
    p.add(v);
  }

  /** The figures worth showing, for `records` records: times, numbers, ids. */
  figures(records: number): FieldFigures[] {
    const out: FieldFigures[] = [];
    for (const [path, p] of this.profiles) {
      if (records === 0 || p.present < records / 2) continue;
      const f: FieldFigures = { path, present: p.present };
      const idLike = ID_NAME.test(path) || (p.distinct >= 0.9 * p.present && p.numbers < p.present && p.times === 0);
      if (idLike && p.distinct > 20) f.distinct = { count: p.distinct, more: p.moreDistinct };
      else if (p.numbers >= 0.9 * p.present && p.distinct > 20) {
        const s = [...p.sample].sort((a, b) => a - b);
        const mid = s.length >> 1;
        const median = s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
        f.numbers = { min: p.min, max: p.max, median, ...(s.length < p.numbers ? { median_of: s.length } : {}) };
      } else if (p.times >= 0.9 * p.present && p.firstTime !== null) f.times = { first: p.firstTime, last: p.lastTime! };
      if (f.numbers || f.times || f.distinct) out.push(f);
    }
    // times first, then numbers, then ids; shallow fields first (stable: first-seen order within each)
    const rank = (f: FieldFigures) => (f.times ? 0 : f.numbers ? 10 : 20) + (f.path.match(/\./g) ?? []).length;
    return out.sort((a, b) => rank(a) - rank(b));
  }
}
