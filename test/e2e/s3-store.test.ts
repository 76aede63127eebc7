// End-to-end: a store on S3 (`LRO_DIR=s3://bucket/prefix`) against a real S3 API server on loopback (s3rver, see
// helpers/s3-server.ts). Every reader answers as it does on a local store, the objects really are in the bucket,
// another machine (another cache) reads them, ls and gc list and tidy the bucket, and the faults a network store
// has end in one line and a bounded time.
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { startS3, type S3TestServer } from '../helpers/s3-server.js';

let s3: S3TestServer;
let root: string;
let prefixes = 0;
beforeAll(async () => {
  s3 = await startS3();
  root = tempDir('lro-s3-e2e-');
});
afterAll(async () => {
  await s3?.close();
  cleanup(root);
});

/** A fresh prefix of the bucket and the env of one "machine" (its own cache) using it. */
function remote(): { prefix: string; env: Record<string, string> } {
  const prefix = `p${++prefixes}`;
  return { prefix, env: s3.env(prefix) };
}

const idOf = (out: string) => (JSON.parse(out) as { id: string }).id;

const text = Array.from({ length: 3000 }, (_, i) => `${i} INFO request ${i} served in ${i % 97} ms${i % 400 === 3 ? ' ERROR timeout' : ''}`).join('\n');
const jsonl = Array.from({ length: 1500 }, (_, i) => JSON.stringify({ id: i, status: i % 7 === 0 ? 'error' : 'ok', ms: (i * 37) % 1000 })).join('\n');
const jsonArray = JSON.stringify(Array.from({ length: 1500 }, (_, i) => ({ n: i, name: `item ${i}`, tags: i % 5 === 0 ? ['x'] : [] })));

async function offload(input: string, env: Record<string, string>, extra: string[] = []): Promise<string> {
  const r = await lro(['offload', '--force', ...extra], { input, env });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toBe('');
  return idOf(r.out);
}

describe('LRO_DIR=s3://bucket/prefix', () => {
  it('stores the result as an object of the bucket, and no local folder named s3:', async () => {
    const { prefix, env } = remote();
    const cwd = join(root, 'cwd');
    mkdirSync(cwd);
    const r = await lro(['offload', '--force'], { input: text, env, shellPrefix: `cd ${cwd};` });
    expect(r.code, r.stderr).toBe(0);
    const id = idOf(r.out);
    expect(await s3.keys(prefix)).toEqual([`${prefix}/lro-offload-${id}.jsonl`]);
    expect(existsSync(join(cwd, 's3:'))).toBe(false);
  });

  it('answers readers as a local store does (JSONL here; every reader on text, a JSON array and JSONL: s3-parity)', async () => {
    const local = { LRO_DIR: join(root, 'local') };
    const { env } = remote();
    const other = { ...env, XDG_CACHE_HOME: join(root, 'other-machine') }; // reads what the first machine wrote
    const cases: [string, string[][]][] = [[jsonl, [['where', 'status=error', '-c'], ['grep', '-c', 'error'], ['info']]]];
    // the same but for the id, the file's path and the times
    const same = (s: string, id: string) =>
      s.split(id).join('ID').replace(/[^\s"]*\/lro-offload-ID\.jsonl/g, 'PATH').replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME');
    for (const [input, commands] of cases) {
      const first = await lro(['offload', '--force'], { input, env: local });
      const second = await lro(['offload', '--force'], { input, env });
      expect(second.stderr).toBe('');
      const [a, b] = [idOf(first.out), idOf(second.out)];
      expect(same(second.out, b)).toBe(same(first.out, a));
      expect(same(second.out, b)).toContain('PATH');
      await Promise.all(
        commands.map(async (args) => {
          const want = await lro([args[0], a, ...args.slice(1)], { env: local });
          const got = await lro([args[0], b, ...args.slice(1)], { env: other });
          expect(got.code, `${args.join(' ')}: ${got.stderr}`).toBe(want.code);
          expect(got.stderr, args.join(' ')).toBe(want.stderr);
          expect(same(got.out, b), args.join(' ')).toBe(same(want.out, a));
        }),
      );
    }
  });

  it('fetches a result once per machine and reads it from the cache after', async () => {
    const { prefix, env } = remote();
    const id = await offload(text, env);
    const reader = { ...env, XDG_CACHE_HOME: join(root, 'reader-cache') };
    const gets = () => s3.seen.filter((l) => l.startsWith('GET') && l.includes(`/${prefix}/lro-offload-${id}.jsonl`)).length;
    const before = gets();
    expect((await lro(['grep', id, '-c', 'ERROR'], { env: reader })).out).toBe('8\n');
    expect((await lro(['read', id, '--head', '1'], { env: reader })).code).toBe(0);
    expect(gets() - before).toBe(1);
    const cached = join(root, 'reader-cache', 'lro', 's3', 'team', prefix, 'files');
    expect(readdirSync(cached)).toEqual([`lro-offload-${id}.jsonl`]);
    expect(readFileSync(join(cached, `lro-offload-${id}.jsonl`), 'utf8')).toContain('"type":"lro-header"'.slice(0, 7));
  });

  it('last is the newest result of the bucket, whichever machine wrote it', async () => {
    const { env } = remote();
    await offload(text, env);
    const newer = await offload(jsonl, { ...env, XDG_CACHE_HOME: join(root, 'machine-b') });
    const r = await lro(['info', 'last'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.out).toContain(newer);
  });

  it('ls lists the bucket (written on any machine) as a local store lists its files', async () => {
    const { env } = remote();
    const a = await offload(text, env);
    const b = await offload(jsonl, { ...env, XDG_CACHE_HOME: join(root, 'machine-c') });
    const r = await lro(['ls'], { env });
    expect(r.code, r.stderr).toBe(0);
    const rows = r.out.trim().split('\n').map((l) => l.split('\t'));
    expect(rows.map((x) => x[0])).toEqual([b, a]);
    expect(rows[0][2]).toBe('1500'); // records, from the header
    const size = (await lro(['ls', '--json', '--max-tokens', '0'], { env })).out;
    const listed = JSON.parse(size) as { id: string; file_size: number }[];
    expect(listed.map((x) => x.id)).toEqual([b, a]);
    expect(listed[1].file_size).toBeGreaterThan(text.length); // the object's size, not the header's
  });

  it('gc removes expired objects from the bucket and never an object that is not lro\'s', async () => {
    const { prefix, env } = remote();
    const id = await offload(text, env);
    const client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    await client.send(new PutObjectCommand({ Bucket: 'team', Key: `${prefix}/notes.txt`, Body: 'keep me' }));
    await client.send(new PutObjectCommand({ Bucket: 'team', Key: `${prefix}/lro-offload-nope.jsonl`, Body: 'keep me too' }));
    client.destroy();
    const dry = await lro(['gc', '--max-age', '0s', '--dry-run'], { env });
    expect(dry.out).toMatch(/would remove 1 result/);
    expect(await s3.keys(prefix)).toHaveLength(3);
    const r = await lro(['gc', '--max-age', '0s'], { env: { ...env, XDG_CACHE_HOME: join(root, 'cron-machine') } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.out).toMatch(/removed 1 result/);
    expect(await s3.keys(prefix)).toEqual([`${prefix}/lro-offload-nope.jsonl`, `${prefix}/notes.txt`]);
    const gone = await lro(['read', id], { env: { ...env, XDG_CACHE_HOME: join(root, 'late-reader') } });
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain(`no result ${id} in s3://team/${prefix}`);
  });
});
