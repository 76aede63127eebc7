// End-to-end: stores per session. `--session S` / $LRO_SESSION put results in `<store>/sessions/<S>/`; ls, gc,
// the readers and completion see the whole tree; `gc --session S` removes a session at once; hostile names and
// unsafe folders are refused with one line.
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';

const root = tempDir('lro-sessions-');
afterAll(() => cleanup(root));
let n = 0;

function freshStore(): { dir: string; env: Record<string, string> } {
  const dir = join(root, `store-${++n}`);
  return { dir, env: { LRO_DIR: dir } };
}

async function offload(env: Record<string, string>, input: string, args: string[] = []): Promise<{ id: string; file_path: string }> {
  const r = await lroHere(['offload', '--force', ...args], { input, env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.out) as { id: string; file_path: string };
}

const mode = (p: string) => statSync(p).mode & 0o777;

describe('results of a session live in its folder', () => {
  it('--session and LRO_SESSION write to sessions/<S>/, every level mode 0700; readers find the ids', async () => {
    const { dir, env } = freshStore();
    const a = await offload(env, 'alpha output\n', ['--session', 'build-42']);
    const b = await offload({ ...env, LRO_SESSION: 'build-42' }, 'beta output\n');
    const c = await offload({ ...env, LRO_SESSION: '' }, 'no session\n');
    expect(a.file_path).toBe(join(dir, 'sessions', 'build-42', `lro-offload-${a.id}.jsonl`));
    expect(b.file_path).toBe(join(dir, 'sessions', 'build-42', `lro-offload-${b.id}.jsonl`));
    expect(c.file_path).toBe(join(dir, `lro-offload-${c.id}.jsonl`));
    for (const p of [dir, join(dir, 'sessions'), join(dir, 'sessions', 'build-42')]) expect(mode(p)).toBe(0o700);
    expect((await lro(['info', a.id, '--header'], { env })).out).toContain('"session":"build-42"');
    expect((await lro(['cat', a.id], { env })).out).toBe('alpha output\n');
    expect((await lro(['grep', b.id, 'beta'], { env })).out).toBe('1:beta output\n');
    // last: the newest anywhere, or the newest of $LRO_SESSION
    expect((await lro(['cat', 'last'], { env })).out).toBe('no session\n');
    expect((await lro(['cat', 'last'], { env: { ...env, LRO_SESSION: 'build-42' } })).out).toBe('beta output\n');
    const none = await lro(['cat', 'last'], { env: { ...env, LRO_SESSION: 'other' } });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^lro: no results of session "other" in .*: offload something in it first, or unset LRO_SESSION\n$/);
    // completion lists ids from every folder
    const ids = (await lro(['__complete-ids'], { env })).out.split('\n').filter(Boolean).map((l) => l.split('\t')[0]);
    expect(ids).toEqual(['last', c.id, b.id, a.id]);
  });

  it('ls sees the whole tree; --session filters; --sessions lists counts, sizes and the newest result', async () => {
    const { dir, env } = freshStore();
    const a1 = await offload(env, 'one\n', ['--session', 'alpha']);
    const a2 = await offload(env, 'two\n', ['--session', 'alpha']);
    const b1 = await offload(env, 'three\n', ['--session', 'beta gamma']);
    const r1 = await offload(env, 'four\n');
    const rows = (await lro(['ls'], { env })).out.trim().split('\n').map((l) => l.split('\t'));
    expect(rows.map((r) => [r[0], r[7]])).toEqual([
      [r1.id, '-'],
      [b1.id, 'beta gamma'],
      [a2.id, 'alpha'],
      [a1.id, 'alpha'],
    ]);
    expect((await lro(['ls', '--session', 'alpha'], { env })).out.split('\n').filter(Boolean).map((l) => l.split('\t')[0])).toEqual([a2.id, a1.id]);
    const size = (p: string) => statSync(p).size;
    const tsv = (await lro(['ls', '--sessions'], { env })).out.trim().split('\n').map((l) => l.split('\t'));
    expect(tsv.map((r) => r.slice(0, 4))).toEqual([
      ['-', '1', String(size(r1.file_path)), r1.id],
      ['beta gamma', '1', String(size(b1.file_path)), b1.id],
      ['alpha', '2', String(size(a1.file_path) + size(a2.file_path)), a2.id],
    ]);
    const json = JSON.parse((await lro(['ls', '--sessions', '--json'], { env })).out) as { session: string | null; results: number; newest_id: string; newest_at: string }[];
    expect(json.map((s) => [s.session, s.results, s.newest_id])).toEqual([
      [null, 1, r1.id],
      ['beta gamma', 1, b1.id],
      ['alpha', 2, a2.id],
    ]);
    expect(new Date(json[2].newest_at).toISOString()).toBe(json[2].newest_at);
    expect(existsSync(join(dir, 'sessions', 'beta gamma'))).toBe(true);
  });

  it('gc --session removes that session at once, expired or not, and its folder; other sessions stay', async () => {
    const { dir, env } = freshStore();
    await offload(env, 'one\n', ['--session', 'doomed']);
    await offload(env, 'two\n', ['--session', 'doomed', '--ttl', '7d']);
    const kept = await offload(env, 'three\n', ['--session', 'kept']);
    const rootResult = await offload(env, 'four\n');
    const dry = JSON.parse((await lro(['gc', '--session', 'doomed', '--dry-run', '--json'], { env })).out) as { removed_count: number };
    expect(dry.removed_count).toBe(2);
    expect(readdirSync(join(dir, 'sessions', 'doomed')).filter((f) => f.endsWith('.jsonl'))).toHaveLength(2);
    const r = await lro(['gc', '--session', 'doomed', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.out) as { removed_count: number; files: { reason: string }[]; session_removed: boolean; refs_removed: number };
    expect(report.removed_count).toBe(2);
    expect(report.files.map((f) => f.reason)).toEqual(['session', 'session']);
    expect(report.session_removed).toBe(true);
    expect(report.refs_removed).toBe(2);
    expect(existsSync(join(dir, 'sessions', 'doomed'))).toBe(false);
    expect((await lro(['ls'], { env })).out.split('\n').filter(Boolean).map((l) => l.split('\t')[0])).toEqual([rootResult.id, kept.id]);
    // an unknown session is nothing to do
    expect((await lro(['gc', '--session', 'never'], { env })).out).toBe('removed 0 results, freed 0 B; kept 0 results\n');
  });
});

describe('a session name with /', () => {
  it('is what an agent writes first (feature/login): one folder, %2F in its name; ls, last, gc and info read it back', async () => {
    const { dir, env } = freshStore();
    const a = await offload({ ...env, LRO_SESSION: 'feature/login' }, 'login output\n');
    const b = await offload(env, 'percent output\n', ['--session', '100%/x']);
    expect(a.file_path).toBe(join(dir, 'sessions', 'feature%2Flogin', `lro-offload-${a.id}.jsonl`));
    expect(b.file_path).toBe(join(dir, 'sessions', '100%25%2Fx', `lro-offload-${b.id}.jsonl`));
    expect(readdirSync(join(dir, 'sessions')).sort()).toEqual(['100%25%2Fx', 'feature%2Flogin']);
    const info = JSON.parse((await lro(['info', a.id], { env })).out) as { summary: { session: string } };
    expect(info.summary.session).toBe('feature/login');
    const sessions = (await lro(['ls', '--sessions'], { env })).out.trim().split('\n').map((l) => l.split('\t')[0]);
    expect(sessions).toEqual(['100%/x', 'feature/login']);
    expect((await lro(['ls', '--session', 'feature/login'], { env })).out.split('\t')[0]).toBe(a.id);
    expect((await lro(['cat', 'last'], { env: { ...env, LRO_SESSION: 'feature/login' } })).out).toBe('login output\n');
    const g = JSON.parse((await lro(['gc', '--session', 'feature/login', '--json'], { env })).out) as Record<string, unknown>;
    expect(g).toMatchObject({ removed_count: 1, session_removed: true });
    expect(readdirSync(join(dir, 'sessions'))).toEqual(['100%25%2Fx']);
  });
});

describe('hostile session names', () => {
  const hostile = ['../escape', 'a/../b', '..', '.', 'x..y', '', 'x'.repeat(129), '/'.repeat(86), 'line\nbreak', 'esc\u001b[31mred', 'back\\slash', 'del\u007f'];

  it('are refused with one line and exit 2 by offload, run, ls and gc; nothing is created', { tags: ['soak'] }, async () => {
    const { dir, env } = freshStore();
    for (const name of hostile) {
      for (const args of [['offload', '--session', name], ['run', '--session', name, '--', 'true'], ['ls', '--session', name], ['gc', '--session', name]]) {
        const r = await lro(args, { input: 'x\n', env });
        expect(r.code, `${args.join(' ')}`).toBe(2);
        expect(r.stderr).toMatch(/^lro: invalid --session "[^\n]*": [^\n]+\n$/);
        expect(r.stdout.length).toBe(0);
      }
      // from the environment (which the caller cannot see): the output passes through, with the warning
      const e = await lro(['offload'], { input: 'x\n', env: { ...env, LRO_SESSION: name } });
      expect(e.code).toBe(0);
      expect(e.out).toBe('x\n');
      if (name !== '') expect(e.stderr).toMatch(/^lro: invalid LRO_SESSION "[^\n]*": [^\n]*, or unset LRO_SESSION /);
    }
    expect(existsSync(join(dir, 'sessions'))).toBe(false);
    expect(existsSync(join(root, 'escape'))).toBe(false);
  });

  it('odd but harmless names work end to end', { tags: ['soak'] }, async () => {
    const { dir, env } = freshStore();
    for (const name of ['with space', 'ünïcødé-😀', '*', '[x]', '-rf', '.hidden', 'x'.repeat(128), '$(touch pwned)', 'a/b', '/', '%2F', '/'.repeat(85)]) {
      const r = await offload(env, `output of ${name}\n`, ['--session', name]);
      const folder = name.replace(/%/g, '%25').replace(/\//g, '%2F');
      expect(r.file_path).toBe(join(dir, 'sessions', folder, `lro-offload-${r.id}.jsonl`));
      expect((await lro(['cat', r.id], { env })).out).toBe(`output of ${name}\n`);
      expect((await lro(['cat', 'last'], { env: { ...env, LRO_SESSION: name } })).out).toBe(`output of ${name}\n`);
      const g = await lro(['gc', '--session', name, '--json'], { env });
      expect(JSON.parse(g.out)).toMatchObject({ removed_count: 1, session_removed: true });
    }
    expect(readdirSync(join(dir, 'sessions'))).toEqual([]);
    expect(existsSync(join(dir, 'pwned'))).toBe(false);
  });
});

describe('the store checks apply at every level', () => {
  it('a sessions/ folder that is a symlink is never written through, listed or cleaned', async () => {
    const { dir, env } = freshStore();
    await offload(env, 'root result\n');
    const elsewhere = join(root, `elsewhere-${n}`);
    mkdirSync(join(elsewhere, 'victim'), { recursive: true, mode: 0o700 });
    writeFileSync(join(elsewhere, 'victim', 'lro-offload-01M8165DT1CVS5F6496PDNJ3DY.jsonl'), 'not yours\n');
    symlinkSync(elsewhere, join(dir, 'sessions'));
    const w = await lro(['offload', '--force', '--session', 'victim'], { input: 'secret\n', env });
    expect(w.code).toBe(0); // offloading is an optimisation: the output still arrives, with a warning
    expect(w.out).toMatch(/^secret\n\[lro: output truncated .*sessions is a symlink/);
    const l = await lro(['ls'], { env });
    expect(l.out.split('\n').filter(Boolean)).toHaveLength(1);
    expect(l.stderr).toMatch(/sessions \(folder of sessions is a symlink/);
    await lro(['gc', '--max-age', '0s'], { env });
    expect(readdirSync(join(elsewhere, 'victim'))).toEqual(['lro-offload-01M8165DT1CVS5F6496PDNJ3DY.jsonl']);
  });

  it('a session folder others can write, or a symlinked one, is refused for writing and skipped by ls and gc', async () => {
    const { dir, env } = freshStore();
    const open = await offload(env, 'in the open session\n', ['--session', 'open']);
    chmodSync(join(dir, 'sessions', 'open'), 0o777);
    const w = await lro(['offload', '--force', '--session', 'open'], { input: 'more\n', env });
    expect(w.out).toMatch(/sessions\/open is writable by others \(mode 777\)/);
    const l = await lro(['ls'], { env });
    expect(l.out).toBe('');
    expect(l.stderr).toMatch(/sessions\/open \(session folder is writable by others/);
    const g = await lro(['gc', '--session', 'open', '--json'], { env });
    expect(JSON.parse(g.out)).toMatchObject({ removed_count: 0 });
    expect(existsSync(open.file_path)).toBe(true);
    const target = join(root, `target-${n}`);
    mkdirSync(target, { mode: 0o700 });
    symlinkSync(target, join(dir, 'sessions', 'linked'));
    const s = await lro(['offload', '--force', '--session', 'linked'], { input: 'x\n', env });
    expect(s.out).toMatch(/sessions\/linked is a symlink/);
    expect(readdirSync(target)).toEqual([]);
  });
});
