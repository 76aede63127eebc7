// Secrets found by the name of their key (lro-keyed-secret) and in URLs (lro-url-password), on other scanners'
// fixtures and lro's own (fixtures/keyed-secrets.json: detect-secrets' keyword plugin tests, secretlint's basicauth
// and database-connection-string snapshots; see fixtures/NOTICE), and what must stay: values that are not secrets
// and the digests set (fixtures/digests.txt). bench/redact-recall.sh prints the same figures per group.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SecretScanner } from '../../src/secrets/stream.js';

interface Case {
  text: string;
  expect: 'secret' | 'none' | 'either';
  secrets?: string[];
  form?: string;
}
const fixture = JSON.parse(readFileSync(resolve(__dirname, 'fixtures/keyed-secrets.json'), 'utf8')) as {
  groups: { id: string; source: string; cases: Case[] }[];
};
const digests = readFileSync(resolve(__dirname, 'fixtures/digests.txt'), 'utf8');
const MARK = /\[REDACTED:([\w.-]+)\]/g;

/** Redacts text pushed in chunks of `size` bytes; returns the output and the counts per rule. */
function redact(text: string, size = 13): { out: string; counts: Record<string, number> } {
  const pieces: Buffer[] = [];
  const s = new SecretScanner({ emit: (b) => pieces.push(Buffer.from(b)) });
  const input = Buffer.from(text);
  for (let i = 0; i < input.length; i += size) s.push(input.subarray(i, i + size));
  s.end();
  return { out: Buffer.concat(pieces).toString(), counts: s.counts };
}

/** Whether every secret of the case is gone (a marker's own text does not count). */
const caught = (c: Case, out: string) =>
  out !== c.text && c.secrets!.every((s) => !out.replace(MARK, '').includes(s));
const cases = (pick: (g: { id: string; source: string }) => boolean) =>
  fixture.groups.filter(pick).flatMap((g) => g.cases);

describe('secrets by key name and in URLs', () => {
  it("finds every secret of lro's own cases: JSON, escaped in JSONL, YAML, ini, TOML, env, flags, URLs", () => {
    const mine = cases((g) => g.source === 'lro').filter((c) => c.expect === 'secret');
    expect(mine.length).toBeGreaterThanOrEqual(40);
    for (const c of mine) expect(caught(c, redact(c.text).out), `${c.form}: ${c.text}`).toBe(true);
  });

  it("finds all of detect-secrets' and secretlint's but C++'s secret(\"…\") and .assign(\"…\")", () => {
    const theirs = cases((g) => g.source !== 'lro').filter((c) => c.expect === 'secret');
    const missed = theirs.filter((c) => !caught(c, redact(c.text).out));
    expect(theirs.length).toBeGreaterThanOrEqual(100);
    expect(missed.map((c) => c.text)).toEqual([
      'std::string secret("m{{h}o)p${e]nob(ody[finds>-_$#thisone}}");',
      'secrete.assign("m{{h}o)p${e]nob(ody[finds>-_$#thisone}}",17);',
    ]);
  });

  it('finds the forms outside testers found stored: a percent-encoded URL, mysql -pSECRET, an Authorization header', () => {
    const cases: [string, string][] = [
      ['GET /connect?dsn=postgres%3A%2F%2Fu%3Ap%40ss%40h%2Fdb HTTP/1.1\n', 'p%40ss'],
      ['+ mysql -h db -u root -pS3cr3tPw -e "select 1"\n', 'S3cr3tPw'],
      ['mysqldump --single-transaction -uadmin -pHunter2x shop > dump.sql\n', 'Hunter2x'],
      ['> Authorization: Basic dXNlcjpwYXNz\n', 'dXNlcjpwYXNz'],
      ['Proxy-Authorization: Bearer eyJhbGciOi.eyJzdWIi.c2lnbmF0\n', 'eyJhbGciOi.eyJzdWIi.c2lnbmF0'],
    ];
    for (const [text, secret] of cases) {
      const { out } = redact(text);
      expect(out, text).not.toContain(secret);
      expect(out, text).toMatch(/\[REDACTED:[\w-]+\]/);
    }
    // and what stays: a bare -p (the password is asked for), a port flag, a URL without a password
    for (const text of ['mysql -u root -p shop\n', 'mysql -P 3306 -h db\n', 'see https%3A%2F%2Fexample.com%2Fx\n', 'Authorization: Basic\n']) {
      expect(redact(text).out).toBe(text);
    }
  });

  it('finds a literal compared to a secret-named variable, as detect-secrets does', () => {
    const compared = redact('if ("s3cr3t-Value" == db_password) {\n').out;
    expect(compared).toBe('if ("[REDACTED:lro-compared-secret]" == db_password) {\n');
    expect(redact('if (status == "ok" && token != null) {\n').out).toBe('if (status == "ok" && token != null) {\n');
  });

  it('replaces nothing in values that are not secrets: placeholders, templates, references, key names', () => {
    for (const c of cases(() => true).filter((x) => x.expect === 'none')) {
      const { out } = redact(c.text);
      // known, and not this rule's: gitleaks' generic-api-key on *_key ids, and a URL whose password is its user
      if (/^(?:idempotency_key|"cache_key")/.test(c.text) || /\/\/(\w+):\1@/.test(c.text)) continue;
      expect(out, c.text).toBe(c.text);
    }
  });

  it('replaces nothing in the digests set (digests, UUIDs, integrity strings in lockfiles, git, docker, logs)', () => {
    expect(digests.split('\n').length).toBeGreaterThan(1200);
    const { out, counts } = redact(digests, 4096);
    expect(counts).toEqual({});
    expect(out).toBe(digests);
  });

  it('hides the value only: the key, the quotes and what follows stay', () => {
    const text = [
      '{"user": "admin", "password": "Xk9#mP2$vL5!"}',
      '{"msg":"loaded","body":"{\\"db\\":{\\"password\\":\\"p\\\\\\"w#1x\\"}}"}',
      'password = hunter2abc ; comment',
      "DB_PASSWORD=Xk9#mP2$vL5! psql -h db",
      '  api_key: "a b c d e f"',
    ].join('\n');
    expect(redact(text).out).toBe(
      [
        '{"user": "admin", "password": "[REDACTED:lro-keyed-secret]"}',
        '{"msg":"loaded","body":"{\\"db\\":{\\"password\\":\\"[REDACTED:lro-keyed-secret]\\"}}"}',
        'password = [REDACTED:lro-keyed-secret] ; comment',
        'DB_PASSWORD=[REDACTED:lro-keyed-secret] psql -h db',
        '  api_key: "[REDACTED:lro-keyed-secret]"',
      ].join('\n'),
    );
  });

  it("leaves the finding to a vendor's rule, or gitleaks' generic one, when it finds the same value", () => {
    const ghp = 'ghp_R8sTq2LmZx9Vb4Nc7Wd1Ye5Uf3Ig6Hj0Kk2X';
    const vendor = redact(`GITHUB_TOKEN=${ghp}\n`);
    expect(vendor).toEqual({ out: 'GITHUB_TOKEN=[REDACTED:github-pat]\n', counts: { 'github-pat': 1 } });
    const generic = redact('api_key = "Zx8vQ2mK9pLwR4tY7uI0"\n');
    expect(generic.counts).toEqual({ 'generic-api-key': 1 });
  });

  const soak = { tags: ['soak'], timeout: 60_000 };
  it('scans a 1 MB line holding 35,000 keyed values in seconds, not half a minute', soak, () => {
    // each finding used to look for its line's ends (a pass over the whole line): quadratic, 21 to 31 s here
    const values = Array.from({ length: 35_000 }, (_, i) => `token: Zq${i.toString(36).padStart(10, '0')}x`);
    const line = `${values.join(' ')}\n`;
    const start = performance.now();
    const { counts } = redact(line, 64 << 10);
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(35_000);
    expect(counts['lro-keyed-secret']).toBeGreaterThan(34_900); // a value may fit a vendor's format
    expect(performance.now() - start).toBeLessThan(10_000);
  });

  it('gives the same output wherever the chunks cut a line', () => {
    const text = '{"ts":1,"password":"Xk9#mP2$vL5!"}\npassword: abc\\"def\nx postgres://u:p@ss@db/app\n';
    const whole = redact(text, text.length).out;
    expect(whole).not.toContain('Xk9#');
    for (let size = 1; size < 24; size++) expect(redact(text, size).out, `chunks of ${size}`).toBe(whole);
  });
});
