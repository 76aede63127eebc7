// End-to-end: keyed integrity (LRO_STORE_KEY). Someone with write access to the bucket can rewrite an object and,
// with it, everything an unkeyed reader checks (block hashes, line 1's seal, the sha256): such an object reads as
// stored without the key. With it, every reader (of part of a result, of the whole, ls through the store's index)
// refuses what lacks a MAC under the key or carries a wrong one; the key itself is never written anywhere.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { blocksMember, LeafHasher, MAC_PLACEHOLDER, sealHeader } from '../../src/format/blocks.js';
import { signLine } from '../../src/format/mac.js';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';
import { startS3, type S3TestServer } from '../helpers/s3-server.js';

let s3: S3TestServer;
let root: string;
let client: S3Client;
let prefixes = 0;
beforeAll(async () => {
  s3 = await startS3();
  root = tempDir('lro-s3-keyed-');
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
});
afterAll(async () => {
  client?.destroy();
  await s3?.close();
  cleanup(root);
});

const KEY = 'correct horse battery staple 4711';
const OTHER_KEY = 'another team key 0815';
// 2.6 MB: three blocks of 1 MB; its start and its end are each read by a ranged GET
const COUNT = 30_000;
const inputLines = Array.from({ length: COUNT }, (_, i) => `${i} INFO request ${i % 10} served in ${i % 7} ms ${'x'.repeat(50)}`);
const big = `${inputLines.join('\n')}\n`;

let machines = 0;
/** A machine that has read nothing yet (an empty cache), with the store of `env` and the key given (or none). */
function machine(env: Record<string, string>, key: string | null): Record<string, string> {
  const out: Record<string, string> = { ...env, XDG_CACHE_HOME: join(root, `machine-${++machines}`) };
  if (key !== null) out.LRO_STORE_KEY = key;
  return out;
}

async function stored(key: string | null, input = big): Promise<{ env: Record<string, string>; id: string; key: string; prefix: string }> {
  const prefix = `k${++prefixes}`;
  const env = s3.env(prefix);
  const r = await lroHere(['offload', '--force'], { input, env: key === null ? env : { ...env, LRO_STORE_KEY: key } });
  expect(r.code, r.stderr).toBe(0);
  expect(r.out + r.stderr).not.toContain(KEY);
  const id = (JSON.parse(r.out) as { id: string }).id;
  return { env, id, key: `${prefix}/lro-offload-${id}.jsonl`, prefix };
}

async function getObject(key: string): Promise<Buffer> {
  const r = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
  return Buffer.from(await r.Body!.transformToByteArray());
}

async function putObject(key: string, body: Buffer | string): Promise<void> {
  await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: body }));
}

/**
 * The stored object with record 2 edited, and everything an unkeyed reader checks made to match again, as an
 * attacker with write access would: the block hashes, the sha256 of the original, line 1's seal. The MAC is left
 * as it was (it cannot be made without the key).
 */
function rewrittenConsistently(body: Buffer): Buffer {
  const nl = body.indexOf(0x0a);
  const records = Buffer.from(body.subarray(nl + 1));
  const second = records.indexOf(0x0a) + 1;
  records.write('HACKED!!', records.indexOf('INFO req', second)); // record 2, as long as before
  const original = [...inputLines];
  original[1] = original[1].replace('INFO req', 'HACKED!!');
  const sha256 = createHash('sha256').update(`${original.join('\n')}\n`).digest('hex');
  const hasher = new LeafHasher();
  hasher.update(records);
  let line = body.subarray(0, nl).toString('utf8').trimEnd();
  line = line.replace(/"sha256":"[0-9a-f]{64}"/, `"sha256":"${sha256}"`);
  line = line.replace(/"blocks":\{[^}]*\}/, `"blocks":${blocksMember(hasher, Infinity)}`);
  return Buffer.concat([Buffer.from(sealHeader(line)), Buffer.from('\n'), records]);
}

const partReaders = [['read', '--head', '3'], ['read', '--tail', '2'], ['info']];
const wholeReaders = [['grep', '-c', 'INFO'], ['cat']];

/** Each reader on a fresh machine with `key`: exit 2, nothing on stdout, one line naming the result and `why`. */
async function allRefuse(env: Record<string, string>, id: string, key: string, why: RegExp): Promise<void> {
  for (const args of [...partReaders, ...wholeReaders]) {
    const r = await lro([args[0], id, ...args.slice(1)], { env: machine(env, key) });
    const label = `${args.join(' ')}: ${r.stderr}`;
    expect(r.code, label).toBe(2);
    expect(r.out, label).toBe('');
    expect(r.stderr.trimEnd().split('\n'), label).toHaveLength(1);
    expect(r.stderr, label).toMatch(new RegExp(`^lro: result ${id} `));
    expect(r.stderr, label).toMatch(why);
    expect(r.stderr, label).not.toContain(key);
  }
}

describe('a store with a key (LRO_STORE_KEY)', () => {
  it('refuses an object rewritten consistently (hashes, seal, sha256), which reads without the key', async () => {
    const { env, id, key } = await stored(KEY);
    const stored0 = await getObject(key);
    expect(stored0.subarray(0, stored0.indexOf(0x0a)).toString()).toMatch(/,"mac":"[A-Za-z0-9+/]{43}","blocks":\{/);
    // unchanged, it reads with the key as without it
    for (const k of [KEY, null]) {
      const ok = await lro(['read', id, '--head', '2'], { env: machine(env, k) });
      expect([ok.code, ok.stderr]).toEqual([0, '']);
      expect(ok.out).toContain('1 INFO request 1');
    }
    await putObject(key, rewrittenConsistently(stored0));
    // without the key every check passes: the attack works on an unkeyed reader
    const head = await lro(['read', id, '--head', '3'], { env: machine(env, null) });
    expect([head.code, head.stderr]).toEqual([0, '']);
    expect(head.out).toContain('HACKED!!');
    const whole = await lro(['grep', id, '-c', 'HACKED'], { env: machine(env, null) });
    expect([whole.code, whole.out, whole.stderr]).toEqual([0, '1\n', '']);
    // with it, every reader refuses
    await allRefuse(env, id, KEY, /has a MAC that does not match LRO_STORE_KEY/);
  }, 180_000);

  it('refuses a result written with another key', async () => {
    const { env, id } = await stored(OTHER_KEY);
    await allRefuse(env, id, KEY, /has a MAC that does not match LRO_STORE_KEY \(changed on the server after it was stored, or stored with another key\)/);
    const ok = await lro(['read', id, '--tail', '1'], { env: machine(env, OTHER_KEY) });
    expect([ok.code, ok.stderr]).toEqual([0, '']);
  }, 180_000);

  it('refuses a result written without a key, saying how to read it anyway', async () => {
    const { env, id } = await stored(null);
    await allRefuse(env, id, KEY, /has no MAC: it was stored without LRO_STORE_KEY, so its integrity cannot be checked \(unset LRO_STORE_KEY to read it unchecked\)/);
    const ok = await lro(['read', id, '--head', '1'], { env: machine(env, null) });
    expect([ok.code, ok.stderr]).toEqual([0, '']);
  }, 180_000);

  it('refuses a copy cached before the key was set', async () => {
    const { env, id } = await stored(null);
    const m = machine(env, null);
    expect((await lro(['cat', id], { env: m })).code).toBe(0); // fetched whole into this machine's cache
    const r = await lro(['read', id, '--head', '1'], { env: { ...m, LRO_STORE_KEY: KEY } });
    expect([r.code, r.out]).toEqual([2, '']);
    expect(r.stderr).toMatch(/has no MAC/);
  }, 120_000);

  it('never writes the key: not in any output, header, stored object or cached file', async () => {
    const { env, id, prefix } = await stored(KEY, 'small line\n'.repeat(3000));
    const m = machine(env, KEY);
    const outputs: string[] = [];
    for (const args of [['read', id], ['info', id], ['ls'], ['ls', '--json'], ['cat', id], ['grep', id, 'small'], ['gc', '--dry-run']]) {
      const r = await lro(args, { env: m });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      outputs.push(r.out, r.stderr);
    }
    const failed = await lro(['read', '01ARZ3NDEKTSV4RRFFQ69G5FAV'], { env: m });
    outputs.push(failed.out, failed.stderr);
    for (const o of outputs) expect(o).not.toContain(KEY);
    const keys = await s3.keys(prefix);
    expect(keys.length).toBeGreaterThan(2);
    for (const k of keys) {
      const body = await getObject(k);
      const text = k.endsWith('.gz') ? gunzipSync(body).toString('latin1') : body.toString('latin1');
      expect(text, k).not.toContain(KEY);
    }
    for (const file of filesUnder(m.XDG_CACHE_HOME)) expect(readFileSync(file).toString('latin1'), file).not.toContain(KEY);
  }, 120_000);
});

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

/**
 * n results under `prefix`, copies of one offloaded with KEY under other ids, each signed again as the writer signs
 * (its seal and MAC made anew for its id): the store ls reads through its index.
 */
async function fillSigned(prefix: string, n: number): Promise<string[]> {
  const local = join(root, `fill-${prefix}`);
  const r = await lro(['offload', '--force'], { input: 'one line\n'.repeat(2000), env: { LRO_DIR: local, LRO_STORE_KEY: KEY } });
  const id = (JSON.parse(r.out) as { id: string }).id;
  const body = readFileSync(join(local, `lro-offload-${id}.jsonl`));
  const nl = body.indexOf(0x0a);
  const line = body.subarray(0, nl).toString('utf8');
  const ids = Array.from({ length: n }, (_, i) => id.slice(0, 22) + String(i).padStart(4, '0'));
  for (const x of ids) {
    const unsigned = line.split(id).join(x).replace(/"mac":"[^"]*"/, `"mac":"${MAC_PLACEHOLDER}"`).replace(/"head":"[^"]*"/, `"head":"${'A'.repeat(16)}"`);
    const signed = signLine(Buffer.from(KEY), sealHeader(unsigned));
    await putObject(`${prefix}/lro-offload-${x}.jsonl`, Buffer.concat([Buffer.from(signed), body.subarray(nl)]));
  }
  return ids.reverse();
}

describe('ls through the store\'s index, with the key', () => {
  it('takes an entry only when its MAC holds: an entry rewritten in the index is fetched from its object instead', async () => {
    const prefix = `k${++prefixes}`;
    const env = s3.env(prefix);
    const ids = await fillSigned(prefix, 70);
    const headerGets = (from: number) => s3.seen.slice(from).filter((l) => l.startsWith(`GET /team/${prefix}/lro-`));
    const first = await lro(['ls', '--json', '--max-tokens', '0'], { env: machine(env, KEY) });
    expect(first.code, first.stderr).toBe(0);
    const base = (await s3.keys(prefix)).find((k) => /\/index\/base-/.test(k))!;
    expect(base).toBeDefined();
    // another machine with the key: every header from the index
    let seen = s3.seen.length;
    const second = await lro(['ls', '--json', '--max-tokens', '0'], { env: machine(env, KEY) });
    expect(second.out).toBe(first.out);
    expect(headerGets(seen)).toEqual([]);
    // the index rewritten: one entry's operation changed (the attacker cannot make its MAC)
    const victim = ids[3];
    const text = gunzipSync(await getObject(base)).toString('utf8');
    const forged = text.split('\n').map((l) => (l.includes(victim) ? l.replace('\\"operation\\":\\"offload\\"', '\\"operation\\":\\"forged!\\"') : l)).join('\n');
    expect(forged).not.toBe(text);
    await putObject(base, gzipSync(forged));
    const rows = (out: string) => JSON.parse(out) as { id: string; operation: string }[];
    // without the key the forged entry is taken
    const unkeyed = await lro(['ls', '--json', '--max-tokens', '0'], { env: machine(env, null) });
    expect(rows(unkeyed.out).find((x) => x.id === victim)?.operation).toBe('forged!');
    // with it, that entry alone is not: its header is fetched from the object, and the listing is the true one
    seen = s3.seen.length;
    const keyed = await lro(['ls', '--json', '--max-tokens', '0'], { env: machine(env, KEY) });
    expect(keyed.code, keyed.stderr).toBe(0);
    expect(keyed.out).toBe(first.out);
    expect(headerGets(seen).map((l) => /lro-offload-([0-9A-Z]{26})/.exec(l)![1])).toEqual([victim]);
  }, 180_000);
});
