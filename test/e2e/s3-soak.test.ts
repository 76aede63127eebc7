// End-to-end, soak: an S3 store (s3rver on loopback) with more results than one page of a listing holds, listed,
// read and tidied whole; and a server that accepts connections but never answers, which a reader gives up on in
// bounded time.
// @module-tag soak: every test here is part of `npm run test:soak`, not of `npm test` (vitest.config.ts)
import { join } from 'node:path';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { startS3, type S3TestServer } from '../helpers/s3-server.js';

const COUNT = Number(process.env.LRO_S3_SOAK_RESULTS ?? 2500);
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

let s3: S3TestServer;
let root: string;
beforeAll(async () => {
  s3 = await startS3();
  root = tempDir('lro-s3-soak-');
});
afterAll(async () => {
  await s3?.close();
  cleanup(root);
});

/** COUNT copies of one real result put straight into the bucket, each with an id of its own (in name and header). */
async function fill(prefix: string): Promise<string[]> {
  const local = join(root, 'local');
  const r = await lro(['offload', '--force'], { input: 'one line\n'.repeat(2000), env: { LRO_DIR: local } });
  const id = (JSON.parse(r.out) as { id: string }).id;
  const body = readFileSync(join(local, readdirSync(local).find((n) => n.endsWith('.jsonl'))!), 'utf8');
  const digits = (i: number) => Array.from({ length: 10 }, (_, k) => CROCKFORD[Math.floor(i / 32 ** (9 - k)) % 32]).join('');
  const ids = Array.from({ length: COUNT }, (_, i) => id.slice(0, 16) + digits(i));
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  const client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
  let next = 0;
  const lane = async () => {
    while (next < ids.length) {
      const x = ids[next++];
      const put = { Bucket: 'team', Key: `${prefix}/lro-offload-${x}.jsonl`, Body: body.split(id).join(x) };
      await client.send(new PutObjectCommand(put));
    }
  };
  await Promise.all(Array.from({ length: 16 }, lane));
  client.destroy();
  return ids;
}

/** How long the server itself takes to list a prefix whole (pages of 1,000), beside lro's own ls. */
async function rawListMs(prefix: string): Promise<number> {
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  const client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
  const t0 = Date.now();
  let token: string | undefined;
  do {
    const ask = { Bucket: 'team', Prefix: `${prefix}/`, ContinuationToken: token };
    const page = await client.send(new ListObjectsV2Command(ask));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  client.destroy();
  return Date.now() - t0;
}

describe('an S3 store of more than one listing page', () => {
  it('lists, reads and tidies every result', async () => {
    const ids = await fill('many');
    const env = s3.env('many');
    console.log(`s3rver's own listing of ${COUNT} keys: ${await rawListMs('many')} ms`);
    let t0 = Date.now();
    const page = await lro(['ls'], { env }); // what an agent runs: one page, so only its rows' headers fetched
    console.log(`lro ls of ${COUNT} results, cold, one page: ${Date.now() - t0} ms`);
    expect(page.out).toMatch(new RegExp(`listed results 1-\\d+ of ${COUNT.toLocaleString('en-US')}`));
    t0 = Date.now();
    const first = await lro(['ls', '--max-tokens', '0'], { env });
    console.log(`lro ls of ${COUNT} results: ${Date.now() - t0} ms, header files fetched`);
    expect(first.code, first.stderr).toBe(0);
    expect(first.out.trim().split('\n')).toHaveLength(COUNT);
    t0 = Date.now();
    const again = await lro(['ls', '--max-tokens', '0'], { env });
    console.log(`lro ls of ${COUNT} results: ${Date.now() - t0} ms, header files cached`);
    expect(again.out).toBe(first.out);
    t0 = Date.now();
    expect((await lro(['ls'], { env })).out).toBe(page.out);
    console.log(`lro ls of ${COUNT} results, warm, one page: ${Date.now() - t0} ms`);
    expect((await lro(['grep', '-c', ids[0], 'one'], { env })).out).toBe('2000\n');
    t0 = Date.now();
    const seen = s3.seen.length;
    const gc = await lro(['gc', '--max-age', '0s'], { env, timeout: 600_000 }); // 1,000 keys per DeleteObjects
    const deletes = s3.seen.slice(seen).filter((l) => l.startsWith('DELETE') || /^POST .*[?&]delete/.test(l));
    console.log(`lro gc of ${COUNT} results: ${Date.now() - t0} ms, ${deletes.length} delete requests`);
    expect(deletes.length).toBe(Math.ceil(COUNT / 1000));
    expect(gc.code, gc.stderr).toBe(0);
    expect(gc.out).toMatch(new RegExp(`^removed ${COUNT.toLocaleString('en-US')} results`));
    expect(await s3.keys('many')).toEqual([]);
  });
});

describe('a server that never answers', () => {
  it('a reader gives up with one line and exit 2 within 15 s', async () => {
    const env = s3.env('hang');
    s3.fault = 'hang';
    const t0 = Date.now();
    const r = await lro(['read', 'last'], { env });
    s3.fault = 'none';
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^lro: the S3 endpoint http:\S+ did not answer (in time|within \d+ s)/);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});
