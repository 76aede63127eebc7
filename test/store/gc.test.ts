// The gc policy alone (planGc is pure): what goes, in which order, and what always stays.
import { describe, expect, it } from 'vitest';
import { planGc, TEMP_GRACE_MS, type GcCandidate } from '../../src/store/gc.js';

const NOW = Date.parse('2026-01-10T00:00:00Z');
const HOUR = 3600_000;
let ino = 0;

function result(name: string, ageH: number, ttlH: number, size = 100): GcCandidate {
  const createdMs = NOW - ageH * HOUR;
  return { kind: 'result', name, id: name, path: `/s/${name}`, size, mtimeMs: createdMs, dev: 1, ino: ++ino, createdMs, expiresMs: createdMs + ttlH * HOUR };
}

function other(kind: 'damaged' | 'temp' | 'claim' | 'ref', name: string, ageH: number, extra: Partial<GcCandidate> = {}): GcCandidate {
  const mtimeMs = NOW - ageH * HOUR;
  return { kind, name, path: `/s/${name}`, size: 10, mtimeMs, dev: 1, ino: ++ino, createdMs: mtimeMs, ...extra };
}

const policy = { now: NOW, tempGraceMs: TEMP_GRACE_MS };
const picked = (c: GcCandidate[], p = {}) => planGc(c, { ...policy, ...p }).victims.map((v) => `${v.name}:${v.reason}`);

describe('planGc', () => {
  it('removes expired results only; expiry exactly now counts as expired', () => {
    expect(picked([result('a', 25, 24), result('b', 1, 24), result('c', 24, 24)])).toEqual(['a:expired', 'c:expired']);
  });

  it('--max-age removes results created before the cutoff', () => {
    expect(picked([result('a', 10, 100), result('b', 2, 100)], { maxAgeMs: 5 * HOUR })).toEqual(['a:max_age']);
  });

  it('--max-total-size removes the oldest until the rest fit, after expired ones are gone', () => {
    const c = [result('new', 1, 100, 300), result('old', 9, 100, 300), result('mid', 5, 100, 300), result('dead', 30, 24, 5000)];
    const plan = planGc(c, { ...policy, maxTotalSize: 600 });
    expect(plan.victims.map((v) => `${v.name}:${v.reason}`)).toEqual(['dead:expired', 'old:max_total_size']);
    expect(plan).toMatchObject({ keptCount: 2, keptBytes: 600 });
    expect(picked(c, { maxTotalSize: 0 })).toEqual(['dead:expired', 'old:max_total_size', 'mid:max_total_size', 'new:max_total_size']);
  });

  it('keeps damaged files unless --max-age applies and they begin like an lro header', () => {
    const c = [other('damaged', 'lro-ish', 48, { lroContent: true }), other('damaged', 'garbage', 48, { lroContent: false })];
    expect(picked(c)).toEqual([]);
    expect(picked(c, { maxAgeMs: HOUR })).toEqual(['lro-ish:damaged_max_age']);
    expect(picked(c, { maxAgeMs: 100 * HOUR })).toEqual([]);
  });

  it('removes temporary files whose writer is gone, however young (a claim only after the grace); the others are kept, counted', () => {
    const c = [
      other('temp', 'stale', 2, { writerAlive: false }),
      other('temp', 'writing', 2, { writerAlive: true }),
      other('temp', 'fresh', 0.5, { writerAlive: false }),
      other('temp', 'unjudged', 0.5),
      other('claim', 'young-claim', 0.5, { writerAlive: false }),
    ];
    expect(picked(c, { maxAgeMs: 0, maxTotalSize: 0 })).toEqual(['stale:stale_temp', 'fresh:stale_temp']);
    expect(planGc(c, policy).keptTemps.map((t) => t.name)).toEqual(['writing', 'unjudged', 'young-claim']);
  });

  it('treats dedupe claims like temporary files, and removes a ref with its result or once its result is gone', () => {
    const r = result('r', 30, 24);
    const c = [
      r,
      other('claim', 'stale', 2, { writerAlive: false }),
      other('claim', 'held', 2, { writerAlive: true }),
      other('ref', 'follows', 0, { target: r.path, targetGone: false }),
      other('ref', 'dangling', 0, { target: '/s/gone', targetGone: true }),
      other('ref', 'live', 0, { target: '/s/kept', targetGone: false }),
    ];
    expect(picked(c)).toEqual(['r:expired', 'stale:stale_claim', 'follows:dangling_ref', 'dangling:dangling_ref']);
  });

  it('--session (everyResult) removes every result given, expired or not, and keeps damaged files', () => {
    const c = [result('a', 1, 100), result('b', 50, 24), other('damaged', 'd', 1, { lroContent: true })];
    expect(picked(c, { everyResult: true })).toEqual(['a:session', 'b:session']);
  });

  it('never counts temporary or damaged files toward --max-total-size', () => {
    const plan = planGc([result('r', 1, 100, 50), other('temp', 't', 0), other('damaged', 'd', 0)], { ...policy, maxTotalSize: 50 });
    expect(plan.victims).toEqual([]);
    expect(plan.keptBytes).toBe(50);
  });
});
