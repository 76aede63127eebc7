// End-to-end: secrets. `--redact` (and LRO_REDACT=1) replaces them before anything is stored or printed, passthrough
// included; without it the stored content keeps them, the header counts them (possible_secrets) and the
// descriptor names the rules but never shows a value. The input is a real log with secrets planted from
// gitleaks' own examples.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, lro, storeEnv, tempDir } from '../helpers/cli.js';

const root = tempDir('lro-secrets-');
const env = storeEnv(root);
afterAll(() => cleanup(root));

interface Examples {
  rules: Record<string, { tps: string[]; samples: { identifier: string; secret: string }[] }>;
}
const examples = JSON.parse(readFileSync(resolve(__dirname, '../secrets/fixtures/gitleaks-examples.json'), 'utf8')) as Examples;

/** Planted secrets: [rule, line that holds it, the secret's value]. */
const PLANTED: [string, string, string][] = [
  ...['github-pat', 'aws-access-token', 'gitlab-pat', 'openai-api-key', 'shopify-access-token', 'digitalocean-pat', 'twilio-api-key', 'pypi-upload-token'].map(
    (rule): [string, string, string] => {
      const s = examples.rules[rule].samples[examples.rules[rule].samples.length - 1];
      return [rule, `2026-11-23 10:00:00 INFO deploy: ${s.identifier.toUpperCase()}_TOKEN=${s.secret} (from vault)`, s.secret];
    },
  ),
  ['slack-bot-token', 'config loaded: {"bot_token1": "xoxb-781236542736-2364535789652-GkwFDQoHqzXDVsC6GzqYUypD"}', 'xoxb-781236542736-2364535789652-GkwFDQoHqzXDVsC6GzqYUypD'],
  ['lro-url-password', 'connecting to postgres://app:S3cr3tPa55w0rd@db.internal:5432/app', 'S3cr3tPa55w0rd'],
  ['jwt', `auth header: Bearer ${examples.rules.jwt.tps[1].slice('JWT := '.length)}`, examples.rules.jwt.tps[1].slice('JWT := '.length)],
];
const PEM = examples.rules['private-key'].tps[1].trimEnd();
const PEM_BODY = PEM.split('\n')[1];

const log = readFileSync(resolve(__dirname, '../../fixtures/corpus/loghub/Android_2k.log'), 'utf8').split('\n').slice(0, 800);
const planted = [...log.slice(0, 300), ...PLANTED.map((p) => p[1]), PEM, ...log.slice(300)].join('\n') + '\n';

async function offload(input: string, args: string[], extraEnv: Record<string, string> = {}) {
  const r = await lro(['offload', ...args], { input, env: { ...env, ...extraEnv } });
  expect(r.code, r.stderr).toBe(0);
  return r;
}
const header = async (id: string) => JSON.parse((await lro(['info', id, '--header'], { env })).out) as Record<string, unknown>;

describe('--redact', () => {
  it('replaces every planted secret before storing; header, descriptor, cat, grep and read agree', async () => {
    const r = await offload(planted, ['--redact']);
    const d = JSON.parse(r.out) as { id: string; summary: Record<string, unknown>; guidance: string };
    const h = await header(d.id);
    const want: Record<string, number> = Object.fromEntries(PLANTED.map((p) => [p[0], 1]));
    want['private-key'] = 1;
    expect(h.redacted).toEqual(Object.fromEntries(Object.entries(want).sort(([a], [b]) => (a < b ? -1 : 1))));
    expect(h.content_redacted).toBe(true);
    expect(h.possible_secrets).toBeUndefined();
    expect(d.summary.redacted).toEqual(h.redacted);
    expect(d.guidance).toContain('replaced by [REDACTED:<rule>]');
    const cat = await lro(['cat', d.id], { env });
    expect(cat.code).toBe(0);
    expect(cat.stderr).toBe(''); // cat says nothing else
    for (const [rule, line, secret] of PLANTED) {
      expect(cat.out, rule).not.toContain(secret);
      expect(cat.out).toContain(line.replace(secret, `[REDACTED:${rule}]`));
      expect((await lro(['grep', d.id, secret, '-F'], { env })).code, `grep ${rule}`).toBe(1);
    }
    expect(cat.out).not.toContain(PEM_BODY);
    expect(cat.out).toContain('\n[REDACTED:private-key]\n');
    // the rest is byte for byte the input; sha256 and bytes are of what was stored
    const expected = PLANTED.reduce((t, [rule, , secret]) => t.replace(secret, `[REDACTED:${rule}]`), planted).replace(PEM, '[REDACTED:private-key]');
    expect(cat.out).toBe(expected);
    expect(h.bytes).toBe(Buffer.byteLength(expected));
    expect(h.sha256).toBe((await import('node:crypto')).createHash('sha256').update(expected).digest('hex'));
    expect((await lro(['grep', d.id, 'REDACTED:github-pat', '-c'], { env })).out.trim()).toBe('1');
  });

  it('LRO_REDACT=1 does the same; --no-redact overrides it; a bad value redacts and warns, the output still passes', async () => {
    const a = JSON.parse((await offload(planted, ['--no-dedupe'], { LRO_REDACT: '1' })).out) as { id: string };
    expect((await header(a.id)).content_redacted).toBe(true);
    const b = JSON.parse((await offload(planted, ['--no-redact'], { LRO_REDACT: '1' })).out) as { id: string };
    expect((await header(b.id)).redacted).toBeUndefined();
    const bad = await lro(['offload'], { input: 'x', env: { ...env, LRO_REDACT: 'maybe' } });
    expect(bad.code).toBe(0);
    expect(bad.out).toBe('x');
    expect(bad.stderr).toMatch(/^lro: invalid LRO_REDACT 'maybe': use 1/);
  });

  it('redacts what passes through (below the threshold) too, and what lro run prints', async () => {
    const small = `token ${PLANTED[0][2]}\npostgres://app:S3cr3tPa55w0rd@db/app\n`;
    const p = await offload(small, ['--redact']);
    expect(p.out).toBe('token [REDACTED:github-pat]\npostgres://app:[REDACTED:lro-url-password]@db/app\n');
    const j = await offload(small, ['--json'], { LRO_REDACT: '1' });
    expect(JSON.parse(j.out).content).toBe(p.out);
    const run = await lro(['run', '--redact', '--', 'printf', '%s', small], { env });
    expect(run.out).toBe(p.out);
    expect((await offload(small, [])).out).toBe(small); // without --redact, untouched
  });

  it('dedupes on the redacted content: the same redacted output gets the same id', async () => {
    const a = await offload(planted, ['--redact', '--session', 'dedupe']);
    const b = await offload(planted, ['--redact', '--session', 'dedupe']);
    expect(b.out).toBe(a.out);
    const other = planted.replace(PLANTED[0][2], PLANTED[0][2].slice(0, -1) + (PLANTED[0][2].endsWith('A') ? 'B' : 'A'));
    const c = await offload(other, ['--redact', '--session', 'dedupe']);
    expect(c.out).toBe(a.out); // a different secret, the same redacted output
  });
});

describe('--redact, secrets by key name (issue 27)', () => {
  // the tester's misses: a password in JSON, in an ini file, escaped in a JSONL record, URLs with an encoded or a
  // raw `@`; and values that are not secrets, which stay
  const input = [
    '{"user": "admin", "password": "Xk9#mP2$vL5!"}',
    '[database]',
    'password = hunter2abc',
    'DB_PASSWORD=Zq8!vLm3#Rt1',
    '{"level":"info","body":"{\\"db\\":{\\"password\\":\\"Xk9#mP2$vL5!\\"}}"}',
    'postgres://app:p%40ss%2Fw0rd@db.internal/app',
    'postgres://app:p@ss@db.internal/app',
    'password: ${DB_PASSWORD}',
    '"password": ""',
    'password_hash_algorithm: bcrypt',
    'password_required: true',
    '',
  ].join('\n');
  const expected = input
    .replace('"Xk9#mP2$vL5!"', '"[REDACTED:lro-keyed-secret]"')
    .replace('hunter2abc', '[REDACTED:lro-keyed-secret]')
    .replace('Zq8!vLm3#Rt1', '[REDACTED:lro-keyed-secret]')
    .replace('\\"Xk9#mP2$vL5!\\"', '\\"[REDACTED:lro-keyed-secret]\\"')
    .replace('p%40ss%2Fw0rd', '[REDACTED:lro-url-password]')
    .replace('p@ss@db', '[REDACTED:lro-url-password]@db');

  it('replaces passwords in JSON, ini, env, escaped JSONL and URLs, and keeps placeholders, passing through or stored', async () => {
    expect((await offload(input, ['--redact'])).out).toBe(expected);
    const d = JSON.parse((await offload(input, ['--redact', '--force'])).out) as { id: string };
    expect((await lro(['cat', d.id], { env })).out).toBe(expected);
    expect((await header(d.id)).redacted).toEqual({ 'lro-keyed-secret': 4, 'lro-url-password': 2 });
  });
});

describe('without --redact', () => {
  it('stores the input as it is, counts likely secrets per rule, and the descriptor never shows a value', async () => {
    const r = await offload(planted, []);
    const d = JSON.parse(r.out) as { id: string; summary: Record<string, unknown>; guidance: string };
    const h = await header(d.id);
    expect((await lro(['cat', d.id], { env })).out).toBe(planted);
    const rules = [...PLANTED.map((p) => p[0]), 'private-key'].sort();
    expect(Object.keys(h.possible_secrets as object)).toEqual(rules);
    expect(d.summary.possible_secrets).toBe(rules.length);
    expect(d.summary.possible_secret_rules).toEqual(rules);
    expect(d.guidance).toMatch(/likely secrets are stored as written \(.*github-pat.*\): do not copy them; offload with --redact/);
    const text = (await lro(['info', d.id, '--descriptor', 'text'], { env })).out;
    const full = (await lro(['info', d.id, '--full'], { env })).out;
    for (const out of [r.out, text, full]) {
      for (const [rule, , secret] of PLANTED) {
        expect(out, rule).not.toContain(secret);
        // not even a piece of it
        expect(out, rule).not.toContain(secret.slice(4, 16));
      }
      expect(out).not.toContain(PEM_BODY.slice(0, 24));
    }
    expect(text).toMatch(/possible secrets: \d+ \(/);
  });

  it('masks secrets in the preview (head and tail lines, JSON records) and leaves out frequent values that are secrets', async () => {
    const head = `api_key=${PLANTED[0][2]}\n${PEM}\n${log.slice(0, 400).join('\n')}\nlast: ${PLANTED[2][2]}\n`;
    const d = JSON.parse((await offload(head, ['--force'])).out) as { preview: { head: string[]; tail: string[] } };
    expect(d.preview.head[0]).toBe('1: api_key=[MASKED:github-pat]');
    expect(d.preview.head.slice(1, 4)).toEqual(['2: [MASKED:private-key]', '3: [MASKED:private-key]', '4: [MASKED:private-key]']);
    expect(d.preview.tail.at(-1)).toBe(`${1 + 3 + 400 + 1}: last: [MASKED:gitlab-pat]`);
    const records = Array.from({ length: 400 }, (_, i) => JSON.stringify({ n: i, status: i % 2 ? 'ok' : 'error', token: i % 2 ? PLANTED[0][2] : PLANTED[2][2] })).join('\n');
    const j = await offload(`${records}\n`, ['--force']);
    for (const secret of [PLANTED[0][2], PLANTED[2][2]]) expect(j.out).not.toContain(secret);
    const jd = JSON.parse(j.out) as { preview: { head: { value: Record<string, unknown> }[] }; summary: { top_values?: Record<string, unknown> } };
    expect(jd.preview.head[0].value.token).toBe('[MASKED:gitlab-pat]');
    expect(Object.keys(jd.summary.top_values ?? {})).toContain('.status');
    expect(Object.keys(jd.summary.top_values ?? {})).not.toContain('.token');
  });

  it('gives the same descriptor from offload, again (dedupe) and from info, byte for byte', async () => {
    const a = await offload(planted, ['--session', 'same']);
    const id = (JSON.parse(a.out) as { id: string }).id;
    expect((await offload(planted, ['--session', 'same'])).out).toBe(a.out);
    expect((await lro(['info', id], { env })).out).toBe(a.out);
  });
});
