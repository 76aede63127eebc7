// End-to-end: a store on S3 (`LRO_DIR=s3://bucket/prefix`) against a real S3 API server on loopback (s3rver, see
// helpers/s3-server.ts). Every reader answers as it does on a local store, the objects really are in the bucket,
// another machine (another cache) reads them, ls and gc list and tidy the bucket, and the faults a network store
// has end in one line and a bounded time.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { BIN, cleanup, lro, tempDir } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';
import { mcpEnv, stdioClient } from '../helpers/mcp.js';
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

/** A client of the test bucket, to put, get and delete objects behind lro's back. */
function bucketClient(): S3Client {
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  return new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
}

/**
 * `lro ls --json` with listings of 2 keys a page (as 1,000 keys a page are on any server: the listing follows its
 * continuation tokens): its result, and the listing requests it made.
 */
async function lsInPages(env: Record<string, string>) {
  const seen = s3.seen.length;
  s3.pageSize = 2;
  try {
    const r = await lro(['ls', '--json', '--max-tokens', '0'], { env });
    return { r, listed: s3.seen.slice(seen).filter((l) => /^GET .*[?&]list-type=2/.test(l)) };
  } finally {
    s3.pageSize = 0;
  }
}

const lines = (n: number, line: (i: number) => string) => Array.from({ length: n }, (_, i) => line(i)).join('\n');
const text = lines(3000, (i) => `${i} INFO request ${i} served in ${i % 97} ms${i % 400 === 3 ? ' ERROR' : ''}`);
const jsonl = lines(1500, (i) => JSON.stringify({ id: i, status: i % 7 ? 'ok' : 'error', ms: (i * 37) % 1000 }));
const jsonArray = JSON.stringify(
  Array.from({ length: 1500 }, (_, i) => ({ n: i, name: `item ${i}`, tags: i % 5 ? [] : ['x'] })),
);

async function offload(input: string, env: Record<string, string>, extra: string[] = []): Promise<string> {
  const r = await lroHere(['offload', '--force', ...extra], { input, env });
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
    expect((await s3.keys(prefix)).filter((k) => k.includes('/lro-'))).toEqual([`${prefix}/lro-offload-${id}.jsonl`]);
    expect(existsSync(join(cwd, 's3:'))).toBe(false);
  });

  it('answers readers as a local store does (JSONL here; every reader on every kind: s3-parity)', async () => {
    const local = { LRO_DIR: join(root, 'local') };
    const { prefix, env } = remote();
    const other = { ...env, XDG_CACHE_HOME: join(root, 'other-machine') }; // reads what the first machine wrote
    const readers = [['where', 'status=error', '-c'], ['grep', '-c', 'error'], ['info']];
    const cases: [string, string[][]][] = [[jsonl, readers]];
    // the same but for the id, the file's path and the times
    const same = (s: string, id: string) =>
      s
        .split(id)
        .join('ID')
        .replace(/aws s3 cp (\S+) - \| tail -n \+2/g, 'tail -n +2 $1') // a plain recipe reads the object
        .replace(/[^\s"]*\/lro-offload-ID\.jsonl/g, 'PATH')
        .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME');
    for (const [input, commands] of cases) {
      const first = await lro(['offload', '--force'], { input, env: local });
      const second = await lro(['offload', '--force'], { input, env });
      expect(second.stderr).toBe('');
      const [a, b] = [idOf(first.out), idOf(second.out)];
      expect(await s3.keys(prefix)).toContain(`${prefix}/lro-offload-${b}.jsonl`); // the other machine reads it there
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

  it('names a result by its object\'s s3:// URL, never by the cache\'s file, when stored and when read whole', async () => {
    const { prefix, env } = remote();
    const stored = await lro(['offload', '--force'], { input: jsonl, env });
    const id = idOf(stored.out);
    const url = `s3://team/${prefix}/lro-offload-${id}.jsonl`;
    const reader = { ...env, XDG_CACHE_HOME: join(root, `url-reader-${++prefixes}`) };
    expect((await lro(['grep', id, '-c', 'error'], { env: reader })).code).toBe(0); // now cached whole
    for (const [out, who] of [[stored.out, 'offload'], [(await lro(['info', id], { env: reader })).out, 'info']]) {
      const d = JSON.parse(out) as { file_path: string; jq_recipes: { plain: string }[] };
      expect(d.file_path, who).toBe(url);
      expect(d.jq_recipes[0].plain, who).toMatch(new RegExp(`^aws s3 cp '?${url.replace(/[.]/g, '\\.')}'? - \\| tail -n \\+2 \\| jq `));
    }
  });

  it('fetches a result once per machine and reads it from the cache after', async () => {
    const { prefix, env } = remote();
    const id = await offload(text, env);
    const reader = { ...env, XDG_CACHE_HOME: join(root, 'reader-cache') };
    const key = `/${prefix}/lro-offload-${id}.jsonl`;
    const gets = () => s3.seen.filter((l) => l.startsWith('GET') && l.includes(key)).length;
    const before = gets();
    expect((await lro(['grep', id, '-c', 'ERROR'], { env: reader })).out).toBe('8\n');
    expect((await lro(['read', id, '--head', '1'], { env: reader })).code).toBe(0);
    expect(gets() - before).toBe(1);
    const cached = join(root, 'reader-cache', 'lro', 's3', 'team', prefix, 'files');
    expect(readdirSync(cached)).toEqual([`lro-offload-${id}.jsonl`]);
    expect(readFileSync(join(cached, `lro-offload-${id}.jsonl`), 'utf8')).toContain('"type":"lro-header"'.slice(0, 7));
  });

  it('last is the newest result of the bucket, whichever machine wrote it', async () => {
    const { prefix, env } = remote();
    await offload(text, env);
    const newer = await offload(jsonl, { ...env, XDG_CACHE_HOME: join(root, 'machine-b') });
    expect(await s3.keys(prefix)).toContain(`${prefix}/lro-offload-${newer}.jsonl`);
    const r = await lro(['info', 'last'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.out).toContain(newer);
    // last~1, the one before, as lro diff last~1 last asks; past the oldest, one line
    const older = JSON.parse((await lro(['info', 'last~1'], { env })).out).id as string;
    expect(older).not.toBe(newer);
    const diff = await lro(['diff', 'last~1', 'last'], { env });
    expect([diff.code, diff.out]).toEqual([1, expect.stringContaining(`A ${older}`)]);
    const past = await lro(['info', 'last~2'], { env });
    expect([past.code, past.stderr]).toEqual([2, expect.stringMatching(/^lro: no result last~2 in s3:\/\/.*: there are fewer results/)]);
  });

  it('ls lists the bucket (written on any machine) as a local store lists its files', async () => {
    const { prefix, env } = remote();
    const a = await offload(text, env);
    const b = await offload(jsonl, { ...env, XDG_CACHE_HOME: join(root, 'machine-c') });
    const r = await lro(['ls'], { env });
    expect(r.code, r.stderr).toBe(0);
    const rows = r.out.trim().split('\n').map((l) => l.split('\t'));
    expect(rows.map((x) => x[0])).toEqual([b, a]);
    expect(rows[0][2]).toBe('1500'); // records, from the header
    const size = (await lro(['ls', '--json', '--max-tokens', '0'], { env })).out;
    const listed = JSON.parse(size) as { id: string; file_size: number; file_path: string }[];
    expect(listed.map((x) => x.id)).toEqual([b, a]);
    expect(listed[1].file_path).toBe(`s3://team/${prefix}/lro-offload-${a}.jsonl`); // not a header file's path
    expect(listed[1].file_size).toBeGreaterThan(text.length); // the object's size, not the header's
  });

  it('gc removes expired objects from the bucket and never an object that is not lro\'s', async () => {
    const { prefix, env } = remote();
    const id = await offload(text, env);
    const client = bucketClient();
    await client.send(new PutObjectCommand({ Bucket: 'team', Key: `${prefix}/notes.txt`, Body: 'keep me' }));
    const lookalike = `${prefix}/lro-offload-nope.jsonl`; // named almost as lro names results
    await client.send(new PutObjectCommand({ Bucket: 'team', Key: lookalike, Body: 'keep me too' }));
    client.destroy();
    const dry = await lro(['gc', '--max-age', '0s', '--dry-run'], { env });
    expect(dry.out).toMatch(/would remove 1 result/);
    // with the result's dedupe ref, its pointer, the mark (ids/) and its entry in the index
    expect(await s3.keys(prefix)).toHaveLength(7);
    expect(await s3.keys(prefix)).toContain(`${prefix}/index/add-${id}.jsonl`);
    const seen = s3.seen.length;
    const r = await lro(['gc', '--max-age', '0s'], { env: { ...env, XDG_CACHE_HOME: join(root, 'cron-machine') } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.out).toMatch(/removed 1 result/);
    // the ref, the pointer and the index (it held only that result) gone; the store's pointer mark stays
    expect(await s3.keys(prefix)).toEqual([`${prefix}/ids/.since`, lookalike, `${prefix}/notes.txt`]);
    // the result, its pointer and its ref in one DeleteObjects request, not one DELETE each; then the index's
    const deletes = s3.seen.slice(seen).filter((l) => l.startsWith('DELETE') || /^POST .*[?&]delete/.test(l));
    expect(deletes).toEqual([expect.stringMatching(/^POST \/team\/?\?delete/), expect.stringMatching(/^POST \/team\/?\?delete/)]);
    const json = await lro(['gc', '--json'], { env });
    expect(JSON.parse(json.out).dir).toBe(`s3://team/${prefix}`); // the store, not this machine's cache of it
    const gone = await lro(['read', id], { env: { ...env, XDG_CACHE_HOME: join(root, 'late-reader') } });
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain(`no result ${id} in s3://team/${prefix}`);
  });
});

describe('readers that need only a result\'s start', () => {
  // the same but for the id, the file's path and the times
  const same = (s: string, id: string) =>
    s
      .split(id)
      .join('ID')
      .replace(/aws s3 cp (\S+) - \| tail -n \+2/g, 'tail -n +2 $1') // a plain recipe reads the object
      .replace(/[^\s"]*\/lro-offload-ID\.jsonl/g, 'PATH')
      .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME');
  // 6 MB: the start fetched is line 1 and the first block of records (1 MB), the end at most 1.3 MB, whatever the size
  const big = lines(15_000, (i) => `${i} INFO request ${i} served in ${i % 97} ms ${'x'.repeat(360)}`);

  let stored: { prefix: string; env: Record<string, string>; id: string; lid: string };
  let local: { LRO_DIR: string };
  beforeAll(async () => {
    const { prefix, env } = remote();
    local = { LRO_DIR: join(root, 'local-big') };
    stored = { prefix, env, id: await offload(big, env), lid: await offload(big, local) };
  });

  it('info and read (--head, --tail, the budget\'s view) of a big result fetch its start or its end', async () => {
    const { prefix, env, id, lid } = stored;
    const reader = { ...env, XDG_CACHE_HOME: join(root, 'start-reader') };
    const key = `/${prefix}/lro-offload-${id}.jsonl`;
    const gets = () => s3.seen.filter((l) => l.startsWith('GET') && l.includes(key)).length;
    const starts = [['info'], ['read', '--head', '5'], ['read', '--records', '10:12'], ['info', '--header']];
    const views = [['read'], ['read', '--columns', '0:20'], ['read', '--chars', '0:3000', '--raw']];
    const ends = [['read', '--tail', '5'], ['read', '--tail', '60', '--max-tokens', '400']];
    for (const args of [...starts, ...views, ...ends]) {
      const [g, served] = [gets(), s3.served];
      const got = await lro([args[0], id, ...args.slice(1)], { env: reader });
      expect(got.code, got.stderr).toBe(0);
      const want = await lroHere([args[0], lid, ...args.slice(1)], { env: local });
      expect(same(got.out, id), args.join(' ')).toBe(same(want.out, lid));
      expect(gets() - g, args.join(' ')).toBeLessThanOrEqual(ends.includes(args) ? 2 : 1); // --tail: header, end
      expect(s3.served - served, args.join(' ')).toBeLessThan(big.length / 4);
    }
    const files = join(root, 'start-reader', 'lro', 's3', 'team', prefix, 'files');
    expect(existsSync(files) ? readdirSync(files).filter((n) => n.endsWith('.jsonl')) : []).toEqual([]);
  }, 120_000); // 18 runs of lro

  it('read of more than a big result\'s start or end holds fetches the whole, and reads as locally', async () => {
    const { env, id, lid } = stored;
    for (const args of [['read', '--max-tokens', '0'], ['read', '--tail', '5000'], ['read', '--chars', '0:2000000']]) {
      const served = s3.served;
      const fresh = { ...env, XDG_CACHE_HOME: join(root, `whole-${++prefixes}`) };
      const got = await lro([args[0], id, ...args.slice(1)], { env: fresh });
      expect(got.code, got.stderr).toBe(0);
      const want = await lroHere([args[0], lid, ...args.slice(1)], { env: local });
      expect(same(got.out, id), args.join(' ')).toBe(same(want.out, lid));
      expect(s3.served - served, args.join(' ')).toBeGreaterThan(big.length);
    }
  }, 180_000); // 6 reads of 6 MB

  it('grep of a result whose start is kept fetches the whole into the cache', async () => {
    const { prefix, env, id } = stored;
    const reader = { ...env, XDG_CACHE_HOME: join(root, 'start-reader') };
    const files = join(root, 'start-reader', 'lro', 's3', 'team', prefix, 'files');
    const served = s3.served;
    expect((await lro(['grep', '-c', id, 'request 599'], { env: reader })).out).toBe('11\n'); // the whole, fetched
    expect(s3.served - served).toBeGreaterThan(big.length);
    expect(readdirSync(files).filter((n) => n.endsWith('.jsonl'))).toEqual([`lro-offload-${id}.jsonl`]);
  });
});

/** n copies of one real result put straight into the bucket, each with an id of its own (in name and header). */
async function fill(prefix: string, n: number): Promise<string[]> {
  const local = join(root, `fill-${prefix}`);
  const r = await lro(['offload', '--force'], { input: 'one line\n'.repeat(2000), env: { LRO_DIR: local } });
  const id = idOf(r.out);
  const body = readFileSync(join(local, `lro-offload-${id}.jsonl`), 'utf8');
  const ids = Array.from({ length: n }, (_, i) => id.slice(0, 22) + String(i).padStart(4, '0'));
  const client = bucketClient();
  for (const x of ids) {
    const put = { Bucket: 'team', Key: `${prefix}/lro-offload-${x}.jsonl`, Body: body.split(id).join(x) };
    await client.send(new PutObjectCommand(put));
  }
  client.destroy();
  return ids.reverse(); // newest first
}

describe('ls of a remote store', () => {
  it('cold, fetches the headers of the rows it prints, not of every result, and lists as when warm', async () => {
    const { prefix, env } = remote();
    const ids = await fill(prefix, 100);
    const headerGets = (from: number) => s3.seen.slice(from).filter((l) => l.startsWith(`GET /team/${prefix}/lro-`));
    const seen = s3.seen.length;
    const cold = await lro(['ls', '--max-tokens', '300'], { env });
    expect(cold.code, cold.stderr).toBe(0);
    expect(cold.out).toMatch(/listed results 1-\d+ of 100, newest first/);
    const rows = cold.out.split('\n').filter((l) => /^[0-9A-Z]{26}\t/.test(l));
    expect(rows.map((l) => l.split('\t')[0])).toEqual(ids.slice(0, rows.length));
    expect(headerGets(seen).length).toBeLessThanOrEqual(Math.max(16, rows.length + 1));
    // one listing, of the results with the index's objects (from index/ on): neither the dedupe refs (gc's) nor the
    // pointers (ids/)
    const listed = s3.seen.slice(seen).filter((l) => /[?&]list-type=2/.test(l));
    expect(listed.map((l) => decodeURIComponent(/[?&]start-after=([^&]*)/.exec(l)![1]))).toEqual([`${prefix}/index/`]);
    const all = await lro(['ls', '--max-tokens', '0'], { env });
    expect(all.out.trim().split('\n')).toHaveLength(100);
    expect((await lro(['ls', '--max-tokens', '300'], { env })).out).toBe(cold.out); // warm: the same listing
  });
});

describe('the store\'s index of headers', () => {
  it('lets a machine with an empty cache list the store by its GETs, and fetch only the headers it lacks', async () => {
    const { prefix, env } = remote();
    const ids = await fill(prefix, 150);
    const headerGets = (from: number) => s3.seen.slice(from).filter((l) => l.startsWith(`GET /team/${prefix}/lro-`));
    const indexGets = (from: number) => s3.seen.slice(from).filter((l) => l.startsWith(`GET /team/${prefix}/index/`));
    const machine = () => ({ ...env, XDG_CACHE_HOME: join(root, `index-machine-${++prefixes}`) });
    // the first whole listing fetches every header, then writes the index
    let seen = s3.seen.length;
    const firstMachine = machine();
    const first = await lro(['ls', '--max-tokens', '0'], { env: firstMachine });
    expect(first.out.trim().split('\n')).toHaveLength(150);
    expect(headerGets(seen)).toHaveLength(150);
    expect((await s3.keys(prefix)).filter((k) => k.includes('/index/'))).toEqual([expect.stringMatching(/\/index\/base-[0-9A-Z]{26}\.jsonl\.gz$/)]);
    // another machine: the index, no header
    seen = s3.seen.length;
    for (const args of [['ls', '--max-tokens', '0'], ['ls', '--json', '--max-tokens', '0']]) {
      const other = await lro(args, { env: machine() });
      const want = await lro(args, { env: firstMachine }); // warm: its header files fetched
      expect(other.out.split(join(root, 'index-machine')).length).toBe(1); // no cache path in it
      expect(other.out, args.join(' ')).toBe(want.out);
    }
    expect(headerGets(seen)).toEqual([]);
    expect(indexGets(seen)).toHaveLength(2);
    // results stored since: each offload added its entry, so none is fetched (one page of an ls as a whole one)
    const added = [await offload(`${text}\n1`, env), await offload(`${text}\n2`, env), await offload(`${text}\n3`, env)];
    seen = s3.seen.length;
    const page = await lro(['ls'], { env: machine() });
    expect(page.out).toContain(added[0]);
    expect(page.out).toContain(ids[0]);
    expect(headerGets(seen)).toEqual([]);
    expect(indexGets(seen)).toHaveLength(4); // the base and the three additions
    // an entry lost (its addition deleted behind lro's back): that header alone is fetched, and added back
    const client0 = bucketClient();
    await client0.send(new DeleteObjectCommand({ Bucket: 'team', Key: `${prefix}/index/add-${added[1]}.jsonl` }));
    client0.destroy();
    seen = s3.seen.length;
    const lost = await lro(['ls', '--max-tokens', '0'], { env: machine() });
    expect(headerGets(seen).map((l) => /lro-offload-([0-9A-Z]{26})/.exec(l)![1])).toEqual([added[1]]);
    expect(lost.out).toBe((await lro(['ls', '--max-tokens', '0'], { env: firstMachine })).out);
    seen = s3.seen.length;
    expect((await lro(['ls', '--max-tokens', '0'], { env: machine() })).out).toBe(lost.out);
    expect(headerGets(seen)).toEqual([]);
    // an object replaced since the index was written (its size or time differs) is not taken from it
    const client = bucketClient();
    const key = `${prefix}/lro-offload-${ids[5]}.jsonl`;
    const body = await (await client.send(new GetObjectCommand({ Bucket: 'team', Key: key }))).Body!.transformToString();
    await client.send(new PutObjectCommand({ Bucket: 'team', Key: key, Body: body.replace('"count":2000', '"count":2000 ') }));
    client.destroy();
    seen = s3.seen.length;
    expect((await lro(['ls', '--max-tokens', '0'], { env: machine() })).code).toBe(0);
    expect(headerGets(seen).filter((l) => l.includes(ids[5]))).toHaveLength(1);
  }, 120_000);
});

describe('the index objects a machine has read', () => {
  it('are kept in its cache: a warm ls GETs only the new ones, and a copy goes when its object is no longer listed', async () => {
    const { prefix, env } = remote();
    await fill(prefix, 100);
    const indexGets = (from: number) => s3.seen.slice(from).filter((l) => l.startsWith(`GET /team/${prefix}/index/`));
    const m = { ...env, XDG_CACHE_HOME: join(root, `index-kept-${prefix}`) };
    expect((await lro(['ls', '--max-tokens', '0'], { env: { ...env, XDG_CACHE_HOME: join(root, `index-writer-${prefix}`) } })).code).toBe(0);
    const added = [await offload(`${text}\nkept 1`, env), await offload(`${text}\nkept 2`, env)];
    let seen = s3.seen.length;
    const cold = await lro(['ls', '--max-tokens', '0'], { env: m });
    expect(indexGets(seen)).toHaveLength(3); // the base and the two additions
    const copies = () => readdirSync(join(m.XDG_CACHE_HOME, 'lro', 's3', 'team', prefix, 'index')).sort();
    expect(copies()).toHaveLength(3);
    seen = s3.seen.length;
    const warm = await lro(['ls', '--max-tokens', '0'], { env: m });
    expect(warm.out).toBe(cold.out);
    expect(indexGets(seen)).toEqual([]);
    // one more result: its addition alone is fetched; one addition deleted behind lro's back: its copy goes
    const third = await offload(`${text}\nkept 3`, env);
    const client = bucketClient();
    await client.send(new DeleteObjectCommand({ Bucket: 'team', Key: `${prefix}/index/add-${added[0]}.jsonl` }));
    client.destroy();
    seen = s3.seen.length;
    const after = await lro(['ls', '--max-tokens', '0'], { env: m });
    expect(after.out).toContain(third);
    expect(indexGets(seen).map((l) => l.split('?')[0])).toEqual([`GET /team/${prefix}/index/add-${third}.jsonl`]);
    expect(copies().filter((n) => n.includes(added[0]))).toEqual([]);
    expect(copies().filter((n) => n.includes(third))).toHaveLength(1);
  }, 120_000);
});

describe('the index with read-only credentials', () => {
  it('a listing that cannot write the index says nothing, and this machine does not try again for a while', async () => {
    const { prefix, env } = remote();
    await fill(prefix, 70);
    const indexPuts = (from: number) => s3.seen.slice(from).filter((l) => l.startsWith(`PUT /team/${prefix}/index/`));
    const m = { ...env, XDG_CACHE_HOME: join(root, `read-only-${prefix}`) };
    s3.fault = 'read-only';
    try {
      let seen = s3.seen.length;
      const first = await lro(['ls', '--max-tokens', '0'], { env: m });
      expect([first.code, first.stderr]).toEqual([0, '']);
      expect(first.out.trim().split('\n')).toHaveLength(70);
      expect(indexPuts(seen)).toHaveLength(1); // tried once, refused (403)
      expect((await s3.keys(prefix)).filter((k) => k.includes('/index/'))).toEqual([]);
      // more results, their headers fetched by the same machine: no PUT tried this time
      s3.fault = 'none';
      await fill(`${prefix}`, 140);
      s3.fault = 'read-only';
      seen = s3.seen.length;
      const again = await lro(['ls', '--max-tokens', '0'], { env: m });
      expect([again.code, again.stderr]).toEqual([0, '']);
      expect(again.out.trim().split('\n')).toHaveLength(140); // the same 70 (the same body), and 70 more
      expect(indexPuts(seen)).toEqual([]);
      // another machine (nothing remembered) tries once, as the first did
      seen = s3.seen.length;
      const other = await lro(['ls', '--max-tokens', '0'], { env: { ...env, XDG_CACHE_HOME: join(root, `read-only-2-${prefix}`) } });
      expect([other.code, other.stderr]).toEqual([0, '']);
      expect(indexPuts(seen)).toHaveLength(1);
    } finally {
      s3.fault = 'none';
    }
  }, 120_000);
});

describe('the index when its write fails for a while', () => {
  it('a server error is not remembered as a refusal: the next listing writes the index', async () => {
    const { prefix, env } = remote();
    await fill(prefix, 70);
    const indexPuts = (from: number) => s3.seen.slice(from).filter((l) => l.startsWith(`PUT /team/${prefix}/index/`));
    const m = { ...env, XDG_CACHE_HOME: join(root, `index-500-${prefix}`) };
    s3.fault = 'fail-index-put';
    try {
      let seen = s3.seen.length;
      const first = await lro(['ls', '--max-tokens', '0'], { env: m });
      expect([first.code, first.stderr]).toEqual([0, '']);
      expect(first.out.trim().split('\n')).toHaveLength(70);
      expect(indexPuts(seen).length).toBeGreaterThanOrEqual(1); // tried (the SDK retries a 500), failed
      expect((await s3.keys(prefix)).filter((k) => k.includes('/index/'))).toEqual([]);
      s3.fault = 'none';
      await fill(prefix, 140);
      seen = s3.seen.length;
      const again = await lro(['ls', '--max-tokens', '0'], { env: m });
      expect([again.code, again.stderr]).toEqual([0, '']);
      expect(again.out.trim().split('\n')).toHaveLength(140);
      expect(indexPuts(seen).length).toBeGreaterThanOrEqual(1); // tried again at once, not an hour on
      expect((await s3.keys(prefix)).filter((k) => k.includes('/index/')).length).toBeGreaterThanOrEqual(1);
    } finally {
      s3.fault = 'none';
    }
  }, 120_000);
});

describe('the index kept current by several machines at once', () => {
  const headerGets = (prefix: string, from: number) => s3.seen.slice(from).filter((l) => l.startsWith(`GET /team/${prefix}/lro-`));
  const indexKeys = async (prefix: string) => (await s3.keys(prefix)).filter((k) => k.includes('/index/'));

  it('offloads on two machines, and one more while another compacts: a third machine, cold, takes every header from it', async () => {
    const { prefix, env } = remote();
    const ids = await fill(prefix, 70);
    const machine = (name: string) => ({ ...env, XDG_CACHE_HOME: join(root, `${prefix}-${name}`) });
    expect((await lro(['ls', '--max-tokens', '0'], { env: machine('first') })).code).toBe(0); // writes a base
    const writer = async (name: string, n: number, from = 0) => {
      const got: string[] = [];
      for (let i = from; i < from + n; i++) got.push(await offload(`${text}\n${name} ${i}`, machine(name)));
      return got;
    };
    const written = (await Promise.all([writer('writer-a', 16), writer('writer-b', 16)])).flat();
    expect(await indexKeys(prefix)).toHaveLength(33); // the base and 32 additions: the next reader compacts
    // a machine compacts (reads the 33 objects, writes their union as a base); held just before that base's write,
    // while both writers store one more each: their additions come after what it read, and must outlive it
    const hold = s3.hold(new RegExp(`^PUT /team/${prefix}/index/base-`));
    const compactor = lro(['ls', '--max-tokens', '0'], { env: machine('compactor') });
    await hold.arrived;
    const during = (await Promise.all([writer('writer-a', 1, 16), writer('writer-b', 1, 16)])).flat();
    hold.release();
    expect((await compactor).code).toBe(0);
    const left = await indexKeys(prefix);
    expect(left.filter((k) => k.includes('/base-'))).toHaveLength(1);
    expect(left.filter((k) => k.includes('/add-')).sort()).toEqual(during.map((id) => `${prefix}/index/add-${id}.jsonl`).sort());
    const all = [...ids, ...written, ...during];
    const seen = s3.seen.length;
    const cold = await lro(['ls', '--json', '--max-tokens', '0'], { env: machine('third') });
    expect(cold.code, cold.stderr).toBe(0);
    expect((JSON.parse(cold.out) as { id: string }[]).map((x) => x.id).sort()).toEqual([...all].sort());
    expect(headerGets(prefix, seen), 'every header from the index').toEqual([]);
  }, 300_000);

  it('gc that empties the store removes the index; one that leaves results drops only what it removed', async () => {
    const { prefix, env } = remote();
    const ids = await fill(prefix, 70);
    const machine = (name: string) => ({ ...env, XDG_CACHE_HOME: join(root, `${prefix}-${name}`) });
    expect((await lro(['ls', '--max-tokens', '0'], { env: machine('a') })).code).toBe(0);
    const kept = await offload(`${text}\nkept`, env);
    const added = [await offload(`${text}\n1`, env, ['--session', 'gone']), await offload(`${text}\n2`, env, ['--session', 'gone'])];
    expect(await indexKeys(prefix)).toHaveLength(4); // a base and three additions
    // the session's two results go: the index is one base of the 71 others
    const some = await lro(['gc', '--session', 'gone'], { env: machine('b') });
    expect(some.code, some.stderr).toBe(0);
    expect(some.out).toMatch(/^removed 2 results/);
    expect(await indexKeys(prefix)).toEqual([expect.stringMatching(/\/index\/base-[0-9A-Z]{26}\.jsonl\.gz$/)]);
    const seen = s3.seen.length;
    const ls = await lro(['ls', '--json', '--max-tokens', '0'], { env: machine('c') });
    expect((JSON.parse(ls.out) as { id: string }[]).map((x) => x.id).sort()).toEqual([kept, ...ids].sort());
    expect(headerGets(prefix, seen)).toEqual([]);
    const all = await lro(['gc', '--max-age', '0s'], { env: machine('d') });
    expect(all.code, all.stderr).toBe(0);
    expect(all.out).toMatch(/^removed 71 results/);
    expect((await s3.keys(prefix)).filter((k) => !k.includes('/ids/'))).toEqual([]);
  }, 120_000);
});

describe('the listing of a remote store', () => {
  it('is one listing of the results and the sessions\' folders, page after page, that stops past sessions/', async () => {
    const { prefix, env } = remote();
    const ids = await fill(prefix, 5);
    const inSession = await offload(text, env, ['--session', 'paged']);
    const client = bucketClient();
    const others = ['notes.txt', ...Array.from({ length: 6 }, (_, i) => `zz-other-${i}`)]; // not lro's
    for (const k of others) await client.send(new PutObjectCommand({ Bucket: 'team', Key: `${prefix}/${k}`, Body: 'x' }));
    client.destroy();
    const span = (await s3.keys(prefix)).filter((k) => k > `${prefix}/index/` && k < `${prefix}/sessions0`).length;
    const { r, listed } = await lsInPages(env);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.out) as { id: string }[]).map((x) => x.id).sort()).toEqual([...ids, inSession].sort());
    const prefixes = listed.map((l) => decodeURIComponent(/[?&]prefix=([^&]*)/.exec(l)?.[1] ?? ''));
    expect(prefixes.filter((p) => p.includes('sessions')), 'no listing of sessions/ of its own').toEqual([]);
    // the pages of index/ to the end of sessions/, and one past it (with the keys after it) at most: never the rest
    expect(listed.length, listed.join('\n')).toBeGreaterThanOrEqual(Math.ceil(span / 2));
    expect(listed.length, listed.join('\n')).toBeLessThanOrEqual(Math.ceil(span / 2) + 1);
  });
});

describe('a store at the root of a bucket', () => {
  it('lists its results and its sessions\' folders apart, never the bucket\'s other keys between them', async () => {
    // the other tests' stores (p1/, p2/, ...) and these sort between lro- and sessions/
    const client = bucketClient();
    for (let i = 0; i < 6; i++) await client.send(new PutObjectCommand({ Bucket: 'team', Key: `media/clip-${i}`, Body: 'x' }));
    client.destroy();
    const env = { ...s3.env('unused'), LRO_DIR: 's3://team' };
    const ids = [idOf((await lro(['offload', '--force'], { input: text, env })).out), idOf((await lro(['offload', '--force', '--session', 'root'], { input: jsonl, env })).out)];
    const { r, listed } = await lsInPages(env);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.out) as { id: string }[]).map((x) => x.id).sort()).toEqual([...ids].sort());
    const prefixes = new Set(listed.map((l) => decodeURIComponent(/[?&]prefix=([^&]*)/.exec(l)?.[1] ?? '')));
    expect([...prefixes].sort()).toEqual(['lro-', 'sessions/']);
    expect(listed.length, listed.join('\n')).toBeLessThanOrEqual(3); // a page of lro-, of sessions/ and one more
  });
});

describe('resolving an id on a machine that has not read it', () => {
  const lists = (from: number) => s3.seen.slice(from).filter((l) => /^GET .*[?&]list-type=2/.test(l));

  it('reads the id\'s pointer object, never a listing of the bucket', async () => {
    const { prefix, env } = remote();
    const id = await offload(text, env, ['--session', 'ptr']);
    const want = await lro(['read', id], { env });
    for (const args of [['read'], ['info'], ['grep', '-c', 'ERROR'], ['jq', '-c', '.']]) {
      const seen = s3.seen.length;
      const reader = { ...env, XDG_CACHE_HOME: join(root, `pointer-reader-${++prefixes}`) };
      const got = await lro([args[0], id, ...args.slice(1)], { env: reader });
      expect(got.code, `${args.join(' ')}: ${got.stderr}`).toBe(0);
      expect(lists(seen), args.join(' ')).toEqual([]);
      if (args[0] === 'read') expect(got.out).toBe(want.out);
    }
    expect(await s3.keys(prefix)).toContain(`${prefix}/ids/${id}`);
  });

  it('a store written before pointers (none in the bucket) resolves by its listing, saying nothing more', async () => {
    const { prefix, env } = remote();
    const ids = await fill(prefix, 3);
    const seen = s3.seen.length;
    const r = await lro(['info', ids[1]], { env });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.out).id).toBe(ids[1]);
    expect(lists(seen).length).toBeGreaterThan(0);
    const missing = await lro(['read', `${ids[1].slice(0, 22)}ZZZZ`], { env });
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringMatching(/^lro: no result \S+ in s3:\/\/team\//)]);
  });

  it('a pointer whose result is gone is no result, in one line', async () => {
    const { prefix, env } = remote();
    const id = await offload(text, env);
    const client = bucketClient();
    await client.send(new DeleteObjectCommand({ Bucket: 'team', Key: `${prefix}/lro-offload-${id}.jsonl` }));
    client.destroy();
    for (const args of [['read', id], ['grep', id, 'x']]) {
      const r = await lro(args, { env: { ...env, XDG_CACHE_HOME: join(root, `gone-${++prefixes}`) } });
      expect([r.code, r.out, r.stderr]).toEqual([2, '', expect.stringMatching(new RegExp(`^lro: no result ${id} in s3:`))]);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
  });
});

describe('ls of a remote store on a terminal', () => {
  /** lro ls with its stdout a terminal (script(1) gives it one), the lines it printed (async: the proxy is here). */
  async function lsOnTerminal(env: Record<string, string>, args: string): Promise<string[]> {
    const typescript = join(root, `typescript-${++prefixes}`);
    const command = `${process.execPath} ${BIN} ls ${args}`;
    const child = spawn('script', ['-q', '-e', '-c', command, typescript], {
      env: { ...process.env, ...env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise((ok) => child.once('close', ok));
    expect(code, out).toBe(0);
    return out.split(/\r?\n/);
  }

  it('cold, fetches the headers of the rows its table shows, not of every result, and shows as when warm', async () => {
    const { prefix, env } = remote();
    const ids = await fill(prefix, 100);
    const headerGets = (from: number) => s3.seen.slice(from).filter((l) => l.startsWith(`GET /team/${prefix}/lro-`));
    const seen = s3.seen.length;
    const cold = await lsOnTerminal(env, '--max-tokens 400');
    const rows = cold.filter((l) => /^[0-9A-Z]{26} /.test(l)).map((l) => l.slice(0, 26));
    expect(rows.length).toBeGreaterThan(2);
    expect(rows).toEqual(ids.slice(0, rows.length));
    expect(cold.join('\n')).toMatch(/listed results 1-\d+ of 100, newest first/);
    expect(headerGets(seen).length).toBeLessThanOrEqual(Math.max(16, 2 * rows.length + 1));
    const warm = await lsOnTerminal(env, '--max-tokens 400');
    expect(warm.filter((l) => /^[0-9A-Z]{26} /.test(l)).map((l) => l.slice(0, 26))).toEqual(rows);
  });
});

describe('questions across a remote store', () => {
  it('grep --all and id completion see results not in the cache yet; --since narrows before fetching', async () => {
    const { prefix, env } = remote();
    const a = await offload(text, env);
    const b = await offload(jsonl, env);
    const reader = () => ({ ...env, XDG_CACHE_HOME: join(root, `across-${++prefixes}`) });
    const objectGets = (from: number) => s3.seen.slice(from).filter((l) => l.startsWith(`GET /team/${prefix}/lro-`));
    let seen = s3.seen.length;
    const none = await lro(['grep', '--all', '-c', 'error', '--since', '2099-01-01T00:00:00Z'], { env: reader() });
    expect([none.code, none.out, none.stderr]).toEqual([1, '', 'lro: no stored results to search (see lro ls)\n']);
    expect(objectGets(seen)).toEqual([]);
    seen = s3.seen.length;
    const r = await lro(['grep', '--all', '-c', '-i', 'error'], { env: reader() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.out).toBe(`${b}:215\n${a}:8\n`);
    expect(r.stderr).toBe(`lro: fetched 2 results from s3://team/${prefix} into this machine's cache to search them\n`);
    expect(objectGets(seen)).toHaveLength(2);
    const ids = await lro(['__complete-ids'], { env: reader() });
    expect(ids.out).toBe(`last\tthe newest result\n${b}\toffload\n${a}\toffload\n`);
    // the library's grepStore walks the bucket as grep --all does, not only the results already in this cache
    // (in a process of its own: its S3 requests wait synchronously, and this process serves them)
    const script = `import { grepStore } from ${JSON.stringify(new URL('../../dist/index.js', import.meta.url).href)};
      const f = await grepStore('error', { ignoreCase: true });
      console.log(JSON.stringify([f.skipped, f.results.map((x) => [x.id, x.matched])]));`;
    const found = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, ...reader() } });
    expect([JSON.parse(found.stdout), found.stderr]).toEqual([[[], [[b, 215], [a, 8]]], '']);
    // and a listing that finds nothing names the store by its URL, not this machine's cache
    const empty = remote();
    const sessions = await lro(['ls', '--sessions'], { env: empty.env });
    expect(sessions.stderr).toBe(`no sessions in s3://team/${empty.prefix}\n`);
  });
});

describe('gc on a server without DeleteObjects', () => {
  it('deletes one object at a time instead, and still only lro\'s', async () => {
    const { prefix, env } = remote();
    await offload(text, env);
    await offload(jsonl, env);
    s3.fault = 'no-batch-delete';
    const seen = s3.seen.length;
    try {
      const r = await lro(['gc', '--max-age', '0s'], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.out).toMatch(/^removed 2 results/);
    } finally {
      s3.fault = 'none';
    }
    expect(await s3.keys(prefix)).toEqual([`${prefix}/ids/.since`]); // the store's pointer mark stays
    // 2 results, pointers, refs, and the index's 2 additions
    expect(s3.seen.slice(seen).filter((l) => l.startsWith('DELETE'))).toHaveLength(8);
  });
});

describe('gc and the id pointers', () => {
  const singleDeletes = (from: number) => s3.seen.slice(from).filter((l) => l.startsWith('DELETE'));

  it('on a store written before pointers deletes no pointer, in batches or one at a time', async () => {
    for (const fault of ['none', 'no-batch-delete'] as const) {
      const { prefix, env } = remote();
      await fill(prefix, 3);
      const [seen, batched] = [s3.seen.length, s3.batchDeleted.length];
      s3.fault = fault;
      let r;
      try {
        r = await lro(['gc', '--max-age', '0s'], { env });
      } finally {
        s3.fault = 'none';
      }
      expect([r.code, r.stderr], fault).toEqual([0, '']);
      expect(r.out).toMatch(/^removed 3 results/);
      expect(await s3.keys(prefix)).toEqual([]);
      // by key: s3rver fails a DeleteObjects that empties a folder now and then (two deletes rmdir it), and the SDK
      // sends it again
      const deleted = new Set([...s3.batchDeleted.slice(batched), ...singleDeletes(seen).map((l) => l.split(' ')[1])]);
      expect(deleted.size, `${fault}: ${[...deleted].join('\n')}`).toBe(3);
      expect([...deleted].filter((k) => k.includes('/ids/')), fault).toEqual([]);
    }
  });

  it('removes a pointer whose result is gone, says so in --json, and keeps a live result\'s and other keys', async () => {
    const { prefix, env } = remote();
    const gone = await offload(text, env);
    const live = await offload(jsonl, env);
    const client = bucketClient();
    // as an older lro (or a pointer's failed delete) left it: the result deleted, its pointer not
    await client.send(new DeleteObjectCommand({ Bucket: 'team', Key: `${prefix}/lro-offload-${gone}.jsonl` }));
    for (const k of ['ids/README', `ids/${gone.toLowerCase()}`]) {
      await client.send(new PutObjectCommand({ Bucket: 'team', Key: `${prefix}/${k}`, Body: 'not lro\'s' }));
    }
    client.destroy();
    const dry = await lro(['gc', '--dry-run', '--json'], { env });
    expect(JSON.parse(dry.out).pointers_removed).toBe(1);
    expect(await s3.keys(prefix)).toContain(`${prefix}/ids/${gone}`);
    const r = await lro(['gc', '--json'], { env: { ...env, XDG_CACHE_HOME: join(root, 'pointer-gc') } });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ removed_count: 0, kept_count: 1, pointers_removed: 1 });
    const keys = await s3.keys(prefix);
    expect(keys).not.toContain(`${prefix}/ids/${gone}`);
    expect(keys).toEqual(expect.arrayContaining([`${prefix}/ids/${live}`, `${prefix}/ids/README`]));
    expect(keys).toContain(`${prefix}/ids/${gone.toLowerCase()}`);
    const again = await lro(['gc', '--json'], { env });
    expect(JSON.parse(again.out).pointers_removed).toBeUndefined(); // nothing left to remove
    const read = await lro(['read', live], { env: { ...env, XDG_CACHE_HOME: join(root, 'pointer-gc-reader') } });
    expect(read.code, read.stderr).toBe(0);
  });
});

/** A ULID of the time `ms` (its random part zeros). */
function ulidAt(ms: number): string {
  const crockford = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  return Array.from({ length: 10 }, (_, k) => crockford[Math.floor(ms / 32 ** (9 - k)) % 32]).join('') + '0'.repeat(16);
}

describe('the store\'s pointer mark', () => {
  const lists = (from: number) => s3.seen.slice(from).filter((l) => /^GET .*[?&]list-type=2/.test(l));

  it('an unknown id newer than the mark is no result, with no listing; an older one is looked for by listing', async () => {
    const { prefix, env } = remote();
    await offload(text, env);
    const reader = { ...env, XDG_CACHE_HOME: join(root, 'mark-reader') };
    const newer = ulidAt(Date.now() + 60_000);
    for (const args of [['read', newer], ['grep', newer, 'x'], ['info', newer.toLowerCase()]]) {
      const seen = s3.seen.length;
      const r = await lro(args, { env: reader });
      expect([r.code, r.out, r.stderr]).toEqual([2, '', expect.stringMatching(new RegExp(`^lro: no result ${newer} in s3:`))]);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(lists(seen), args.join(' ')).toEqual([]);
    }
    expect(s3.seen.filter((l) => l.includes(`/${prefix}/ids/.since`) && l.startsWith('GET'))).toHaveLength(1); // kept
    const older = ulidAt(Date.now() - 86_400_000); // before the mark: maybe of an lro without pointers
    const seen = s3.seen.length;
    const r = await lro(['read', older], { env: reader });
    expect([r.code, r.stderr]).toEqual([2, expect.stringMatching(new RegExp(`^lro: no result ${older} in s3:`))]);
    expect(lists(seen).length).toBeGreaterThan(0);
    expect(await s3.keys(prefix)).toContain(`${prefix}/ids/.since`);
  });

  it('refused (not by a 412), it is asked for once, not by every offload, and the results are stored all the same', async () => {
    const { prefix, env } = remote();
    s3.fault = 'refuse-mark-put';
    try {
      const seen = s3.seen.length;
      for (let i = 0; i < 3; i++) {
        const r = await lro(['offload', '--force', '--no-dedupe'], { input: `${text}${i}\n`, env });
        expect(r.code, r.stderr).toBe(0);
        expect((await lro(['cat', JSON.parse(r.out).id], { env })).out).toBe(`${text}${i}\n`);
      }
      expect(s3.seen.slice(seen).filter((l) => l.startsWith('PUT') && l.includes(`/${prefix}/ids/.since`))).toHaveLength(1);
    } finally {
      s3.fault = 'none';
    }
    expect(await s3.keys(prefix)).not.toContain(`${prefix}/ids/.since`);
  });

  it('an argument that is not an id asks the server nothing', async () => {
    const { env } = remote();
    for (const args of [['read', 'nope'], ['info', '01234'], ['grep', `${'8'.repeat(26)}`, 'x'], ['jq', 'lro-x', '.']]) {
      const seen = s3.seen.length;
      const r = await lro(args, { env });
      expect([r.code, r.stderr], args.join(' ')).toEqual([2, expect.stringMatching(/^lro: invalid result id/)]);
      expect(s3.seen.slice(seen), args.join(' ')).toEqual([]);
    }
  });

  it('a pointer that cannot be written: offload gives the output as on a failed write, and leaves no result', async () => {
    const { prefix, env } = remote();
    s3.fault = 'fail-pointer-put';
    let r;
    try {
      r = await lro(['offload', '--force'], { input: text, env });
    } finally {
      s3.fault = 'none';
    }
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^lro: output truncated to \d+ of ~\d+ tokens: could not store the full result in s3:/);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(text.startsWith(r.out.slice(0, 100))).toBe(true);
    expect((await s3.keys(prefix)).filter((k) => k.includes('/lro-'))).toEqual([]);
  });
});

describe('dedupe across machines', () => {
  it('the same output offloaded on two machines gives one object and one id', async () => {
    const { prefix, env } = remote();
    const first = await lro(['offload'], { input: text, env });
    const machineB = { ...env, XDG_CACHE_HOME: join(root, 'dedupe-machine') };
    const again = await lro(['offload'], { input: text, env: machineB });
    expect(again.code, again.stderr).toBe(0);
    const id = idOf(first.out);
    expect(idOf(again.out)).toBe(id);
    const keys = await s3.keys(prefix);
    expect(keys.filter((k) => k.includes('/lro-'))).toEqual([`${prefix}/lro-offload-${id}.jsonl`]);
    expect(keys.filter((k) => k.includes('/index/'))).toEqual([`${prefix}/index/add-${id}.jsonl`]); // not the loser's
    expect(keys.filter((k) => /\/\.lro-[0-9a-f]{64}\.ref$/.test(k))).toHaveLength(1);
  });

  it('a machine that stored first wins: a 412 on the ref switches the other to its result, no error', async () => {
    const { prefix, env } = remote();
    const first = await lro(['offload'], { input: text, env });
    const id = idOf(first.out);
    s3.fault = 'hide-ref-once'; // the second machine looks before the first's ref is there, then writes after it
    let again;
    try {
      again = await lro(['offload'], { input: text, env: { ...env, XDG_CACHE_HOME: join(root, 'late-machine') } });
    } finally {
      s3.fault = 'none';
    }
    expect([again.code, again.stderr]).toEqual([0, '']);
    expect(idOf(again.out)).toBe(id);
    const keys = await s3.keys(prefix);
    expect(keys.filter((k) => k.includes('/lro-'))).toEqual([`${prefix}/lro-offload-${id}.jsonl`]);
    expect(keys.filter((k) => k.includes('/index/'))).toEqual([`${prefix}/index/add-${id}.jsonl`]); // not the loser's
    const cached = join(root, 'late-machine', 'lro', 's3', 'team', prefix, 'files');
    expect(readdirSync(cached).filter((n) => n.endsWith('.jsonl'))).toEqual([`lro-offload-${id}.jsonl`]);
  });
});

describe('a result another machine\'s gc removed', () => {
  /** A result offloaded by one machine, read (so cached whole) by another: both envs, the id and the cached file. */
  async function readElsewhere(extra: string[] = []) {
    const { prefix, env } = remote();
    const id = await offload(text, env, extra);
    const reader = { ...env, XDG_CACHE_HOME: join(root, `reader-${++prefixes}`) };
    expect((await lro(['grep', id, '-c', 'ERROR'], { env: reader })).out).toBe('8\n'); // fetched whole: cached
    const cached = join(reader.XDG_CACHE_HOME, 'lro', 's3', 'team', prefix, 'files', `lro-offload-${id}.jsonl`);
    expect(existsSync(cached)).toBe(true);
    return { env, reader, id, cached, prefix };
  }

  it('is no longer served from a cache once the bucket is asked again (at most a minute later)', async () => {
    const { env, reader, id, cached, prefix } = await readElsewhere();
    expect((await lro(['gc', '--max-age', '0s'], { env })).code).toBe(0);
    expect(await s3.keys(prefix)).not.toContain(`${prefix}/lro-offload-${id}.jsonl`);
    const heads = () => s3.seen.filter((l) => l.startsWith('HEAD') && l.includes(id)).length;
    // seen in the bucket just now: the cache answers alone, asking nothing
    const h = heads();
    expect((await lro(['read', id, '--head', '1'], { env: reader })).code).toBe(0);
    expect(heads()).toBe(h);
    // a minute on, one HEAD says the object is gone: no result, and the cached copy goes
    const old = new Date(Date.now() - 61_000);
    utimesSync(cached, old, old);
    const r = await lro(['read', id], { env: reader });
    expect([r.code, r.out]).toEqual([2, '']);
    expect(r.stderr).toBe(`lro: no result ${id} in s3://team/${prefix}: it may have expired or live in another store (see lro ls, --dir)\n`);
    expect(heads()).toBe(h + 1);
    expect(existsSync(cached)).toBe(false);
  });

  it('an expired result is asked for unless seen since it expired, and served while the bucket still has it', async () => {
    const { env, reader, id, cached, prefix } = await readElsewhere(['--ttl', '1s']);
    await new Promise((ok) => setTimeout(ok, 1100));
    const kept = await lro(['read', id, '--head', '1'], { env: reader }); // expired, not removed yet: as a local store
    expect([kept.code, kept.stderr]).toEqual([0, '']);
    expect((await lro(['gc'], { env })).code).toBe(0);
    expect(await s3.keys(prefix)).not.toContain(`${prefix}/lro-offload-${id}.jsonl`);
    // last seen in the bucket just before it expired, seconds ago: asked again, since a gc may have come since
    const expires = Date.parse((JSON.parse(readFileSync(cached, 'utf8').split('\n')[0]) as { expires_at: string }).expires_at);
    const before = new Date(expires - 100);
    utimesSync(cached, before, before);
    const r = await lro(['read', id, '--head', '1'], { env: reader });
    expect([r.code, r.out]).toEqual([2, '']);
    expect(existsSync(cached)).toBe(false);
  });

  it('a server that cannot answer the check leaves the cached copy served', async () => {
    const { reader, id, cached } = await readElsewhere();
    const old = new Date(Date.now() - 61_000);
    utimesSync(cached, old, old);
    const r = await lro(['read', id, '--head', '1'], { env: { ...reader, AWS_ENDPOINT_URL: 'http://127.0.0.1:9' } });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.out).toMatch(/^1: 0 INFO/);
  });
});

describe('faults', () => {
  /** One line on stderr, exit 2, in bounded time, and never a credential. */
  async function failsClearly(args: string[], env: Record<string, string>, cause: RegExp): Promise<void> {
    const t0 = Date.now();
    const r = await lro(args, { env: { ...env, AWS_SECRET_ACCESS_KEY: 'SeCrEt-never-printed' } });
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(r.code, r.stderr).toBe(2);
    expect(r.out).toBe('');
    expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toMatch(cause);
    expect(r.stderr).not.toContain('SeCrEt');
  }

  let stored: { id: string; env: Record<string, string> };
  beforeAll(async () => {
    const { env } = remote();
    stored = { id: await offload(text, env), env };
  });
  /** The env of a machine that has not read the result yet. */
  const fresh = (): Record<string, string> => ({ ...stored.env, XDG_CACHE_HOME: join(root, `fresh-${++prefixes}`) });

  it('a malformed s3:// location', async () => {
    await failsClearly(['ls'], { ...fresh(), LRO_DIR: 's3://Bad_Bucket/x' }, /invalid S3 store "s3:\/\/Bad_Bucket\/x": the bucket/);
  });

  it('the server down', async () => {
    const down = { ...fresh(), AWS_ENDPOINT_URL: 'http://127.0.0.1:9' };
    await failsClearly(['read', stored.id], down, /cannot reach the S3 endpoint \S+:9 \(ECONNREFUSED\)/);
  });

  it('wrong credentials', async () => {
    const wrong = { ...fresh(), AWS_ACCESS_KEY_ID: 'NOT-A-KEY' };
    await failsClearly(['grep', stored.id, 'x'], wrong, /S3 refused the credentials \(InvalidAccessKeyId\)/);
  });

  it('a missing bucket', async () => {
    const missing = { ...fresh(), LRO_DIR: 's3://no-such-bucket/x' };
    await failsClearly(['read', 'last'], missing, /the bucket no-such-bucket does not exist/);
    await failsClearly(['ls'], missing, /the bucket no-such-bucket does not exist/);
  });

  it('throttling: retried, then given up', async () => {
    const before = s3.seen.length;
    s3.fault = 'throttle';
    try {
      await failsClearly(['read', stored.id], fresh(), /S3 kept throttling the requests \(SlowDown\) after retries/);
    } finally {
      s3.fault = 'none';
    }
    expect(s3.seen.length - before).toBe(3); // maxAttempts
  });

  it('a download cut half-way leaves nothing in the cache', async () => {
    const env = fresh();
    s3.fault = 'cut-download';
    try {
      await failsClearly(['cat', stored.id], env, /the S3 endpoint http:\S+ cut the connection \(ECONNRESET\): try/);
    } finally {
      s3.fault = 'none';
    }
    const files = join(env.XDG_CACHE_HOME, 'lro', 's3', 'team', env.LRO_DIR.split('/').pop()!, 'files');
    expect(existsSync(files) ? readdirSync(files) : []).toEqual([]);
    expect((await lro(['grep', '-c', stored.id, 'ERROR'], { env })).out).toBe('8\n'); // and the next read works
  });

  it('offload with the server down or an upload cut: the output, truncated, one line, exit 0, no object', async () => {
    for (const fault of ['down', 'cut-upload'] as const) {
      const { prefix, env } = remote();
      if (fault === 'cut-upload') s3.fault = 'cut-upload';
      const used = fault === 'down' ? { ...env, AWS_ENDPOINT_URL: 'http://127.0.0.1:9' } : env;
      const r = await lro(['offload'], { input: text, env: used });
      s3.fault = 'none';
      expect(r.code).toBe(0);
      expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stderr).toMatch(/^lro: output truncated to \d+ of ~\d+ tokens: could not store the full result in /);
      expect(r.stderr).toContain(` in s3://team/${prefix} (`);
      expect(r.out.startsWith(text.slice(0, 1000))).toBe(true);
      expect(await s3.keys(prefix)).toEqual([]);
    }
  });
});

describe('a server that takes a write and goes silent', () => {
  it('offload and run give the output within seconds (truncated, one line, exit 0), and leave no object', async () => {
    for (const args of [['offload'], ['run', '--', 'cat']]) {
      const { prefix, env } = remote();
      s3.fault = 'hang-writes';
      const t0 = Date.now();
      const r = await lro(args, { input: text, env });
      const took = Date.now() - t0;
      s3.fault = 'none';
      expect(took, args[0]).toBeLessThan(30_000); // the write's socket silent for 10 s, not tried again (not 360 s)
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stderr).toMatch(/^lro: output truncated to \d+ of ~\d+ tokens: could not store the full result in /);
      expect(r.stderr).toContain('did not answer in time');
      expect(r.out.startsWith(text.slice(0, 1000))).toBe(true);
      expect(await s3.keys(prefix)).toEqual([]);
    }
  }, 60_000);
});

describe('a fetched object', () => {
  it('that is not what its header says is refused in one line, exit 2, and never cached', async () => {
    const { prefix, env } = remote();
    const id = await offload(text, env);
    const key = `${prefix}/lro-offload-${id}.jsonl`;
    const client = bucketClient();
    const got = await client.send(new GetObjectCommand({ Bucket: 'team', Key: key }));
    const stored = await got.Body!.transformToString();
    const nl = stored.indexOf('\n') + 1; // one record changed, the header as it was
    const body = stored.slice(0, nl) + stored.slice(nl).replace('request 5 served', 'request 5 SERVED');
    await client.send(new PutObjectCommand({ Bucket: 'team', Key: key, Body: body }));
    client.destroy();
    const reader = { ...env, XDG_CACHE_HOME: join(root, 'altered-reader') };
    for (const args of [['grep', '-c', id, 'ERROR'], ['read', id, '--head', '1']]) {
      const r = await lro(args, { env: reader });
      expect(r.code, `${args[0]}: ${r.out} ${r.stderr}`).toBe(2);
      expect(r.out).toBe('');
      expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
      const cause = `lro: result ${id} fetched from s3://team/${key} does not match its header's sha256: the object`;
      expect(r.stderr).toContain(cause);
    }
    const files = join(root, 'altered-reader', 'lro', 's3', 'team', prefix, 'files');
    expect(existsSync(files) ? readdirSync(files) : []).toEqual([]);
  });
});

describe('the cache', () => {
  it('is 0700, bounded by LRO_S3_CACHE_MAX when gc runs, and a trimmed result is fetched again', async () => {
    const { prefix, env } = remote();
    const id = await offload(text, env);
    const cache = join(env.XDG_CACHE_HOME, 'lro', 's3', 'team', prefix);
    expect(statSync(join(cache, 'files')).mode & 0o777).toBe(0o700);
    const results = () => readdirSync(join(cache, 'files')).filter((n) => n.endsWith('.jsonl'));
    expect(results()).toEqual([`lro-offload-${id}.jsonl`]);
    const r = await lro(['gc'], { env: { ...env, LRO_S3_CACHE_MAX: '0' } });
    expect(r.code, r.stderr).toBe(0);
    expect(results()).toEqual([]);
    expect(await s3.keys(prefix)).toContain(`${prefix}/lro-offload-${id}.jsonl`);
    expect((await lro(['grep', '-c', id, 'ERROR'], { env })).out).toBe('8\n');
  });
});

describe('the SDK', () => {
  const TRACE = join(__dirname, '../helpers/module-trace.mjs');
  it('is in no bundle but the S3 worker, and a local store never loads it', async () => {
    const dist = join(__dirname, '../../dist');
    for (const f of readdirSync(dist).filter((n) => /\.(c?js)$/.test(n) && n !== 's3-worker.cjs')) {
      expect(readFileSync(join(dist, f), 'utf8'), f).not.toContain('ListObjectsV2Command');
    }
    const env = { LRO_DIR: join(root, 'local-sdk'), LRO_MODULE_TRACE: join(root, 'trace.txt') };
    for (const args of [['offload', '--force'], ['--version'], ['read', 'last', '--head', '1']]) {
      const r = await lro(args, { input: text, env, nodeArgs: ['--import', TRACE] });
      expect(r.code, r.stderr).toBe(0);
    }
    const loaded = readFileSync(env.LRO_MODULE_TRACE, 'utf8');
    expect(loaded).toContain('/dist/cli-offload.cjs'); // the bundle of offload (bin/code-cache.js)
    expect(loaded).not.toMatch(/@aws-sdk|@smithy|s3-worker/);
  });
});

describe('a worker whose bundle does not load', () => {
  it('answers every command at once, in one line naming the cause, not as an endpoint that did not answer 12 s later', () => {
    // an install whose S3 bundle is damaged (a copy of bin/ and dist/); no server is needed: nothing is asked of one
    const copy = join(root, 'damaged-install');
    cpSync(join(BIN, '..'), join(copy, 'bin'), { recursive: true });
    cpSync(join(BIN, '../../dist'), join(copy, 'dist'), { recursive: true });
    writeFileSync(join(copy, 'dist/s3-worker.cjs'), "throw new Error('a damaged bundle');\n");
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1', AWS_ENDPOINT_URL: 'http://127.0.0.1:9', AWS_ACCESS_KEY_ID: 'x',
      AWS_SECRET_ACCESS_KEY: 'x', AWS_REGION: 'us-east-1', XDG_CACHE_HOME: join(root, 'damaged-cache'), LRO_DIR: 's3://team/damaged',
    };
    const cause = "lro's S3 worker did not start (a damaged bundle): reinstall lro, or run npm run build in its folder";
    const run = (args: string[], input = '') => {
      const start = Date.now();
      const r = spawnSync(process.execPath, [join(copy, 'bin/lro.js'), ...args], { env, input, encoding: 'utf8', timeout: 60_000 });
      return { ...r, ms: Date.now() - start };
    };
    for (const args of [['ls'], ['read', 'last'], ['gc']]) {
      const r = run(args);
      expect([r.status, r.stderr], args[0]).toEqual([2, `lro: ${cause}\n`]); // before: exit 1, the timeout's words, a stack trace
      expect(r.ms, args[0]).toBeLessThan(10_000); // before: 12 s and more
    }
    const off = run(['offload', '--force'], 'one line\n'.repeat(3000));
    expect(off.status).toBe(0);
    expect(off.stderr).toContain(`could not store the full result in s3://team/damaged (${cause})`);
  });
});

describe('the MCP server on an S3 store', () => {
  it('offloads into the bucket and greps a result another machine wrote, as the CLI does', async () => {
    const { prefix, env } = remote();
    const id = await offload(text, { ...env, XDG_CACHE_HOME: join(root, 'mcp-writer') });
    const { client } = await stdioClient(['mcp'], mcpEnv(env.LRO_DIR, env));
    try {
      const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
      const grep = (await call('lro_grep', { id, pattern: 'ERROR', count: true })) as { content: { text: string }[] };
      expect(grep.content[0].text).toBe((await lro(['grep', '-c', id, 'ERROR'], { env })).out);
      const offloaded = await call('lro_offload', { content: jsonl, operation: 'mcp' });
      const stored = offloaded as unknown as { structuredContent: { id: string } };
      expect(await s3.keys(prefix)).toContain(`${prefix}/lro-mcp-${stored.structuredContent.id}.jsonl`);
    } finally {
      await client.close();
    }
  });
});
