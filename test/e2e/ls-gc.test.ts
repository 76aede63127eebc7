// End-to-end: `lro ls` and `lro gc` (CONTRACT section 5), including the cron case: gc runs racing each other
// and offloads, with nothing lost and nothing outside lro's own files touched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, chownSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ulid } from 'ulid';
import { cleanup, lro, ls, tempDir } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';

let root: string;
let template: string; // a real result file, copied with new ids by plant()
let n = 0;
const HOUR = 3600_000;

beforeAll(async () => {
  root = tempDir();
  const dir = join(root, 'template');
  const r = await lro(['offload', '--force'], { input: 'template line\n'.repeat(50), env: { LRO_DIR: dir } });
  expect(r.code, r.stderr).toBe(0);
  template = JSON.parse(r.out).file_path;
});
afterAll(() => cleanup(root));

/** A fresh store path (not created) and its env. */
function freshStore(): { dir: string; env: { LRO_DIR: string } } {
  const dir = join(root, `store-${++n}`);
  return { dir, env: { LRO_DIR: dir } };
}

/** Offloads input with --force and extra args; returns the descriptor. */
async function offload(env: Record<string, string>, input: string, args: string[] = []) {
  const r = await lroHere(['offload', '--force', ...args], { input, env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.out) as { id: string; file_path: string; expires_at: string };
}

/** Writes a result straight into a store, created `ageMs` ago with `ttlMs` to live: the real format, a new id. */
function plant(dir: string, ageMs: number, ttlMs: number, extra: Record<string, unknown> = {}): { id: string; path: string } {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const text = readFileSync(template);
  const nl = text.indexOf(0x0a);
  const t = Date.now() - ageMs;
  const id = ulid(t);
  const h = { ...JSON.parse(text.subarray(0, nl).toString()), id, timestamp: new Date(t).toISOString(), ttl_seconds: Math.round(ttlMs / 1000), expires_at: new Date(t + ttlMs).toISOString(), ...extra };
  const path = join(dir, `lro-planted-${id}.jsonl`);
  writeFileSync(path, Buffer.concat([Buffer.from(JSON.stringify(h)), text.subarray(nl)]), { mode: 0o600 });
  return { id, path };
}

function ageFile(path: string, ms: number): void {
  const t = (Date.now() - ms) / 1000;
  utimesSync(path, t, t);
}

interface Report {
  dry_run: boolean;
  removed_count: number;
  freed_bytes: number;
  kept_count: number;
  kept_temp_count: number;
  files: { name: string; path: string; kind: string; id: string | null; reason: string; bytes: number }[];
  skipped: { name: string; reason: string }[];
}

async function gcJson(env: Record<string, string>, args: string[] = []): Promise<Report> {
  const r = await lro(['gc', '--json', ...args], { env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.out) as Report;
}

describe('lro ls', () => {
  it('prints nothing useful but says so for a missing or empty store, exit 0', async () => {
    const { dir, env } = freshStore();
    const r = await lro(['ls'], { env });
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
    expect(r.stderr).toContain('does not exist');
    const j = await lro(['ls', '--json'], { env });
    expect(JSON.parse(j.out)).toEqual([]);
    mkdirSync(dir, { mode: 0o700 });
    const empty = await lro(['ls'], { env });
    expect(empty.code).toBe(0);
    expect(empty.stderr).toContain('no results');
  });

  it('lists newest first, tab-separated in a pipe, with --json fields and filters', async () => {
    const { dir, env } = freshStore();
    const a = await offload(env, 'a\n'.repeat(100), ['--session', 'alpha', '--operation', 'Kubectl Get']);
    const b = await offload(env, 'b\n'.repeat(200), ['--session', 'beta', '--ttl', '1h']);
    const c = await offload(env, 'c\n'.repeat(300));
    const r = await lro(['ls'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const rows = r.out.trimEnd().split('\n').map((l) => l.split('\t'));
    expect(rows.map((x) => x[0])).toEqual([c.id, b.id, a.id]);
    const [id, operation, records, tokens, bytes, timestamp, expiresAt, session] = rows[2];
    expect([id, operation, records, session]).toEqual([a.id, 'kubectl-get', '100', 'alpha']);
    expect(Number(tokens)).toBeGreaterThan(0);
    expect(Number(bytes)).toBe(readFileSync(a.file_path).length);
    expect(new Date(timestamp).toISOString()).toBe(timestamp);
    expect(expiresAt).toBe(a.expires_at);
    expect(rows[0][7]).toBe('-');
    // stable in a pipe: the same output twice
    expect((await lro(['ls'], { env })).out).toBe(r.out);

    const j = await lro(['ls', '--json'], { env });
    const items = JSON.parse(j.out) as Record<string, unknown>[];
    expect(items.map((x) => x.id)).toEqual([c.id, b.id, a.id]);
    const first = items[2];
    // line 1 without the descriptor's statistics and the block hashes
    const { stats, blocks, ...onDisk } = JSON.parse(readFileSync(a.file_path, 'utf8').split('\n')[0]) as Record<string, unknown>;
    expect(typeof stats).toBe('string');
    expect(typeof blocks).toBe('object');
    // a result of session alpha lives in the session's folder
    expect(first).toEqual({ ...onDisk, file_path: join(dir, 'sessions', 'alpha', `lro-kubectl-get-${a.id}.jsonl`), file_size: readFileSync(a.file_path).length });
    for (const key of ['type', 'schema_version', 'operation', 'count', 'timestamp', 'estimated_tokens', 'expires_at', 'session', 'bytes', 'sha256']) {
      expect(first).toHaveProperty(key);
    }

    const ids = async (args: string[]) => (JSON.parse((await lro(['ls', '--json', ...args], { env })).out) as { id: string }[]).map((x) => x.id);
    expect(await ids(['--session', 'beta'])).toEqual([b.id]);
    expect(await ids(['--operation', 'Kubectl Get'])).toEqual([a.id]);
    expect(await ids(['--operation', 'kubectl-get', '--session', 'beta'])).toEqual([]);
    expect(await ids(['--expired'])).toEqual([]);
  });

  it('reports damaged and foreign files without crashing, and never follows a symlink', async () => {
    const { dir, env } = freshStore();
    const good = await offload(env, 'good\n'.repeat(10));
    const outside = join(root, 'outside-secret.txt');
    writeFileSync(outside, '{"type":"lro_header"}\nsecret\n');
    symlinkSync(outside, join(dir, `lro-link-${ulid()}.jsonl`));
    writeFileSync(join(dir, `lro-broken-${ulid()}.jsonl`), 'not json at all\n');
    writeFileSync(join(dir, `lro-empty-${ulid()}.jsonl`), '');
    writeFileSync(join(dir, 'notes.txt'), 'mine\n');
    const r = await lro(['ls'], { env });
    expect(r.code).toBe(0);
    expect(r.out.trimEnd().split('\n').map((l) => l.split('\t')[0])).toEqual([good.id]);
    expect(r.stderr).toMatch(/damaged result file lro-broken-\w+\.jsonl: line 1 is not a JSON header/);
    expect(r.stderr).toMatch(/damaged result file lro-empty-\w+\.jsonl: is empty/);
    expect(r.stderr).toMatch(/lro-link-\w+\.jsonl \(a symlink named like a result/);
    expect(r.stderr).toContain('notes.txt');
    expect(r.stderr).not.toContain('secret');
    const j = await lro(['ls', '--json'], { env });
    expect(j.code).toBe(0);
    expect((JSON.parse(j.out) as { id: string }[]).map((x) => x.id)).toEqual([good.id]);
  });

  it('refuses a store another user could tamper with (exit 2, one line)', async () => {
    const { dir, env } = freshStore();
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    for (const cmd of ['ls', 'gc']) {
      const r = await lro([cmd], { env });
      expect(r.code, cmd).toBe(2);
      expect(r.stderr).toMatch(/^lro: the store .* is writable by others .*: run chmod 700 /);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe('lro gc', () => {
  it('removes results once their --ttl has passed; --dry-run removes nothing', async () => {
    const { dir, env } = freshStore();
    const short = await offload(env, 'short\n'.repeat(50), ['--ttl', '1s']);
    const long = await offload(env, 'long\n'.repeat(50));
    await new Promise((r) => setTimeout(r, 1200));
    expect((JSON.parse((await lro(['ls', '--json', '--expired'], { env })).out) as { id: string }[]).map((x) => x.id)).toEqual([short.id]);

    const before = ls(dir);
    const dry = await lro(['gc', '--dry-run'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.out).toMatch(/^would remove 1 result, would free \d+(\.\d)? k?B; would keep 1 result\n$/);
    const dryJson = await gcJson(env, ['--dry-run']);
    expect(dryJson).toMatchObject({ dry_run: true, removed_count: 1, kept_count: 1 });
    expect(dryJson.files).toEqual([expect.objectContaining({ id: short.id, kind: 'result', reason: 'expired', path: short.file_path })]);
    expect(ls(dir)).toEqual(before);

    const r = await lro(['gc'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.out).toMatch(/^removed 1 result, freed \d+(\.\d)? k?B; kept 1 result\n$/);
    expect(existsSync(short.file_path)).toBe(false);
    expect((await lro(['cat', long.id], { env })).out).toBe('long\n'.repeat(50));
    const again = await gcJson(env);
    expect(again).toMatchObject({ removed_count: 0, freed_bytes: 0, kept_count: 1, files: [] });
  });

  it('--max-age removes older results; --max-total-size removes the oldest until the rest fit', async () => {
    const { dir, env } = freshStore();
    const old3 = plant(dir, 72 * HOUR, 30 * 24 * HOUR);
    const old2 = plant(dir, 48 * HOUR, 30 * 24 * HOUR);
    const old1 = plant(dir, 24 * HOUR, 30 * 24 * HOUR);
    const fresh = plant(dir, 0, 30 * 24 * HOUR);
    const size = readFileSync(fresh.path).length;

    const age = await gcJson(env, ['--max-age', '36h', '--dry-run']);
    expect(age.files.map((f) => [f.id, f.reason])).toEqual([
      [old3.id, 'max_age'],
      [old2.id, 'max_age'],
    ]);
    const total = await gcJson(env, ['--max-total-size', String(2 * size + 10)]);
    expect(total.files.map((f) => [f.id, f.reason])).toEqual([
      [old3.id, 'max_total_size'],
      [old2.id, 'max_total_size'],
    ]);
    expect(total).toMatchObject({ removed_count: 2, freed_bytes: 2 * size, kept_count: 2 });
    expect(ls(dir)).toEqual([old1.path, fresh.path].map((p) => p.slice(dir.length + 1)).sort());
    const units = await gcJson(env, ['--max-total-size', '1kB']);
    expect(units.files.map((f) => f.id)).toEqual(size > 1000 ? [old1.id, fresh.id] : [old1.id]);
  });

  it('keeps damaged, foreign and symlinked files; --max-age removes only damaged files that are evidently lro', async () => {
    const { dir, env } = freshStore();
    const keepMe = plant(dir, 0, 24 * HOUR);
    const expired = plant(dir, 2 * HOUR, HOUR);
    const outside = join(root, 'outside-target.jsonl');
    const outsideText = readFileSync(expired.path); // an expired lro result, outside the store
    writeFileSync(outside, outsideText);
    const link = join(dir, `lro-link-${ulid(Date.now() - 10 * HOUR)}.jsonl`);
    symlinkSync(outside, link);
    const lroDamaged = join(dir, `lro-cut-${ulid()}.jsonl`);
    writeFileSync(lroDamaged, '{"type":"lro_header","schema_version":"lro/1","id":"cut off her\n');
    const garbage = join(dir, `lro-garbage-${ulid()}.jsonl`);
    writeFileSync(garbage, 'someone else wrote this\n');
    const foreign = join(dir, 'my-notes.jsonl');
    writeFileSync(foreign, '{"type":"lro_header"}\n');
    for (const p of [lroDamaged, garbage, foreign, outside]) ageFile(p, 30 * 24 * HOUR);

    const r = await lro(['gc'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.out).toMatch(/^removed 1 result, /);
    expect(r.stderr).toMatch(/kept lro-cut-\w+\.jsonl: damaged: line 1 is not a JSON header/);
    expect(r.stderr).toMatch(/kept lro-garbage-\w+\.jsonl: damaged/);
    expect(r.stderr).toMatch(/kept lro-link-\w+\.jsonl: a symlink named like a result/);
    expect(existsSync(expired.path)).toBe(false);

    const aged = await gcJson(env, ['--max-age', '1d']);
    expect(aged.files.map((f) => [f.name, f.kind, f.reason])).toEqual([[lroDamaged.slice(dir.length + 1), 'damaged', 'damaged_max_age']]);
    expect(aged.skipped.map((s) => s.name).sort()).toEqual([garbage, link].map((p) => p.slice(dir.length + 1)).sort());
    expect(ls(dir)).toEqual([keepMe.path, link, garbage, foreign].map((p) => p.slice(dir.length + 1)).sort());
    expect(readFileSync(outside).equals(outsideText)).toBe(true);
    expect(readFileSync(link).equals(outsideText)).toBe(true); // the symlink is still there, still pointing out
  });

  it('removes a temporary file whose writer is gone (at once, however young), keeps one its writer runs or holds open, and says so', async () => {
    const { dir, env } = freshStore();
    mkdirSync(dir, { mode: 0o700 });
    const id = ulid();
    const stale = join(dir, `.lro-${id}-write-99999999-0.tmp`); // no process has that pid
    const fresh = join(dir, `.lro-${id}-write-99999999-1.tmp`); // young, but its writer is gone: removed at once
    const young = join(dir, `.lro-${id}-write-${process.pid}-4.tmp`); // young, its writer runs: kept
    const justNow = join(dir, `.lro-${id}-write-99999999-5.tmp`); // a pid not seen here, touched a minute ago: kept
    const held = join(dir, `.lro-${id}-write-${process.pid}-2.tmp`); // open in this test runner: its writer
    // this test runner's pid, alive, but the file is not open in it: the pid was reused after its writer died
    const reused = join(dir, `.lro-${id}-write-${process.pid}-3.tmp`);
    const loose = join(dir, '.lro-leftover.tmp'); // named like a temporary file, but not as lro names them: kept
    for (const p of [stale, fresh, young, justNow, held, reused, loose]) writeFileSync(p, 'partial');
    const fd = openSync(held, 'r');
    try {
      for (const p of [stale, held, reused, loose]) ageFile(p, 2 * HOUR);
      ageFile(fresh, 50 * 60_000);
      ageFile(young, 50 * 60_000);
      ageFile(justNow, 60_000);
      const report = await gcJson(env);
      const name = (p: string) => p.slice(dir.length + 1);
      expect(report.files.map((f) => [f.name, f.kind, f.reason]).sort()).toEqual(
        [
          [name(fresh), 'temp', 'stale_temp'],
          [name(reused), 'temp', 'stale_temp'],
          [name(stale), 'temp', 'stale_temp'],
        ].sort(),
      );
      expect(existsSync(fresh)).toBe(false);
      expect(existsSync(young)).toBe(true);
      expect(existsSync(justNow)).toBe(true);
      expect(existsSync(held)).toBe(true);
      expect(existsSync(loose)).toBe(true);
      expect(report.kept_temp_count).toBe(3);
      expect(report.skipped).toContainEqual({ name: name(held), reason: `untouched for 2h but still being written by process ${process.pid}` });
      const human = await lro(['gc'], { env });
      expect(human.out).toBe('removed 0 results, freed 0 B; kept 0 results and 3 temporary files being written\n');
      expect(human.stderr).toBe(`lro: kept ${name(held)}: untouched for 2h but still being written by process ${process.pid}\n`);
    } finally {
      closeSync(fd);
    }
  });

  it('on a store it cannot write, reports the results it had to keep as kept (exit 2, the store named)', async () => {
    const parent = tempDir();
    chmodSync(parent, 0o755);
    const dir = join(parent, 'ro');
    plant(dir, 2 * HOUR, HOUR); // expired
    plant(dir, 0, HOUR);
    const asRoot = process.getuid!() === 0;
    if (asRoot) chownSync(dir, 65534, 65534);
    for (const f of ls(dir)) if (asRoot) chownSync(join(dir, f), 65534, 65534);
    chmodSync(dir, 0o555);
    try {
      const opts = { env: { LRO_DIR: dir, HOME: '/tmp' }, ...(asRoot ? { uid: 65534, gid: 65534 } : {}) };
      const r = await lro(['gc', '--json'], opts);
      expect(r.code).toBe(2);
      const report = JSON.parse(r.out) as Report;
      expect(report).toMatchObject({ removed_count: 0, kept_count: 2, files: [] });
      expect(r.stderr).toMatch(new RegExp(`could not remove 1 file \\(lro-planted-\\w+\\.jsonl: EACCES\\): check the permissions of ${dir}\\n$`));
      const human = await lro(['gc'], opts);
      expect(human.out).toBe('removed 0 results, freed 0 B; kept 2 results\n');
      expect(ls(dir)).toHaveLength(2);
    } finally {
      chmodSync(dir, 0o700);
      cleanup(parent);
    }
  });

  it('refuses a symlinked store and bad options with exit 2; a missing store is nothing to do', async () => {
    const { dir, env } = freshStore();
    const real = join(root, 'real-store');
    mkdirSync(real, { mode: 0o700 });
    plant(real, 2 * HOUR, HOUR);
    symlinkSync(real, dir);
    const r = await lro(['gc'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^lro: the store .* is a symlink/);
    expect(ls(real)).toHaveLength(1);
    for (const args of [['--max-age', 'forever'], ['--max-total-size', '5 parsecs'], ['--bogus']]) {
      const bad = await lro(['gc', ...args], { env: { LRO_DIR: real } });
      expect(bad.code, args.join(' ')).toBe(2);
      expect(bad.stderr).toMatch(/^lro: .+: .+\n$/);
    }
    const missing = await lro(['gc', '--dir', join(root, 'no-such-store')]);
    expect(missing.code).toBe(0);
    expect(missing.out).toMatch(/^removed nothing: there is no store at /);
    expect(JSON.parse((await lro(['gc', '--json', '--dir', join(root, 'no-such-store')])).out)).toMatchObject({ removed_count: 0, files: [] });
  });

  it('in a directory full of other files, removes nothing that is not lro’s own', async () => {
    const dir = join(root, 'home-like');
    mkdirSync(join(dir, 'sub'), { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    const names = ['.bashrc', 'notes.txt', 'lro-notes.jsonl', `lro-x-${ulid()}.json`, `lro-mine-${ulid()}.jsonl`, '.lro.tmp', 'sub'];
    for (const name of names.slice(0, -1)) writeFileSync(join(dir, name), 'user data\n');
    for (const name of names) ageFile(join(dir, name), 400 * 24 * HOUR);
    const r = await lro(['gc', '--dir', dir, '--max-age', '0s', '--max-total-size', '0']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.out).toMatch(/^removed 0 results, freed 0 B/);
    expect(ls(dir)).toEqual([...names].sort());
  });

  it('survives 5 gc runs racing each other and 20 offloads: each file removed once, every offload readable', { tags: ['soak'] }, async () => {
    const { dir, env } = freshStore();
    const expired = Array.from({ length: 150 }, () => plant(dir, 3 * HOUR, HOUR));
    const stale = Array.from({ length: 10 }, (_, i) => {
      const p = join(dir, `.lro-${ulid()}-write-99999999-${i}.tmp`);
      writeFileSync(p, 'left by a killed writer');
      ageFile(p, 2 * HOUR);
      return p;
    });
    const inputs = Array.from({ length: 20 }, (_, i) => `offload ${i}: ${'payload '.repeat(200 + i)}\n`.repeat(20));
    let offloadsDone = false;
    const gcRuns: { code: number | null; out: string; stderr: string }[] = [];
    const loop = async () => {
      do {
        gcRuns.push(await lro(['gc', '--json'], { env }));
        await new Promise((r) => setTimeout(r, 50)); // the machine is shared: leave the offloads some room
      } while (!offloadsDone);
    };
    const gcs = Array.from({ length: 5 }, loop);
    const offloads = await Promise.all(inputs.map((input) => lro(['offload', '--force'], { input, env })));
    offloadsDone = true;
    await Promise.all(gcs);

    for (const g of gcRuns) expect(g.code, g.stderr).toBe(0);
    const removed = gcRuns.flatMap((g) => (JSON.parse(g.out) as Report).files.map((f) => f.name));
    // every expired result and stale temporary file removed exactly once, and nothing else
    expect(removed.sort()).toEqual([...expired.map((e) => e.path), ...stale].map((p) => p.slice(dir.length + 1)).sort());
    const ok = offloads.filter((o) => o.code === 0 && JSON.parse(o.out).offloaded === true);
    expect(ok).toHaveLength(20);
    for (const [i, o] of offloads.entries()) {
      const back = await lro(['cat', JSON.parse(o.out).id], { env });
      expect(back.code, back.stderr).toBe(0);
      expect(back.out).toBe(inputs[i]);
    }
    expect(ls(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('loads neither the tokenizer nor the jq engine', async () => {
    const { dir, env } = freshStore();
    plant(dir, 0, HOUR);
    const hook = join(root, 'trace-loads.cjs');
    writeFileSync(
      hook,
      `const fs = require('node:fs'); const seen = [];
for (const fn of ['readFileSync', 'openSync']) { const orig = fs[fn]; fs[fn] = function (p, ...a) { if (/ranks|jq/.test(String(p))) seen.push(String(p)); return orig.call(this, p, ...a); }; }
require('node:module').syncBuiltinESMExports();
process.on('exit', () => { if (seen.length) process.stderr.write('LOADED ' + seen.join(' ') + '\\n'); });`,
    );
    for (const args of [['ls'], ['ls', '--json'], ['gc', '--dry-run']]) {
      const r = await lro(args, { env: { ...env, NODE_OPTIONS: `--require ${hook}` } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('LOADED');
    }
    // the hook works: info needs the tokenizer
    const info = await lro(['info', 'last'], { env: { ...env, NODE_OPTIONS: `--require ${hook}` } });
    expect(info.stderr).toContain('LOADED');
  });
});
