// End-to-end: same output, same answer. An output identical to a stored one (same store and session, same
// options, not expired) gets the same id and a byte-identical descriptor; concurrent identical offloads end with
// one file; --no-dedupe stores again; and the first offload's descriptor is what `lro info` prints.
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, lro, tempDir } from '../helpers/cli.js';

const root = tempDir('lro-dedupe-');
afterAll(() => cleanup(root));
let n = 0;

function freshStore(): { dir: string; env: Record<string, string> } {
  const dir = join(root, `store-${++n}`);
  return { dir, env: { LRO_DIR: dir } };
}

const results = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.jsonl'));
const idOf = (out: string) => (JSON.parse(out) as { id: string }).id;
const log = Array.from({ length: 3000 }, (_, i) => `${i} INFO request ${i} served in ${i % 97} ms${i % 400 === 3 ? ' ERROR timeout' : ''}`).join('\n');

describe('the same output twice', () => {
  it('gives the same id and a byte-identical descriptor, JSON and text, and keeps one file', async () => {
    const { dir, env } = freshStore();
    const first = await lro(['offload'], { input: log, env });
    const again = await lro(['offload'], { input: log, env });
    expect(again.code).toBe(0);
    expect(again.out).toBe(first.out);
    const text1 = await lro(['offload', '--descriptor', 'text'], { input: log, env });
    expect((await lro(['offload', '--descriptor', 'text'], { input: log, env })).out).toBe(text1.out);
    expect(text1.out).toContain(`id: ${idOf(first.out)}`);
    expect(results(dir)).toHaveLength(1);
    // nothing in it changes from run to run: no relative times, no timings
    expect(first.out).not.toMatch(/expires in|\bago\b/);
  });

  it('stores again when anything that changes the answer differs', async () => {
    const { dir, env } = freshStore();
    const base = idOf((await lro(['offload'], { input: log, env })).out);
    const variants = [['--operation', 'other'], ['--ttl', '2h'], ['--session', 's1'], ['--meta', 'k=v'], ['--query', 'q'], ['--encoding', 'cl100k_base'], ['--no-dedupe']];
    const ids = new Set([base]);
    for (const v of variants) ids.add(idOf((await lro(['offload', ...v], { input: log, env })).out));
    expect(ids.size).toBe(variants.length + 1);
    // a different byte is a different output
    ids.add(idOf((await lro(['offload'], { input: `${log}\n`, env })).out));
    expect(ids.size).toBe(variants.length + 2);
    expect(results(dir)).toHaveLength(variants.length + 1); // 9 results, one of them in the session's folder
  });

  it('lro run: the same output with another exit status is another answer', async () => {
    const { env } = freshStore();
    const cmd = (code: number) => ['run', '--', 'sh', '-c', `seq 1 4000; exit ${code}`];
    const a = await lro(cmd(0), { env });
    const b = await lro(cmd(0), { env });
    const c = await lro(cmd(1), { env });
    expect(b.out).toBe(a.out);
    expect(idOf(c.out)).not.toBe(idOf(a.out));
  });

  it('stores again once the first has expired or was removed', async () => {
    const { dir, env } = freshStore();
    const short = idOf((await lro(['offload', '--ttl', '1s'], { input: log, env })).out);
    await new Promise((r) => setTimeout(r, 1100));
    const next = idOf((await lro(['offload', '--ttl', '1s'], { input: log, env })).out);
    expect(next).not.toBe(short);
    const kept = idOf((await lro(['offload'], { input: log, env })).out);
    await lro(['gc', '--max-age', '0s'], { env });
    expect(results(dir)).toEqual([]);
    expect(readdirSync(dir).filter((f) => f.endsWith('.ref'))).toEqual([]); // gc took the refs with the results
    const fresh = await lro(['offload'], { input: log, env });
    expect(idOf(fresh.out)).not.toBe(kept);
    expect((await lro(['cat', idOf(fresh.out)], { env })).out).toBe(log);
  });
});

describe('with the store\'s secret (LRO_STORE_KEY)', () => {
  it('hands out only a result signed with the same key: one stored without it, or with another, is stored again', async () => {
    const { dir, env } = freshStore();
    const unsigned = idOf((await lro(['offload'], { input: log, env })).out);
    const keyed = { ...env, LRO_STORE_KEY: 'k'.repeat(32) };
    const signed = idOf((await lro(['offload'], { input: log, env: keyed })).out);
    expect(signed).not.toBe(unsigned);
    // the signed one is the answer from now on, with the key, and it reads with the key
    expect(idOf((await lro(['offload'], { input: log, env: keyed })).out)).toBe(signed);
    expect((await lro(['read', signed, '--head', '1'], { env: keyed })).code).toBe(0);
    const other = idOf((await lro(['offload'], { input: log, env: { ...env, LRO_STORE_KEY: 'o'.repeat(32) } })).out);
    expect([unsigned, signed]).not.toContain(other);
    expect(results(dir)).toHaveLength(3);
  });
});

describe('concurrent identical offloads', () => {
  it('end with one file, and every caller gets the same id', { tags: ['soak'] }, async () => {
    const { dir, env } = freshStore();
    const big = `${log}\n`.repeat(40); // about 2 MB: long enough for the writers to overlap
    const runs = await Promise.all(Array.from({ length: 8 }, () => lro(['offload'], { input: big, env })));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const ids = new Set(runs.map((r) => idOf(r.out)));
    expect(ids.size).toBe(1);
    expect(new Set(runs.map((r) => r.out)).size).toBe(1);
    expect(results(dir)).toHaveLength(1);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp') || f.endsWith('.claim'))).toEqual([]);
    expect((await lro(['cat', [...ids][0]], { env })).out).toBe(big);
  });

  it('100 at once, on a machine loaded by them: one file, one id', { tags: ['soak'] }, async () => {
    const { dir, env } = freshStore();
    const input = `${log}\n`.repeat(4);
    const runs = await Promise.all(Array.from({ length: 100 }, () => lro(['offload'], { input, env, timeout: 300_000 })));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    expect(new Set(runs.map((r) => idOf(r.out))).size).toBe(1);
    expect(results(dir)).toHaveLength(1);
  });

  it('a claim left by a dead writer is broken at once; gc removes an old one and keeps a live one', async () => {
    const { dir, env } = freshStore();
    const first = await lro(['offload'], { input: log, env });
    const claim = (key: string) => join(dir, `.lro-${key}.claim`);
    const ref = readdirSync(dir).find((f) => f.endsWith('.ref'))!;
    const key = ref.slice(5, -4);
    writeFileSync(claim(key), '999999999\n'); // no such process
    const again = await lro(['offload'], { input: log, env });
    expect(again.out).toBe(first.out);
    expect(existsSync(claim(key))).toBe(false);
    // gc: a claim older than an hour whose holder is gone goes; a fresh one stays (its holder is deciding)
    const old = (Date.now() - 2 * 3600_000) / 1000;
    const dead = claim('a'.repeat(64));
    const live = claim('b'.repeat(64));
    writeFileSync(dead, '999999999\n');
    writeFileSync(live, `${process.pid}\n`);
    utimesSync(dead, old, old);
    const g = JSON.parse((await lro(['gc', '--json'], { env })).out) as { files: { name: string; reason: string }[] };
    expect(g.files.map((f) => [f.name, f.reason])).toEqual([[`.lro-${'a'.repeat(64)}.claim`, 'stale_claim']]);
    expect(existsSync(live)).toBe(true);
  });
});

describe('the descriptor comes from the stored file as lro info builds it', () => {
  const CORPUS = resolve(__dirname, '../../fixtures/corpus');
  const files = ['loghub/HDFS_2k.log', 'loghub/OpenSSH_2k.log', 'json-docs/github_events.json', 'shell-output/go-test-json.out', 'binary/sherlock.gz', 'shell-output/octokit-get-repository.normalized-fixture.json'];
  /** One file of each content type in `npm test`; the soak takes the others. */
  const quick = ['loghub/OpenSSH_2k.log', 'json-docs/github_events.json', 'shell-output/go-test-json.out', 'binary/sherlock.gz'];
  for (const f of files) {
    it(`${f}: offload prints what info prints, byte for byte (JSON and text), and a repeat gets it again`, { tags: quick.includes(f) ? [] : ['soak'] }, async () => {
      const { env } = freshStore();
      const input = readFileSync(join(CORPUS, f));
      for (const form of ['json', 'text']) {
        const first = await lro(['offload', '--force', '--descriptor', form], { input, env });
        const id = form === 'json' ? idOf(first.out) : /^id: (\S+)$/m.exec(first.out)![1];
        expect((await lro(['info', id, '--descriptor', form], { env })).out).toBe(first.out);
        expect((await lro(['offload', '--force', '--descriptor', form], { input, env })).out).toBe(first.out);
      }
    });
  }
});
