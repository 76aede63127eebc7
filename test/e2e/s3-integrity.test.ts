// End-to-end: what a remote store serves is what was stored. An object changed on the server (s3rver, edited behind
// lro's back) or bytes changed on their way (the test proxy rewriting ranged answers) are refused by every reader,
// the ones that read part of a result (its start, its end: checked by the block hashes of the header) as the ones
// that fetch it whole (sha256): exit 2, one line naming the result, nothing of the changed part printed or cached.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { cleanup, lro, tempDir } from '../helpers/cli.js';
import { lroHere } from '../helpers/in-process.js';
import { startS3, type Rewrite, type S3TestServer } from '../helpers/s3-server.js';

let s3: S3TestServer;
let root: string;
let client: S3Client;
let prefixes = 0;
beforeAll(async () => {
  s3 = await startS3();
  root = tempDir('lro-s3-integrity-');
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
});
afterAll(async () => {
  client?.destroy();
  await s3?.close();
  cleanup(root);
});

// 2.6 MB: three blocks of 1 MB; its start and its end are each read by a ranged GET
const COUNT = 30_000;
const big = `${Array.from({ length: COUNT }, (_, i) => `${i} INFO request ${i % 10} served in ${i % 7} ms ${'x'.repeat(50)}`).join('\n')}\n`;

/** A fresh prefix with the big output offloaded to it: its env, id and object key. */
async function stored(): Promise<{ env: Record<string, string>; id: string; key: string; prefix: string }> {
  const prefix = `t${++prefixes}`;
  const env = s3.env(prefix);
  const r = await lroHere(['offload', '--force'], { input: big, env });
  expect(r.code, r.stderr).toBe(0);
  const id = (JSON.parse(r.out) as { id: string }).id;
  return { env, id, key: `${prefix}/lro-offload-${id}.jsonl`, prefix };
}

/** A machine that has read nothing yet (an empty cache) using the store of `env`. */
let machines = 0;
const freshMachine = (env: Record<string, string>) => ({ ...env, XDG_CACHE_HOME: join(root, `machine-${++machines}`) });

async function getObject(key: string): Promise<Buffer> {
  const r = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
  return Buffer.from(await r.Body!.transformToByteArray());
}

/** The lines of a stored file (line 1 the header), each with its newline. */
function linesOf(body: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < body.length; ) {
    const nl = body.indexOf(0x0a, at);
    out.push(body.subarray(at, nl + 1));
    at = nl + 1;
  }
  return out;
}

/** Replaces `what` by `by` (as long) at its first occurrence in `line`. */
function edited(line: Buffer, what: string, by: string): Buffer {
  const at = line.indexOf(what);
  expect(at).toBeGreaterThanOrEqual(0);
  const copy = Buffer.from(line);
  copy.write(by, at);
  return copy;
}

/** Changes to a stored object, each at its start and at its end, so that every reader of part of it meets one. */
const objectChanges: Record<string, (lines: Buffer[]) => Buffer[]> = {
  // record 2 and the last record edited in place, the object's size unchanged
  edit: (l) => l.map((x, i) => (i === 2 || i === l.length - 1 ? edited(x, 'INFO req', 'HACKED!!') : x)),
  truncate: (l) => l.slice(0, -1),
  extend: (l) => [...l, Buffer.from('"one more line"\n')],
  // records 2 and 3, and the last two, swapped (as long as each other: the size unchanged)
  reorder: (l) => {
    const x = [...l];
    [x[2], x[3]] = [x[3], x[2]];
    [x[x.length - 1], x[x.length - 2]] = [x[x.length - 2], x[x.length - 1]];
    return x;
  },
};

/** The readers of part of a result (its start or end), and two that fetch it whole. */
const partReaders = [['read', '--head', '3'], ['read', '--tail', '2'], ['read'], ['read', '--chars', '0:300'], ['read', '--records', '1:3', '--columns', '0:10'], ['info']];
const wholeReaders = [['grep', '-c', 'INFO'], ['cat']];

/** Nothing of the result is in the machine's cache (neither whole, nor its start or end). */
function nothingCached(env: Record<string, string>, prefix: string, id: string): void {
  const cache = join(env.XDG_CACHE_HOME, 'lro', 's3', s3.bucket, prefix);
  for (const half of ['files', 'parts']) {
    const dir = join(cache, half);
    expect(existsSync(dir) ? readdirSync(dir).filter((n) => n.includes(id)) : [], half).toEqual([]);
  }
}

/**
 * Every reader refuses the result: exit 2, nothing on stdout, one line naming it and saying it was changed. Each on
 * a machine of its own (an empty cache); the first as the built binary, the others in this process.
 */
async function allRefuse(env: Record<string, string>, prefix: string, id: string, readers: string[][], what: string): Promise<void> {
  for (const [i, args] of readers.entries()) {
    const machine = freshMachine(env);
    const r = await (i === 0 ? lro : lroHere)([args[0], id, ...args.slice(1)], { env: machine });
    const label = `${what}: ${args.join(' ')}`;
    expect(r.code, `${label}: ${r.stderr}`).toBe(2);
    expect(r.out, label).toBe('');
    expect(r.out, label).not.toContain('HACKED');
    expect(r.stderr.trimEnd().split('\n'), label).toHaveLength(1);
    expect(r.stderr, label).toMatch(new RegExp(`^lro: result ${id} .*changed`));
    nothingCached(machine, prefix, id);
  }
}

describe('an object changed on the server', () => {
  for (const [name, change] of Object.entries(objectChanges)) {
    it(`(${name}) is refused by every reader, of part of it or of the whole`, async () => {
      const { env, id, key, prefix } = await stored();
      const body = Buffer.concat(change(linesOf(await getObject(key))));
      await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: body }));
      await allRefuse(env, prefix, id, [...partReaders, ...wholeReaders], name);
    }, 120_000);
  }

  it('a change at its start leaves its end readable, and the other way round: what is shown is checked', async () => {
    const local = { LRO_DIR: join(root, 'local') };
    const lid = (JSON.parse((await lroHere(['offload', '--force'], { input: big, env: local })).out) as { id: string }).id;
    const same = (s: string, x: string) => s.split(x).join('ID');
    for (const [at, reader] of [['start', ['read', '--tail', '2']], ['end', ['read', '--head', '3']]] as const) {
      const { env, id, key } = await stored();
      const lines = linesOf(await getObject(key));
      const i = at === 'start' ? 2 : lines.length - 1;
      lines[i] = edited(lines[i], 'INFO req', 'HACKED!!');
      await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: Buffer.concat(lines) }));
      const got = await lro([reader[0], id, ...reader.slice(1)], { env: freshMachine(env) });
      expect(got.code, got.stderr).toBe(0);
      expect(got.stderr).toBe('');
      const want = await lroHere([reader[0], lid, ...reader.slice(1)], { env: local });
      expect(same(got.out, id)).toBe(same(want.out, lid));
      const other = at === 'start' ? ['read', '--head', '3'] : ['read', '--tail', '2'];
      expect((await lro([other[0], id, ...other.slice(1)], { env: freshMachine(env) })).code).toBe(2);
    }
  }, 120_000);
});

/** The ranged answers' bodies rewritten on their way, as a faulty or hostile proxy would. */
const answerChanges: Record<string, Rewrite> = {
  // the first INFO after line 1 (or in an answer from inside the object)
  edit: (b, { from }) => {
    const at = b.indexOf('INFO', from === 0 ? b.indexOf(0x0a) + 1 : 0);
    const copy = Buffer.from(b);
    if (at >= 0) copy.write('HACK', at);
    return copy;
  },
  // line 1's count of records, one less
  header: (b, { from }) => (from === 0 ? Buffer.from(b.toString('latin1').replace(`"count":${COUNT}`, `"count":${COUNT - 1}`), 'latin1') : b),
  truncate: (b) => b.subarray(0, b.length - 100),
  extend: (b) => Buffer.concat([b, Buffer.from('"one more line"\n')]),
  // the first two whole lines after the first newline swapped
  reorder: (b) => {
    const a = b.indexOf(0x0a) + 1;
    const m = b.indexOf(0x0a, a) + 1;
    const e = b.indexOf(0x0a, m) + 1;
    return Buffer.concat([b.subarray(0, a), b.subarray(m, e), b.subarray(a, m), b.subarray(e)]);
  },
};

describe('a ranged answer changed on its way', () => {
  let result: { env: Record<string, string>; id: string; prefix: string };
  beforeAll(async () => {
    result = await stored();
  });

  for (const [name, rewrite] of Object.entries(answerChanges)) {
    it(`(${name}) is refused by every reader of part of the result`, async () => {
      s3.rewrite = (body, at) => (at.key.includes(result.id) ? rewrite(body, at) : body);
      try {
        await allRefuse(result.env, result.prefix, result.id, partReaders, name);
      } finally {
        s3.rewrite = null;
      }
    }, 120_000);
  }

  it('unchanged, the same readers answer (the checks pass what was stored)', async () => {
    for (const args of partReaders) {
      const r = await lro([args[0], result.id, ...args.slice(1)], { env: freshMachine(result.env) });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stderr).toBe('');
    }
  }, 120_000);
});

describe('a result written before block hashes', () => {
  it('reads from its start and its end as before, with a note that only a whole fetch checks it', async () => {
    const local = join(root, 'older');
    const r = await lro(['offload', '--force'], { input: big, env: { LRO_DIR: local } });
    const id = (JSON.parse(r.out) as { id: string }).id;
    const file = readFileSync(join(local, `lro-offload-${id}.jsonl`));
    // line 1 as an older lro wrote it: no `blocks` member (spaces where it was, as JSON allows)
    const nl = file.indexOf(0x0a);
    const line = file.subarray(0, nl).toString('utf8');
    const member = /,"blocks":\{[^}]*\}/.exec(line)![0];
    const older = Buffer.concat([Buffer.from(line.replace(member, ' '.repeat(member.length))), file.subarray(nl)]);
    const prefix = `old${++prefixes}`;
    await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `${prefix}/lro-offload-${id}.jsonl`, Body: older }));
    const env = s3.env(prefix);
    for (const args of [['read', '--head', '3'], ['read', '--tail', '2'], ['info']]) {
      const got = await lro([args[0], id, ...args.slice(1)], { env: freshMachine(env) });
      expect(got.code, got.stderr).toBe(0);
      const want = await lro([args[0], id, ...args.slice(1)], { env: { LRO_DIR: local } });
      if (args[0] === 'read') expect(got.out).toBe(want.out);
      expect(got.stderr).toBe(`lro: note: result ${id} was stored without block hashes (by an older lro): this part of it is not checked; it is checked when fetched whole (lro cat ${id})\n`);
    }
    const whole = await lro(['grep', id, '-c', 'INFO'], { env: freshMachine(env) });
    expect([whole.code, whole.out, whole.stderr]).toEqual([0, `${COUNT}\n`, '']);
  }, 120_000);
});

describe('a local store', () => {
  it('tells a changed file from a valid one as a remote store does: read refuses what it would show of it', async () => {
    const dir = join(root, 'local-changed');
    const id = (JSON.parse((await lro(['offload', '--force'], { input: big, env: { LRO_DIR: dir } })).out) as { id: string }).id;
    const path = join(dir, `lro-offload-${id}.jsonl`);
    const lines = linesOf(readFileSync(path));
    lines[2] = edited(lines[2], 'INFO req', 'HACKED!!');
    writeFileSync(path, Buffer.concat(lines));
    for (const args of [['read', '--head', '3'], ['read'], ['read', '--records', '2']]) {
      const r = await lro([args[0], id, ...args.slice(1)], { env: { LRO_DIR: dir } });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.out).toBe('');
      expect(r.stderr).toMatch(new RegExp(`^lro: result ${id} block 1 of 3 .* is not what was stored .*damaged`));
    }
    // its end is intact: read from the end shows it
    const tail = await lro(['read', id, '--tail', '2'], { env: { LRO_DIR: dir } });
    expect([tail.code, tail.out]).toEqual([0, `29999: 29998 INFO request 8 served in 3 ms ${'x'.repeat(50)}\n30000: 29999 INFO request 9 served in 4 ms ${'x'.repeat(50)}\n`]);
    // cut by its last line: every read says so, the start's too (line 1 gives the size)
    writeFileSync(path, Buffer.concat(linesOf(readFileSync(path)).slice(0, -1)));
    const cut = await lro(['read', id, '--tail', '2'], { env: { LRO_DIR: dir } });
    expect([cut.code, cut.out]).toEqual([2, '']);
    expect(cut.stderr).toContain('is shorter than stored');
  });
});
