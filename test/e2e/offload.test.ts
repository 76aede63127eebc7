// End-to-end: `lro offload`, `lro cat`, `lro info` on the bad inputs the foundation must survive.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, chownSync, closeSync, mkdirSync, openSync, readFileSync, readSync, statSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { cleanup, lro, ls, tempDir } from '../helpers/cli.js';
import { traced } from '../helpers/traced.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';

let root: string;
let store: string;
const env = () => ({ LRO_DIR: store });

beforeAll(() => {
  root = tempDir();
  store = join(root, 'store');
});
afterAll(() => cleanup(root));

/** Offloads with --force (or the given args) and returns the parsed descriptor. */
async function offloadForce(input: Buffer | string, args: string[] = ['--force']) {
  const r = await lro(['offload', ...args], { input, env: env() });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.out) as { id: string; file_path: string; summary: Record<string, unknown>; [k: string]: unknown };
}

async function catBack(id: string): Promise<Buffer> {
  const r = await lro(['cat', id], { env: env() });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

function header(path: string): Record<string, unknown> {
  const text = readFileSync(path, 'utf8');
  return JSON.parse(text.slice(0, text.indexOf('\n')));
}

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

describe('lro offload: passthrough and threshold', () => {
  it('passes small input through unchanged and stores nothing', async () => {
    const fresh = join(root, 'never-created');
    const r = await lro(['offload'], { input: 'hi\n', env: { LRO_DIR: fresh } });
    expect(r.code).toBe(0);
    expect(r.out).toBe('hi\n');
    expect(ls(fresh)).toEqual([]);
  });

  it('passes empty input through, and stores it (0 records) with --force', async () => {
    const r = await lro(['offload'], { input: '', env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBe(0);
    const d = await offloadForce('');
    expect(d.summary.count).toBe(0);
    expect((await catBack(d.id)).length).toBe(0);
  });

  it('decides exactly at the threshold: N tokens pass, N+1 are stored', async () => {
    const tok = getTokenizer('o200k_base');
    let text = 'alpha beta gamma delta\n'.repeat(40);
    const n = tok.count(text);
    expect(n).toBeGreaterThan(100);
    const atThreshold = await lro(['offload', '--threshold', String(n)], { input: text, env: env() });
    expect(atThreshold.out).toBe(text);
    const above = await lro(['offload', '--threshold', String(n - 1)], { input: text, env: env() });
    expect(JSON.parse(above.out).offloaded).toBe(true);
    expect(JSON.parse(above.out).summary.estimated_tokens).toBe(n);
    // input of exactly `threshold` bytes passes without counting tokens
    text = 'x'.repeat(500);
    const bytes = await lro(['offload', '--threshold', '500'], { input: text, env: env() });
    expect(bytes.out).toBe(text);
  });

  it('reads the threshold from LRO_THRESHOLD_TOKENS and --json wraps a passthrough', async () => {
    const r = await lro(['offload', '--json'], { input: 'small output', env: { ...env(), LRO_THRESHOLD_TOKENS: '100' } });
    expect(JSON.parse(r.out)).toEqual({ offloaded: false, content: 'small output' });
    const big = await lro(['offload'], { input: 'word '.repeat(200), env: { ...env(), LRO_THRESHOLD_TOKENS: '100' } });
    expect(JSON.parse(big.out).offloaded).toBe(true);
  });

  it('rejects bad options with exit 2 and one line', async () => {
    for (const args of [['--threshold', 'ten'], ['--ttl', 'forever'], ['--meta', 'novalue'], ['--format', 'xml'], ['--bogus']]) {
      const r = await lro(['offload', ...args], { input: 'x', env: env() });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^lro: /);
    }
  });
});

// The threshold is decided on the exact count of the input's start, cut where the pre-tokenizer cuts. Text whose
// every line is indented and ends in punctuation (a Java thread dump, pretty-printed JSON) had no such place, so
// the decision waited for the end of the input and all of it was held in memory: 143 MB of RSS for 60 MB of this,
// 247 MB for a 120 MB JSON document.
describe('lro offload: indented lines, every one ending in punctuation', () => {
  it('are stored in bounded memory: the threshold is decided at their start', async () => {
    const path = join(root, 'thread-dump.txt');
    const block = Array.from({ length: 1000 }, (_, i) => `\tat com.example.service.Handler${i % 37}.process(Handler${i % 37}.java:${i})`).join('\n') + '\n';
    const fd = openSync(path, 'w');
    const hash = createHash('sha256');
    let bytes = 0;
    while (bytes < 80 << 20) {
      writeSync(fd, block);
      hash.update(block);
      bytes += block.length;
    }
    closeSync(fd);
    const r = await traced(['offload', '--no-dedupe'], env(), root, 120_000, `exec < '${path}';`);
    expect(r.code, r.stderr).toBe(0);
    const d = JSON.parse(r.out) as { file_path: string; summary: { bytes: number; content_type: string } };
    expect(d.summary).toMatchObject({ bytes, content_type: 'text' });
    const head = Buffer.alloc(1 << 16);
    const rf = openSync(d.file_path, 'r');
    readSync(rf, head, 0, head.length, 0);
    closeSync(rf);
    expect(JSON.parse(head.toString('utf8', 0, head.indexOf('\n'))).sha256).toBe(hash.digest('hex'));
    expect(r.rssMb).toBeLessThan(135); // 100 MB measured; holding the input took 143 MB for 60 MB of it
  }, 120_000);
});

describe('lro offload: a malformed LRO_* variable never drops the output', () => {
  const bad: Record<string, string> = { LRO_SESSION: 'a\tb', LRO_TTL: 'bogus', LRO_THRESHOLD_TOKENS: 'ten', LRO_REDACT: 'maybe' };
  const small = Array.from({ length: 10 }, (_, i) => `${i + 1}\n`).join('');
  const large = 'the quick brown fox jumps over the lazy dog\n'.repeat(2000);

  it('passes a small output through unchanged, exit 0, one line naming the variable and the fix', async () => {
    for (const [name, value] of Object.entries(bad)) {
      const fresh = join(root, `env-small-${name}`);
      const r = await lro(['offload'], { input: small, env: { LRO_DIR: fresh, [name]: value } });
      expect(r.code, name).toBe(0);
      expect(r.out, name).toBe(small);
      expect(r.stderr, name).toMatch(new RegExp(`^lro: invalid ${name} [^\n]*, or unset ${name} \\(until then no output is stored[^\n]*\n$`));
      expect(ls(fresh), name).toEqual([]);
    }
  });

  it('cuts a large output to the threshold with the one warning line, stores nothing, exit 0', async () => {
    for (const [name, value] of Object.entries(bad)) {
      const fresh = join(root, `env-large-${name}`);
      const r = await lro(['offload'], { input: large, env: { LRO_DIR: fresh, [name]: value } });
      expect(r.code, name).toBe(0);
      expect(r.out.startsWith('the quick brown fox jumps over the lazy dog\n'), name).toBe(true);
      const warning = new RegExp(`^lro: output truncated to 6400 of ~\\d+ tokens: could not store the full result \\(invalid ${name} .*or unset ${name}\\)$`);
      expect(r.stderr.trim(), name).toMatch(warning);
      expect(r.out.trimEnd().split('\n').pop(), name).toBe(`[${r.stderr.trim()}]`);
      expect(ls(fresh), name).toEqual([]);
    }
  });

  it('a malformed LRO_REDACT errs on the safe side: what passes through is redacted', async () => {
    const secret = `token ghp_${'a1B2c3D4e5'.repeat(3)}abcdef\n`;
    const r = await lro(['offload'], { input: secret, env: { ...env(), LRO_REDACT: 'maybe' } });
    expect(r.code).toBe(0);
    expect(r.out).toBe('token [REDACTED:github-pat]\n');
    expect(r.stderr).toMatch(/^lro: invalid LRO_REDACT 'maybe': use 1 \(redact\) or 0, or unset LRO_REDACT/);
  });

  it('--json carries the warning beside the content', async () => {
    const r = await lro(['offload', '--json'], { input: small, env: { ...env(), LRO_TTL: 'bogus' } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ offloaded: false, content: small, warning: r.stderr.trim() });
  });
});

describe('lro offload: content that must come back exactly', () => {
  const cases: [string, Buffer][] = [
    ['CRLF lines', Buffer.from('one\r\ntwo\r\nthree\r\n')],
    ['mixed line endings', Buffer.from('one\r\ntwo\nthree\r\nfour\rfive\n')],
    ['CRLF then a bare LF far into the input', Buffer.concat([Buffer.from('crlf line\r\n'.repeat(20000)), Buffer.from('lf line\nlast\r\n')])],
    ['no final newline', Buffer.from('first\nsecond\nthird')],
    ['only newlines', Buffer.from('\n\n\n')],
    ['invalid UTF-8 and NUL bytes', Buffer.from([0x61, 0xff, 0xfe, 0x0a, 0x00, 0x62, 0xc3, 0x28, 0x0a, 0xed, 0xa0, 0x80, 0xf0, 0x9f, 0x98, 0x80, 0xf0, 0x9f])],
    ['control characters and quotes', Buffer.from('tab\there "quoted" back\\slash \x1b[31mred\x1b[0m \x7f\n')],
    ['a lone CR at the end', Buffer.from('line\r')],
  ];
  for (const [name, input] of cases) {
    it(name, async () => {
      const d = await offloadForce(input);
      const back = await catBack(d.id);
      expect(back.equals(input)).toBe(true);
      expect(header(d.file_path).sha256).toBe(sha(input));
    });
  }

  it('stores CRLF text with line_ending crlf and records without the CR', async () => {
    const d = await offloadForce('a\r\nb\r\n');
    const h = header(d.file_path);
    expect(h.line_ending).toBe('crlf');
    expect(readFileSync(d.file_path, 'utf8').split('\n').slice(1)).toEqual(['"a"', '"b"', '']);
  });

  it('stores one 20 MB line with no newline, streaming it', async () => {
    const line = Buffer.alloc(20 << 20, 'abcdefghij klmnopqrst uvwxyz 0123456789 ');
    const d = await offloadForce(line);
    expect(d.summary.count).toBe(1);
    expect((await catBack(d.id)).equals(line)).toBe(true);
  });

  it('counts 1 MB of one repeated character in seconds (the tokenizer trap)', async () => {
    const input = 'a'.repeat(1 << 20);
    const start = Date.now();
    const r = await lro(['offload'], { input, env: env(), timeout: 30_000 });
    expect(r.code).toBe(0);
    expect(Date.now() - start).toBeLessThan(30_000);
    const d = JSON.parse(r.out);
    expect(d.offloaded).toBe(true);
    expect(d.summary.estimated_tokens).toBeGreaterThan(1000);
    expect((await catBack(d.id)).toString()).toBe(input);
  });
});

describe('lro offload: JSON', () => {
  it('splits a JSON array of 100k objects into 100k records with value counts', async () => {
    const items = Array.from({ length: 100_000 }, (_, i) => ({ id: i, status: i % 25 === 0 ? 'error' : 'success', ms: i % 97 }));
    const input = JSON.stringify(items);
    const d = await offloadForce(input, []);
    expect(d.summary.content_type).toBe('json');
    expect(d.summary.count).toBe(100_000);
    expect(d.summary.top_values).toMatchObject({ '.status': { success: 96_000, error: 4_000 } });
    const lines = readFileSync(d.file_path, 'utf8').split('\n');
    expect(lines[1]).toBe('{"id":0,"status":"error","ms":0}');
    expect(JSON.parse((await catBack(d.id)).toString())).toEqual(items);
  });

  it('splits a pretty-printed object on its big items array and keeps the envelope', async () => {
    const doc = { kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: '123' }, items: Array.from({ length: 3000 }, (_, i) => ({ name: `pod-${i}`, phase: i % 10 ? 'Running' : 'Pending' })) };
    const d = await offloadForce(JSON.stringify(doc, null, 2), []);
    const h = header(d.file_path);
    expect(h.split).toBe('path');
    expect(h.path).toEqual(['items']);
    expect(h.envelope).toEqual({ kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: '123' }, items: [] });
    expect(d.summary.count).toBe(3000);
    expect(JSON.parse((await catBack(d.id)).toString())).toEqual(doc);
  });

  // past JSON_MEMORY_MAX (4 MB) a document is spooled and read back for each pass, into one buffer reused
  it('spooled (over 4 MB): splits a pretty-printed document on its items, and a broken one comes back whole as text', async () => {
    const doc = { kind: 'List', items: Array.from({ length: 40_000 }, (_, i) => ({ name: `pod-${i}`, labels: { app: `a${i % 7}` }, restarts: i % 3 })) };
    const pretty = JSON.stringify(doc, null, 4);
    expect(pretty.length).toBeGreaterThan(5 << 20);
    const d = await offloadForce(pretty, []);
    expect(d.summary).toMatchObject({ content_type: 'json', count: 40_000 });
    expect(readFileSync(d.file_path, 'utf8').split('\n')[40_000]).toBe('{"name":"pod-39999","labels":{"app":"a1"},"restarts":0}');
    expect(JSON.parse((await catBack(d.id)).toString())).toEqual(doc);
    const broken = pretty.slice(0, -3); // the producer was cut short: not one JSON document
    const b = await offloadForce(broken, ['--no-dedupe']);
    expect(b.summary.content_type).toBe('text');
    expect((await catBack(b.id)).toString()).toBe(broken);
  });

  it('keeps integers beyond 2^53 digit for digit', async () => {
    const input = '{"total": 12345678901234567890, "items": [{"id": 12345678901234567890, "x": 1.000000000000000005}, {"id": -98765432109876543210e-5}]}';
    const d = await offloadForce(input);
    const file = readFileSync(d.file_path, 'utf8');
    expect(file).toContain('{"id":12345678901234567890,"x":1.000000000000000005}');
    expect(file).toContain('"envelope":{"total":12345678901234567890,"items":[]}');
    const back = (await catBack(d.id)).toString();
    expect(back).toBe('{"total":12345678901234567890,"items":[{"id":12345678901234567890,"x":1.000000000000000005},{"id":-98765432109876543210e-5}]}');
  });

  it('stores JSONL with one broken line, listing it, and gives it all back', async () => {
    const lines = Array.from({ length: 500 }, (_, i) => JSON.stringify({ n: i, level: i % 50 ? 'info' : 'error' }));
    lines[123] = '{"n": 123, "level": "info"  <- truncated by the producer';
    const input = `${lines.join('\n')}\n`;
    const d = await offloadForce(input);
    expect(d.summary.content_type).toBe('jsonl');
    expect(d.summary.invalid_records).toEqual([124]);
    expect(header(d.file_path).invalid_records).toEqual([124]);
    expect((await catBack(d.id)).toString()).toBe(input);
  });

  it('stores a JSONL with mostly broken lines as text', async () => {
    const input = `{"a":1}\n{"a":2}\n${'not json at all\n'.repeat(1500)}`;
    const d = await offloadForce(input);
    expect(d.summary.content_type).toBe('text');
    expect((await catBack(d.id)).toString()).toBe(input);
  });

  it('stores concatenated pretty JSON values (not one document) as text', async () => {
    const input = `${JSON.stringify({ a: 1 }, null, 2)}\n${JSON.stringify({ a: 2 }, null, 2)}\n`;
    const d = await offloadForce(input);
    expect(d.summary.content_type).toBe('text');
    expect((await catBack(d.id)).toString()).toBe(input);
  });

  it('falls back from a forced --format json with a note when the input is not JSON', async () => {
    const r = await lro(['offload', '--force', '--format', 'json'], { input: 'plain text\n', env: env() });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/not json/);
    const d = JSON.parse(r.out);
    expect(d.summary.content_type).toBe('text');
  });
});

describe('lro offload: header, naming, descriptor', () => {
  it('writes every header field and a 0600 file named lro-<operation>-<id>.jsonl in a 0700 store', async () => {
    const d = await offloadForce('hello\n', ['--force', '--operation', 'Kubectl Get Pods!', '--query', 'get pods', '--session', 's1', '--meta', 'team=infra', '--meta', 'k=v=w', '--ttl', '90s']);
    expect(d.file_path).toMatch(/\/lro-kubectl-get-pods-[0-9A-HJKMNP-TV-Z]{26}\.jsonl$/);
    const h = header(d.file_path);
    expect(h).toMatchObject({
      type: 'lro_header',
      schema_version: 'lro/1',
      id: d.id,
      operation: 'kubectl-get-pods',
      query: 'get pods',
      count: 1,
      encoding: 'o200k_base',
      detail: 'full',
      content_type: 'text',
      bytes: 6,
      sha256: sha('hello\n'),
      ttl_seconds: 90,
      session: 's1',
      meta: { team: 'infra', k: 'v=w' },
    });
    expect(Date.parse(h.expires_at as string) - Date.parse(h.timestamp as string)).toBe(90_000);
    expect(statSync(d.file_path).mode & 0o777).toBe(0o600);
    expect(statSync(store).mode & 0o777).toBe(0o700);
  });

  it('gives ids that sort by time', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await offloadForce(`n${i}\n`)).id);
    expect([...ids].sort()).toEqual(ids);
  });

  it('describes text: error lines with numbers, head and tail, runnable guidance', async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `2026-01-01 INFO step ${i} ok`);
    lines[2990] = '2026-01-01 ERROR step 2990 failed: connection refused';
    const d = await offloadForce(`${lines.join('\n')}\n`, []);
    const preview = d.preview as { head: string[]; tail: string[]; errors: string[] };
    expect(preview.errors[0]).toBe('2991: 2026-01-01 ERROR step 2990 failed: connection refused');
    expect(preview.head[0]).toBe('1: 2026-01-01 INFO step 0 ok');
    expect(preview.tail.at(-1)).toBe('3000: 2026-01-01 INFO step 2999 ok');
    expect(d.summary).toMatchObject({ error_lines: 1, levels: { INFO: 2999, ERROR: 1 } });
    expect(d.guidance).toContain(d.id);
    expect(d.guidance).toContain('--records 2986:3000'); // (to the last line: a range past it reads nothing more)
  });

  it('keeps the descriptor small for a wide, nested document (a pod list)', async () => {
    const pod = (i: number) => ({
      metadata: { name: `pod-${i}`, namespace: i % 3 ? 'default' : 'kube-system', labels: { app: `a${i % 7}`, tier: 'web' }, annotations: { note: 'x'.repeat(50) } },
      spec: { containers: [{ name: 'c', image: 'nginx:1.25', resources: { limits: { cpu: '1', memory: '1Gi' } }, env: [{ name: 'A', value: 'B' }] }], nodeName: `node-${i % 5}` },
      status: { phase: i % 20 ? 'Running' : 'Failed', conditions: [{ type: 'Ready', status: 'True' }], podIP: `10.0.0.${i % 250}` },
    });
    const doc = { apiVersion: 'v1', kind: 'List', items: Array.from({ length: 400 }, (_, i) => pod(i)) };
    const r = await lro(['offload'], { input: JSON.stringify(doc, null, 2), env: env() });
    const tokens = getTokenizer('o200k_base').count(r.out);
    expect(tokens).toBeLessThanOrEqual(1000);
    const d = JSON.parse(r.out);
    expect(d.summary.top_values['.status.phase']).toEqual({ Running: 380, Failed: 20 });
    expect(d.jq_recipes[0].command).toBe(`lro jq ${d.id} -c 'select(.status.phase == "Failed")'`);
    expect(d.jq_recipes[0].plain).toBe(`tail -n +2 ${d.file_path} | jq -c 'select(.status.phase == "Failed")'`);
  });

  it('prints a prose descriptor with --descriptor text, and info gives the same descriptor again', async () => {
    const input = Array.from({ length: 2000 }, (_, i) => `line ${i} of a long log with some words in it`).join('\n');
    const r = await lro(['offload', '--descriptor', 'text'], { input, env: env() });
    expect(r.out).toMatch(/^Output offloaded: 2,000 lines of text/);
    const id = /id: (\S+)/.exec(r.out)![1];
    const info = await lro(['info', id, '--descriptor', 'text'], { env: env() });
    expect(info.out).toBe(r.out);
    const j = await lro(['info', id], { env: env() });
    expect(JSON.parse(j.out).id).toBe(id);
  });
});

describe('lro offload: when the store cannot be written', () => {
  const bigInput = Array.from({ length: 20000 }, (_, i) => `row ${i}: the quick brown fox jumps over the lazy dog`).join('\n');

  function expectFallback(r: Awaited<ReturnType<typeof lro>>) {
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^lro: output truncated to 6400 of ~\d+ tokens: could not store the full result/);
    expect(r.out.startsWith('row 0: the quick brown fox')).toBe(true);
    expect(r.out).toMatch(/\[lro: output truncated to 6400 of ~\d+ tokens: could not store the full result.*\]\n$/);
    const body = r.out.slice(0, r.out.lastIndexOf('\n['));
    expect(getTokenizer('o200k_base').count(body)).toBeLessThanOrEqual(6400);
    expect(body.length).toBeGreaterThan(1000);
  }

  it('store is a symlink', async () => {
    const real = join(root, 'real-dir');
    mkdirSync(real, { mode: 0o700 });
    const link = join(root, 'link-store');
    symlinkSync(real, link);
    const r = await lro(['offload'], { input: bigInput, env: { LRO_DIR: link } });
    expectFallback(r);
    expect(r.stderr).toMatch(/symlink/);
    expect(ls(real)).toEqual([]);
  });

  it('store is writable by others', async () => {
    const dir = join(root, 'open-dir');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    const r = await lro(['offload'], { input: bigInput, env: { LRO_DIR: dir } });
    expectFallback(r);
    expect(r.stderr).toMatch(/writable by others/);
  });

  it('store is owned by someone else', async () => {
    const dir = join(root, 'foreign-dir');
    mkdirSync(dir, { mode: 0o700 });
    if (process.getuid!() === 0) chownSync(dir, 65534, 65534);
    const target = process.getuid!() === 0 ? dir : '/';
    const r = await lro(['offload'], { input: bigInput, env: { LRO_DIR: target } });
    expectFallback(r);
    expect(r.stderr).toMatch(/owned by uid/);
  });

  it('store is not writable', async () => {
    const dir = join(root, 'readonly-dir');
    mkdirSync(dir, { mode: 0o700 });
    let opts = {};
    if (process.getuid!() === 0) {
      // root writes anywhere; run lro as nobody in a store nobody owns but may not write
      chownSync(root, 65534, 65534);
      chmodSync(root, 0o755);
      chownSync(dir, 65534, 65534);
      opts = { uid: 65534, gid: 65534 };
    }
    chmodSync(dir, 0o500);
    const r = await lro(['offload'], { input: bigInput, env: { LRO_DIR: dir, HOME: '/tmp' }, ...opts });
    expectFallback(r);
    expect(r.stderr).toMatch(/EACCES/);
    expect(ls(dir)).toEqual([]);
    if (process.getuid!() === 0) chownSync(root, 0, 0);
  });

  /**
   * A store whose directory cannot be written, and how to run lro on it: as root (who writes anywhere), lro runs as
   * nobody in a store nobody owns. `writable` first, to store something in it; then read-only.
   */
  function readOnlyStore(name: string) {
    const parent = tempDir();
    chmodSync(parent, 0o755);
    const dir = join(parent, name);
    mkdirSync(dir, { mode: 0o700 });
    const asRoot = process.getuid!() === 0;
    if (asRoot) chownSync(dir, 65534, 65534);
    const opts = { env: { LRO_DIR: dir, HOME: '/tmp' }, ...(asRoot ? { uid: 65534, gid: 65534 } : {}) };
    const done = () => {
      chmodSync(dir, 0o700);
      cleanup(parent);
    };
    return { dir, opts, lock: () => chmodSync(dir, 0o555), done };
  }

  it('store is read-only but holds the same output already: its descriptor, not a truncation', async () => {
    const store = readOnlyStore('ro-dedupe');
    try {
      const first = await lro(['offload'], { input: bigInput, ...store.opts });
      expect(first.code, first.stderr).toBe(0);
      const stored = JSON.parse(first.out) as { id: string; file_path: string };
      store.lock();
      const again = await lro(['offload'], { input: bigInput, ...store.opts });
      expect(again.code).toBe(0);
      const d = JSON.parse(again.out) as { offloaded: boolean; id: string; file_path: string };
      expect(d).toMatchObject({ offloaded: true, id: stored.id, file_path: stored.file_path });
      expect(again.stderr).toBe(`lro: the store ${store.dir} cannot be written (EACCES): answered with the same output stored there before\n`);
      // another output still falls back, and the message names the store, not an internal /proc/self/fd path
      const other = await lro(['offload'], { input: `${bigInput}\nanother line`, ...store.opts });
      expectFallback(other);
      expect(other.stderr).not.toMatch(/\/proc\/self/);
      expect(other.stderr).toContain(`(EACCES: permission denied, open '${store.dir}/.lro-`);
    } finally {
      store.done();
    }
  });

  it('store cannot be created where the system says ENOENT under an existing parent (/proc): no endless mkdir', async () => {
    // (Node 20's recursive mkdir retried such a path forever)
    const r = await lro(['offload'], { input: bigInput, env: { LRO_DIR: '/proc/lro-store-here' } });
    expectFallback(r);
    expect(r.stderr).toMatch(/cannot create the store \/proc\/lro-store-here: ENOENT/);
  });

  // one line of a known token count, repeated: the input's tokens are that count times the lines
  const uniform = () => {
    const line = 'the quick brown fox jumps over the lazy dog 0123\n';
    const lines = 120_000; // 6 MB: past the 4 MB kept for the fallback and the 1 MB read ahead
    return { input: line.repeat(lines), tokens: getTokenizer('o200k_base').count(line) * lines };
  };
  const estimate = (stderr: string) => Number(/of ~(\d+) tokens/.exec(stderr)?.[1]);

  it('estimates the tokens of the whole input when the store cannot be opened', async () => {
    const real = join(root, 'estimate-real');
    mkdirSync(real, { mode: 0o700 });
    const link = join(root, 'estimate-link');
    symlinkSync(real, link);
    const { input, tokens } = uniform();
    const r = await lro(['offload'], { input, env: { LRO_DIR: link } });
    expect(r.code).toBe(0);
    expect(Math.abs(estimate(r.stderr) - tokens) / tokens, r.stderr).toBeLessThan(0.02);
  });

  it('estimates the tokens of the whole input when the disk fills up mid-write (the read-ahead counted once)', async () => {
    const { input, tokens } = uniform();
    const r = await lro(['offload'], { input, env: { LRO_DIR: join(root, 'estimate-full') }, shellPrefix: 'ulimit -f 4096;' });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/EFBIG/);
    expect(Math.abs(estimate(r.stderr) - tokens) / tokens, r.stderr).toBeLessThan(0.02);
  });

  it('disk fills up mid-write: nothing partial is left visible', async () => {
    const dir = join(root, 'small-disk');
    const big = Buffer.alloc(30 << 20, 'a line of text that goes on and on\n');
    // RLIMIT_FSIZE of 8 MB: the write fails with EFBIG part way
    const r = await lro(['offload'], { input: big, env: { LRO_DIR: dir }, shellPrefix: 'ulimit -f 16384;' });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/EFBIG/);
    expect(r.out.startsWith('a line of text')).toBe(true);
    expect(ls(dir)).toEqual([]);
  });
});

describe('lro cat and info: errors', () => {
  it('refuses bad ids with a clear line and exit 2', async () => {
    for (const ref of ['../etc/passwd', 'nope', '01ARZ3NDEKTSV4RRFFQ69G5FAV', '/etc/passwd', 'a'.repeat(5000)]) {
      const r = await lro(['cat', ref], { env: env() });
      expect(r.code, ref.slice(0, 30)).toBe(2);
      expect(r.stderr).toMatch(/^lro: /);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('refuses a symlink to a result and a non-lro file', async () => {
    const d = await offloadForce('x\n');
    const link = join(root, `lro-offload-${d.id}.jsonl`);
    symlinkSync(d.file_path, link);
    const r = await lro(['cat', link], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/symlink/);
    const fake = join(root, 'lro-offload-01ARZ3NDEKTSV4RRFFQ69G5FAV.jsonl');
    writeFileSync(fake, 'not a header\n');
    const f = await lro(['cat', fake], { env: env() });
    expect(f.code).toBe(2);
    expect(f.stderr).toMatch(/not a JSON header/);
  });

  it('reports a damaged file instead of printing a wrong original', async () => {
    const d = await offloadForce('one\ntwo\nthree\n');
    const text = readFileSync(d.file_path, 'utf8');
    writeFileSync(d.file_path, text.replace('"two"', '"tw0"'));
    const r = await lro(['cat', d.id], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/sha256/);
    writeFileSync(d.file_path, text.slice(0, text.lastIndexOf('"three"')));
    const t = await lro(['cat', d.id], { env: env() });
    expect(t.code).toBe(2);
    expect(t.stderr).toMatch(/truncated/);
  });

  it('resolves last to the newest result', async () => {
    const d = await offloadForce('newest\n');
    const r = await lro(['cat', 'last'], { env: env() });
    expect(r.out).toBe('newest\n');
    expect(d.id).toBeTruthy();
  });
});
