// Keeping the store tidy under torture: `lro gc` removes what killed writers leave once it is stale, `ls` and
// `gc` keep working in a store full of damaged files and never delete one they cannot parse unless --max-age
// says so, gc deletes nothing outside the store (not in a directory standing in for / or $HOME, not through a
// symlink), and offloads running while gc loops lose nothing.
//
// Skipped until `lro ls` and `lro gc` exist (they come from another branch); runs once they are merged.
// Contract: lro ls [--json] [--session S] [--operation O] [--expired] [--dir D];
//           lro gc [--max-age DUR] [--max-total-size SIZE] [--dry-run] [--json] [--dir D],
//           --json report {removed_count, freed_bytes, files, kept_count}; exit 0 ok, 2 error.
// @module-tag soak: every test here is part of `npm run test:soak`, not of `npm test` (vitest.config.ts)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monotonicFactory } from 'ulid';
import { isTempFileName, parseDedupeFileName, parseResultFileName } from '../../src/format/naming.js';
import { BIN, cleanup, lro, tempDir, type RunResult } from '../helpers/cli.js';
import { pool, report, sha256, sleep, snapshot, WRITERS } from './lib.js';

/**
 * Whether this build has a subcommand: `lro NAME --help` exits 0 with NAME's own usage (for an unknown NAME,
 * commander shows the program's help, also with exit 0, so the exit code alone cannot tell).
 */
function hasCommand(name: string): boolean {
  const r = spawnSync(process.execPath, [BIN, name, '--help'], { encoding: 'utf8', env: { PATH: process.env.PATH, NO_COLOR: '1' } });
  return r.status === 0 && r.stdout.startsWith(`Usage: lro ${name} `);
}
const ready = hasCommand('ls') && hasCommand('gc');

const ulid = monotonicFactory();
let root: string;
beforeAll(() => {
  root = tempDir('lro-torture-tidy-');
});
afterAll(() => cleanup(root));

const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000);
const age = (path: string, hours: number) => utimesSync(path, hoursAgo(hours), hoursAgo(hours));

interface GcReport {
  removed_count: number;
  freed_bytes: number;
  files: unknown[];
  kept_count: number;
}

async function gc(dir: string, args: string[] = []): Promise<{ r: RunResult; report: GcReport }> {
  const r = await lro(['gc', '--json', '--dir', dir, ...args], { timeout: 120_000 });
  expect(r.code, `gc ${args.join(' ')}: ${r.stderr}`).toBe(0);
  const rep = JSON.parse(r.out) as GcReport;
  expect(typeof rep.removed_count).toBe('number');
  expect(typeof rep.freed_bytes).toBe('number');
  expect(Array.isArray(rep.files)).toBe(true);
  expect(typeof rep.kept_count).toBe('number');
  return { r, report: rep };
}

async function ls(dir: string, args: string[] = []): Promise<{ r: RunResult; entries: { id: string; [k: string]: unknown }[] }> {
  const r = await lro(['ls', '--json', '--max-tokens', '0', '--dir', dir, ...args], { timeout: 120_000 });
  expect([0, 2], `ls: ${r.stderr}`).toContain(r.code);
  for (const line of r.stderr.split('\n').filter(Boolean)) expect(line).toMatch(/^lro: /);
  return { r, entries: JSON.parse(r.out) };
}

async function offload(dir: string, input: string | Buffer, args: string[] = []): Promise<{ id: string; path: string }> {
  const r = await lro(['offload', '--force', ...args], { input, env: { LRO_DIR: dir } });
  expect(r.code, r.stderr).toBe(0);
  const d = JSON.parse(r.out) as { id: string; file_path: string };
  return { id: d.id, path: d.file_path };
}

/** Starts an offload of a big input, kills it with SIGKILL once its temporary file exists; resolves when dead. */
function killMidWrite(dir: string): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'offload', '--force'], { env: { PATH: process.env.PATH, LRO_DIR: dir }, stdio: ['pipe', 'ignore', 'ignore'] });
    child.stdin.on('error', () => undefined);
    child.on('close', () => resolve());
    const chunk = Buffer.from('a line that goes into a big result\n'.repeat(30_000));
    let n = 0;
    const feed = () => {
      while (n++ < 400 && child.stdin.write(chunk));
      if (n < 400) child.stdin.once('drain', feed);
    };
    feed();
    const poll = setInterval(() => {
      const mine = existsSync(dir) && readdirSync(dir).some((f) => isTempFileName(f) && f.includes(`-${child.pid}-`));
      if (mine) {
        clearInterval(poll);
        child.kill('SIGKILL');
      }
    }, 5);
  });
}

describe.skipIf(!ready)('gc after killed writers', () => {
  it('keeps fresh temporary files, removes them once older than an hour, and keeps every result', async () => {
    const dir = join(root, 'after-kills');
    const kept = [await offload(dir, 'one\n'), await offload(dir, 'two\n')];
    for (let i = 0; i < 4; i++) await killMidWrite(dir);
    const temps = readdirSync(dir).filter(isTempFileName);
    expect(temps.length).toBeGreaterThan(0);

    // fresh leftovers may belong to a writer still running: kept
    const fresh = await gc(dir);
    expect(readdirSync(dir).filter(isTempFileName).sort()).toEqual([...temps].sort());
    expect(fresh.report.removed_count).toBe(0);

    const sizes = temps.map((t) => lstatSync(join(dir, t)).size).reduce((a, b) => a + b, 0);
    for (const t of temps) age(join(dir, t), 2);
    const dry = await gc(dir, ['--dry-run']);
    expect(readdirSync(dir).filter(isTempFileName).sort()).toEqual([...temps].sort());
    expect(dry.report.removed_count).toBe(temps.length);

    const stale = await gc(dir);
    expect(readdirSync(dir).filter(isTempFileName)).toEqual([]);
    expect(stale.report.removed_count).toBe(temps.length);
    expect(stale.report.freed_bytes).toBe(sizes);
    for (const t of temps) expect(JSON.stringify(stale.report.files)).toContain(t);
    for (const k of kept) {
      const c = await lro(['cat', k.id], { env: { LRO_DIR: dir } });
      expect(c.code, c.stderr).toBe(0);
    }
    expect(stale.report.kept_count).toBeGreaterThanOrEqual(kept.length);
  });
});

describe.skipIf(!ready)('ls and gc in a store full of damaged files', () => {
  let dir: string;
  let good: { id: string; path: string }[];
  let expired: { id: string; path: string };
  const damagedNames: string[] = [];
  let outsideTarget: string;

  beforeAll(async () => {
    dir = join(root, 'damaged');
    expired = await offload(dir, 'expires at once\n', ['--ttl', '1s', '--operation', 'short']);
    good = [await offload(dir, 'kept one\n', ['--session', 's1', '--operation', 'alpha']), await offload(dir, '{"a":1}\n{"a":2}\n', ['--session', 's2', '--operation', 'beta'])];
    const header = readFileSync(good[0].path, 'utf8').split('\n')[0];
    const h = JSON.parse(header) as Record<string, unknown>;
    const plant = (content: string | Buffer) => {
      const id = ulid();
      const name = `lro-damaged-${id}.jsonl`;
      writeFileSync(join(dir, name), content, { mode: 0o600 });
      damagedNames.push(name);
    };
    // files whose header cannot be parsed (a header that parses, with damaged records, is a result to ls and gc)
    plant('');
    plant(header.slice(0, 40));
    plant(`${JSON.stringify({ ...h, id: ulid(), schema_version: 'lro/9' })}\n"x"\n`);
    plant(`${JSON.stringify({ ...h, id: ulid(), count: 'many' })}\n"x"\n`);
    plant(`{}\n"x"\n`);
    plant(`garbage\n`);
    plant(Buffer.concat([Buffer.from('{"type":"lro_header","operation":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n')]));
    plant(`${JSON.stringify({ ...h, id: ulid(), expires_at: hoursAgo(48).toISOString() }).slice(0, -5)}\n`); // expired but unparseable
    mkdirSync(join(dir, `lro-dir-${ulid()}.jsonl`));
    writeFileSync(join(dir, 'notes.txt'), 'not lro');
    writeFileSync(join(dir, '.lro-not-a-temp'), 'not lro either');
    // a symlink named like a result, to an expired lro result outside the store
    const outside = join(root, 'outside-store');
    const o = await offload(outside, 'outside the store\n', ['--ttl', '1s']);
    outsideTarget = o.path;
    symlinkSync(outsideTarget, join(dir, `lro-link-${ulid()}.jsonl`));
    await sleep(1500); // the 1s results expire
  });

  it('ls lists the readable results, whatever else is there', async () => {
    const { entries } = await ls(dir);
    const ids = entries.map((e) => e.id);
    for (const g of [...good, expired]) expect(ids).toContain(g.id);
    expect(ids.indexOf(good[1].id)).toBeLessThan(ids.indexOf(good[0].id)); // newest first
    const text = await lro(['ls', '--dir', dir]);
    expect([0, 2]).toContain(text.code);
    expect(text.out).toContain(good[0].id);
    expect(text.stderr).not.toMatch(/\n\s+at /);
  });

  it('ls filters by session, operation and expiry', async () => {
    expect((await ls(dir, ['--session', 's1'])).entries.map((e) => e.id)).toEqual([good[0].id]);
    expect((await ls(dir, ['--operation', 'beta'])).entries.map((e) => e.id)).toEqual([good[1].id]);
    expect((await ls(dir, ['--expired'])).entries.map((e) => e.id)).toEqual([expired.id]);
  });

  it('gc removes the expired result and never a file it cannot parse, nor anything foreign', async () => {
    const before = snapshot(dir);
    const targetBefore = sha256(readFileSync(outsideTarget));
    const { report: rep } = await gc(dir);
    const after = snapshot(dir);
    expect(existsSync(expired.path)).toBe(false);
    expect(rep.removed_count).toBe(1);
    for (const g of good) expect(after[g.path.split('/').pop()!]).toBe(before[g.path.split('/').pop()!]);
    for (const name of [...damagedNames, 'notes.txt', '.lro-not-a-temp']) expect(after[name], name).toBe(before[name]);
    for (const name of Object.keys(before).filter((n) => n.startsWith('lro-dir-') || n.startsWith('lro-link-'))) expect(after[name], name).toBe(before[name]);
    expect(sha256(readFileSync(outsideTarget))).toBe(targetBefore);
  });

  it('gc --max-age may remove old files it cannot parse, and still nothing foreign or outside', async () => {
    for (const name of damagedNames) age(join(dir, name), 3);
    const before = snapshot(dir);
    const targetBefore = sha256(readFileSync(outsideTarget));
    await gc(dir, ['--max-age', '1h']);
    const after = snapshot(dir);
    // each damaged file is gone or untouched (gc may keep one that does not even look like lro's)
    for (const name of damagedNames) if (after[name] !== undefined) expect(after[name], name).toBe(before[name]);
    expect(damagedNames.filter((name) => after[name] === undefined).length).toBeGreaterThan(0);
    for (const g of good) expect(existsSync(g.path)).toBe(true);
    for (const name of ['notes.txt', '.lro-not-a-temp']) expect(after[name]).toBe(before[name]);
    for (const name of Object.keys(before).filter((n) => n.startsWith('lro-dir-'))) expect(after[name], name).toBe(before[name]);
    expect(existsSync(outsideTarget)).toBe(true);
    expect(sha256(readFileSync(outsideTarget))).toBe(targetBefore);
  });
});

describe.skipIf(!ready)('gc never deletes outside the store', () => {
  /** A directory like / or $HOME: foreign files, dotfiles, and files that merely look like lro's. */
  function fakeRoot(name: string, mode: number): string {
    const d = join(root, name);
    mkdirSync(d);
    writeFileSync(join(d, '.bashrc'), 'export PS1=$\n');
    writeFileSync(join(d, 'notes.txt'), 'my notes\n');
    writeFileSync(join(d, 'lro-notes.jsonl'), '{"mine":true}\n');
    writeFileSync(join(d, `lro-offload-${ulid()}.jsonl`), 'not an lro result, but named like one\n');
    writeFileSync(join(d, '.lro-backup.tmp'), 'named like a temporary file\n');
    mkdirSync(join(d, 'Documents'));
    writeFileSync(join(d, 'Documents', 'thesis.txt'), 'years of work\n');
    for (const f of readdirSync(d)) age(join(d, f), 24 * 400);
    chmodSync(d, mode);
    return d;
  }

  for (const [name, mode] of [
    ['like-root', 0o755],
    ['like-home', 0o700],
  ] as [string, number][]) {
    it(`--dir at a directory ${name.replace('-', ' ')} (mode ${mode.toString(8)}): every file survives`, async () => {
      const d = fakeRoot(name, mode);
      const before = snapshot(d);
      const inner = snapshot(join(d, 'Documents'));
      for (const args of [[], ['--max-age', '1s'], ['--max-total-size', '0'], ['--max-age', '0s', '--max-total-size', '0'], ['--dry-run', '--max-age', '1s']]) {
        const r = await lro(['gc', '--dir', d, ...args], { timeout: 60_000 });
        expect([0, 2], `gc ${args.join(' ')}: ${r.stderr}`).toContain(r.code);
        if (r.code === 2) expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(Object.keys(snapshot(d)), `gc ${args.join(' ')} removed files`).toEqual(Object.keys(before));
        expect(snapshot(d), `gc ${args.join(' ')}`).toEqual(before);
        expect(snapshot(join(d, 'Documents'))).toEqual(inner);
      }
    });
  }

  it('a symlinked directory inside the store is not followed', async () => {
    const dir = join(root, 'with-subdir-link');
    await offload(dir, 'x\n');
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(elsewhere);
    const victim = await offload(join(elsewhere, 'store'), 'someone else\n', ['--ttl', '1s']);
    symlinkSync(join(elsewhere, 'store'), join(dir, 'sub'));
    await sleep(1200);
    await gc(dir, ['--max-age', '0s', '--max-total-size', '0']);
    expect(existsSync(victim.path)).toBe(true);
  });
});

describe.skipIf(!ready)('offloads while gc loops', () => {
  it(`${WRITERS} offloads with gc running over and over: nothing lost, everything listed`, async () => {
    const dir = join(root, 'busy');
    await offload(dir, 'seed\n');
    let running = true;
    const gcRuns: RunResult[] = [];
    const looper = (async () => {
      while (running) gcRuns.push(await lro(['gc', '--json', '--dir', dir], { timeout: 120_000 }));
    })();
    const looper2 = (async () => {
      while (running) gcRuns.push(await lro(['gc', '--max-age', '1h', '--dir', dir], { timeout: 120_000 }));
    })();
    const inputs = Array.from({ length: WRITERS }, (_, i) => Buffer.from(`writer ${i}\n`.repeat(1 + (i % 500))));
    const results = await Promise.all(inputs.map((input, i) => lro(['offload', '--force', '--operation', `w${i}`], { input, env: { LRO_DIR: dir }, timeout: 300_000 })));
    running = false;
    await Promise.all([looper, looper2]);
    let losses = 0;
    const ids: string[] = [];
    for (const r of results) {
      expect(r.code, r.stderr).toBe(0);
      ids.push((JSON.parse(r.out) as { id: string }).id);
    }
    // every result read back, two at a time
    const back = await pool(ids, 2, (id) => lro(['cat', id], { env: { LRO_DIR: dir } }));
    for (const [i, c] of back.entries()) if (c.code !== 0 || !c.stdout.equals(inputs[i])) losses++;
    report({ suite: 'gc-concurrency', writers: WRITERS, gc_runs: gcRuns.length, losses });
    expect(losses).toBe(0);
    expect(gcRuns.length).toBeGreaterThan(0);
    for (const g of gcRuns) expect(g.code, g.stderr).toBe(0);
    const listed = (await ls(dir)).entries.map((e) => e.id);
    for (const id of ids) expect(listed).toContain(id);
    expect(readdirSync(dir).filter((n) => !parseResultFileName(n) && !isTempFileName(n) && !parseDedupeFileName(n))).toEqual([]);
  });
});

describe('store-tidy guard', () => {
  it('tells a build with a command from one without', () => {
    expect(hasCommand('cat')).toBe(true);
    expect(hasCommand('no-such-command')).toBe(false);
    // without gc, running it is a usage error, not a crash
    if (!ready) expect(spawnSync(process.execPath, [BIN, 'gc'], { env: { PATH: process.env.PATH } }).status).toBe(2);
  });
});
