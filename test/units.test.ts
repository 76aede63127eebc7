import { describe, expect, it } from 'vitest';
import { formatBytes, formatDuration, parseDuration, parseSize } from '../src/units.js';

describe('units', () => {
  it('parses durations', () => {
    expect(parseDuration('90s')).toBe(90);
    expect(parseDuration('30m')).toBe(1800);
    expect(parseDuration('24h')).toBe(86400);
    expect(parseDuration('7d')).toBe(604800);
    expect(parseDuration('1h30m')).toBe(5400);
    expect(parseDuration('45')).toBe(45);
    for (const bad of ['', 'forever', '10x', '-5s', 'h']) expect(() => parseDuration(bad), bad).toThrow(/invalid duration/);
  });
  it('parses sizes', () => {
    expect(parseSize('500MB')).toBe(500e6);
    expect(parseSize('2GiB')).toBe(2 * 1024 ** 3);
    expect(parseSize('10k')).toBe(10000);
    expect(parseSize('123')).toBe(123);
    for (const bad of ['', 'lots', '5XB', '-1MB']) expect(() => parseSize(bad), bad).toThrow(/invalid size/);
  });
  it('formats', () => {
    expect(formatBytes(812)).toBe('812 B');
    expect(formatBytes(5_000_000)).toBe('5.0 MB');
    expect(formatDuration(45)).toBe('45s');
    expect(formatDuration(7200)).toBe('2h');
  });
});
