// The rule data and its build: gitleaks' file is complete and unedited (as far as a length and a parse can tell),
// the build translates every rule it keeps and lists the ones it drops, and data/secrets/README.md lists the same.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'smol-toml';
import { buildRuleTable } from '../../scripts/build-secrets.mjs';

const data = (name: string) => readFileSync(resolve(__dirname, '../../data/secrets', name), 'utf8');
const built = JSON.parse(readFileSync(resolve(__dirname, '../../dist/secrets/rules.json'), 'utf8')) as {
  rules: { id: string; source: string; flags: string; origin: string }[];
  dropped: { id: string; origin: string; reason: string }[];
};

describe('the rule data', () => {
  it("holds gitleaks' whole file, as source.json describes it, with its license", () => {
    const toml = data('gitleaks.toml');
    const source = JSON.parse(data('source.json')) as { chars: number; commit: string };
    expect(toml.length).toBe(source.chars);
    expect(source.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(toml.startsWith('# This file has been auto-generated.')).toBe(true);
    const doc = parse(toml) as { rules: { id: string; regex?: string }[] };
    const last = doc.rules[doc.rules.length - 1];
    expect(last.id).toBe('zendesk-secret-key'); // the last rule, whole
    expect(last.regex).toMatch(/\(\[a-z0-9\]\{40\}\)/);
    expect(data('LICENSE.gitleaks')).toMatch(/^MIT License\n\nCopyright \(c\) 2019 Zachary Rice/);
    expect(data('README.md')).toContain(source.commit);
  });

  it('is built into rules that compile, all but the dropped ones, and lro.toml is marked as lro’s', () => {
    const g = (parse(data('gitleaks.toml')) as { rules: unknown[] }).rules.length;
    const l = (parse(data('lro.toml')) as { rules: unknown[] }).rules.length;
    expect(built.rules.length + built.dropped.length).toBe(g + l);
    for (const r of built.rules) expect(() => new RegExp(r.source, r.flags)).not.toThrow();
    expect(built.rules.filter((r) => r.origin === 'lro').map((r) => r.id)).toEqual([
      'lro-url-password',
      'lro-keyed-secret',
      'lro-compared-secret',
      'lro-encoded-url-password',
      'lro-mysql-password-flag',
      'lro-authorization-header',
    ]);
    expect(built.rules.length).toBeGreaterThan(200);
  });

  it('lists the dropped rules in data/secrets/README.md exactly as the build drops them', () => {
    const readme = data('README.md');
    const listed = readme.slice(readme.indexOf('<!-- dropped -->') + 16, readme.indexOf('<!-- /dropped -->')).trim();
    expect(listed).toBe(built.dropped.map((d) => `- \`${d.id}\` (${d.origin}): ${d.reason}`).join('\n'));
  });

  it('builds the same table again (the build is deterministic)', () => {
    const again = buildRuleTable(data('gitleaks.toml'), data('lro.toml'), JSON.parse(data('source.json')));
    expect(JSON.parse(JSON.stringify(again))).toEqual(built);
  });
});
