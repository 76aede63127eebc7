// gitleaks' own examples for its rules (test/secrets/fixtures/gitleaks-examples.json): every true positive is
// found by its rule (alone, as gitleaks validates it, and among all the rules), and redacting it leaves no trace of
// the secret; every false positive is not found by its rule.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SecretScanner } from '../../src/secrets/stream.js';

interface Sample {
  expand: 'GenerateSampleSecrets' | 'GenerateSampleSecret';
  identifier: string;
  secret: string;
}
interface Examples {
  templates: Record<string, string>;
  rules: Record<string, { file: string; samples: Sample[]; tps: string[]; fps: string[] }>;
}

const examples = JSON.parse(readFileSync(resolve(__dirname, 'fixtures/gitleaks-examples.json'), 'utf8')) as Examples;

/** The source texts gitleaks makes of a sample secret. */
function expand(s: Sample): { name: string; text: string }[] {
  const fill = (t: string) => t.replaceAll('{i}', s.identifier).replaceAll('{I}', s.identifier.toUpperCase()).replaceAll('{s}', s.secret);
  if (s.expand === 'GenerateSampleSecret') return [{ name: 'sample', text: fill('{i}_api_token = "{s}"') }];
  return Object.entries(examples.templates).map(([name, t]) => ({ name, text: fill(t) }));
}

/** Scans text in small chunks (the result must not depend on them); returns counts and the redacted text. */
export function scan(text: string, only?: string[]): { counts: Record<string, number>; redacted: string } {
  const out: Buffer[] = [];
  const s = new SecretScanner({ emit: (b) => out.push(Buffer.from(b)), only });
  const input = Buffer.from(text);
  for (let i = 0; i < input.length; i += 13) s.push(input.subarray(i, i + 13));
  s.end();
  return { counts: s.counts, redacted: Buffer.concat(out).toString() };
}

describe("gitleaks' examples", () => {
  const ids = Object.keys(examples.rules);
  it('cover at least 30 rules', () => {
    expect(ids.length).toBeGreaterThanOrEqual(30);
  });

  for (const id of ids) {
    const r = examples.rules[id];
    const positives = [...r.samples.flatMap((s) => expand(s).map((e) => ({ ...e, secret: s.secret }))), ...r.tps.map((text, i) => ({ name: `tp ${i + 1}`, text, secret: null as string | null }))];
    it(`${id}: finds every true positive (${positives.length}) and none of the false positives (${r.fps.length})`, () => {
      for (const p of positives) {
        const alone = scan(p.text, [id]);
        expect(alone.counts[id] ?? 0, `${p.name}: ${JSON.stringify(p.text)}`).toBeGreaterThanOrEqual(1);
        const all = scan(p.text);
        if (!id.includes('generic')) expect(all.counts[id] ?? 0, `${p.name} among all rules`).toBeGreaterThanOrEqual(1);
        expect(all.redacted).toContain('[REDACTED:');
        if (p.secret) expect(all.redacted, `${p.name}: the secret is gone`).not.toContain(p.secret);
        expect(all.redacted.split('\n').length, 'no line added').toBeLessThanOrEqual(p.text.split('\n').length);
      }
      for (const fp of r.fps) expect(scan(fp, [id]).counts[id] ?? 0, JSON.stringify(fp)).toBe(0);
    });
  }
});

describe('listings of files: a symbolic link is not a key', () => {
  // `ls -l`, `stat` and `find -ls` print NAME -> TARGET; generic-api-key read `api` in libgssapi_krb5.so.2, the
  // arrow as an assignment and the target as the key (a stat listing of /usr/lib was told "2 possible secrets")
  const outputs = resolve(__dirname, '../../fixtures/outputs');
  it.each(['ls-l-usr-bin.txt', 'stat-usr-bin.txt', 'ls-laR-share-doc.txt', 'find-usr-include.txt'])('%s: no finding', (name) => {
    expect(scan(readFileSync(resolve(outputs, name), 'utf8')).counts).toEqual({});
  });
  it('symbolic links to libraries and configuration files', () => {
    const lines = [
      'lrwxrwxrwx 1 root root 21 Jan  1 00:00 libgssapi_krb5.so.2 -> libgssapi_krb5.so.2.2',
      '  File: /usr/lib/x86_64-linux-gnu/libgssapi_krb5.so.2 -> libgssapi_krb5.so.2.2',
      'lrwxrwxrwx 1 root root 33 Jan  1 00:00 apikeys.json -> /etc/secrets-store/apikeys-prod.json',
    ];
    expect(scan(lines.join('\n')).counts).toEqual({});
  });
  it('an arrow after a key name, not a file, is still a finding', () => {
    expect(scan('api_key -> "Zx9kq2Lm8Pw4Rt6Yu1Vb3N"').counts['generic-api-key']).toBe(1);
  });
});
