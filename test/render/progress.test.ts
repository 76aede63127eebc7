// The progress line: shown only on a terminal without NO_COLOR or CI, only past its threshold, at most every
// interval, and cleared at the end. A fake IO records what reaches stderr.
import { describe, expect, it } from 'vitest';
import type { IO, Output } from '../../src/io.js';
import { createProgress, progressAllowed, PROGRESS_BYTES } from '../../src/render/progress.js';

function fakeIO(isTTY: boolean, env: NodeJS.ProcessEnv = {}) {
  const written: string[] = [];
  const stderr: Output = {
    isTTY,
    color: false,
    columns: isTTY ? 80 : 0,
    write: async (d) => void written.push(typeof d === 'string' ? d : Buffer.from(d).toString()),
  };
  const io: Pick<IO, 'stderr' | 'env' | 'now'> = { stderr, env, now: () => new Date(0) };
  return { io, written };
}

/** A clock the test moves by hand. */
function clock() {
  let t = 0;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

const MB = 1 << 20;

describe('progress gating', () => {
  it('is allowed only on a terminal without NO_COLOR, CI or TERM=dumb', () => {
    expect(progressAllowed(fakeIO(true).io)).toBe(true);
    expect(progressAllowed(fakeIO(false).io)).toBe(false);
    expect(progressAllowed(fakeIO(true, { NO_COLOR: '1' }).io)).toBe(false);
    expect(progressAllowed(fakeIO(true, { CI: 'true' }).io)).toBe(false);
    expect(progressAllowed(fakeIO(true, { TERM: 'dumb' }).io)).toBe(false);
    expect(progressAllowed(fakeIO(true, { NO_COLOR: '', CI: '' }).io)).toBe(true); // empty means unset, as no-color.org says
  });

  for (const [what, isTTY, env] of [
    ['piped', false, {}],
    ['NO_COLOR', true, { NO_COLOR: '1' }],
    ['CI', true, { CI: 'true' }],
  ] as const) {
    it(`prints nothing when ${what}`, () => {
      const { io, written } = fakeIO(isTTY, env);
      const c = clock();
      const p = createProgress(io, 'lro: offloading', { clock: c.now });
      for (let i = 1; i <= 20; i++) {
        c.advance(1000);
        p.update(i * 100 * MB);
      }
      p.done();
      expect(written).toEqual([]);
    });
  }
});

describe('progress on a terminal', () => {
  it('starts past 50 MB, redraws one line at most every 250 ms with bytes and rate, and clears it', () => {
    const { io, written } = fakeIO(true);
    const c = clock();
    const p = createProgress(io, 'lro: offloading', { clock: c.now });
    p.update(10 * MB);
    c.advance(1000);
    p.update(PROGRESS_BYTES - 1);
    expect(written).toEqual([]); // small inputs finish before anyone would look
    p.update(60_000_000);
    expect(written).toEqual(['\rlro: offloading 60 MB, 60 MB/s\x1b[K']);
    c.advance(100);
    p.update(70_000_000);
    expect(written.length).toBe(1); // not yet due
    c.advance(200);
    p.update(130_000_000);
    expect(written.at(-1)).toBe('\rlro: offloading 130 MB, 100 MB/s\x1b[K');
    p.done();
    p.done();
    expect(written.at(-1)).toBe('\r\x1b[K');
    expect(written.length).toBe(3);
    p.update(500_000_000);
    expect(written.length).toBe(3); // nothing after done()
  });

  it('clears nothing when nothing was drawn', () => {
    const { io, written } = fakeIO(true);
    const p = createProgress(io, 'lro: offloading');
    p.update(1000);
    p.done();
    expect(written).toEqual([]);
  });

  it('counts items after a delay (gc: files scanned)', () => {
    const { io, written } = fakeIO(true);
    const c = clock();
    const p = createProgress(io, 'lro gc: scanned', { unit: 'items', clock: c.now });
    p.update(5);
    c.advance(500);
    p.update(900);
    expect(written).toEqual([]); // quick work shows nothing
    c.advance(600);
    p.update(12_345);
    expect(written).toEqual(['\rlro gc: scanned 12,345\x1b[K']);
    p.done();
    expect(written.at(-1)).toBe('\r\x1b[K');
  });
});
