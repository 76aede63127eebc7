// Durations and sizes, parsed and printed the same way everywhere (options, env variables, tables).
import { UsageError } from './errors.js';

const DURATION_UNITS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400, w: 604800 };
const SIZE_UNITS: Record<string, number> = {
  b: 1,
  k: 1e3,
  kb: 1e3,
  kib: 1024,
  m: 1e6,
  mb: 1e6,
  mib: 1024 ** 2,
  g: 1e9,
  gb: 1e9,
  gib: 1024 ** 3,
  t: 1e12,
  tb: 1e12,
  tib: 1024 ** 4,
};

/** Parses `90s`, `30m`, `24h`, `7d`, `1w`, `1h30m` or a bare number of seconds into seconds. */
export function parseDuration(text: string, what = 'duration'): number {
  const s = text.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s);
  const re = /(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)/gy;
  let total = 0;
  let matched = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    total += Number(m[1]) * DURATION_UNITS[m[2]];
    matched = re.lastIndex;
  }
  if (!s || matched !== s.length) throw new UsageError(`invalid ${what} '${text}': use a number with a unit, e.g. 90s, 30m, 24h, 7d`);
  return total;
}

/** Parses a --timeout: seconds, or a duration like 30s or 2m; more than zero. */
export function parseTimeout(text: string): number {
  const s = parseDuration(text, '--timeout');
  if (s <= 0) throw new UsageError(`invalid --timeout '${text}': must be more than 0`);
  return s;
}

/** Parses `500MB`, `2GiB`, `10k` or a bare number of bytes. */
export function parseSize(text: string, what = 'size'): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = m ? SIZE_UNITS[(m[2] || 'b').toLowerCase()] : undefined;
  if (!m || unit === undefined) throw new UsageError(`invalid ${what} '${text}': use a number with a unit, e.g. 500MB, 2GB, 10k`);
  return Math.round(Number(m[1]) * unit);
}

/** Parses a non-negative integer option. */
export function parseCount(text: string, what: string): number {
  if (!/^\s*\d+\s*$/.test(text)) throw new UsageError(`invalid ${what} '${text}': expected a whole number`);
  return Number(text);
}

/** 5.0 MB, 812 B, 1.2 GB (decimal units, as ls -h --si). */
export function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n / 1000;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

/** 45s, 12m, 3h, 2d: the largest whole unit, for ages and time left. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** 1,234,567 (without toLocaleString, whose first call loads locale data: ~20 ms) */
export function formatCount(n: number): string {
  const s = String(Math.trunc(Math.abs(n)));
  const grouped = s.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return n < 0 ? `-${grouped}` : grouped;
}

/** A count and its noun: `1 record`, `12 records`, `1,234 lines`. */
export function formatCounted(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}
